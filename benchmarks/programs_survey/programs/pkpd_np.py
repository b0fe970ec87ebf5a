import numpy as np

INPUTS = "ka,ke,V,emax,t:12,c:12,e:12"
PARAMS = "t,c,e"
DOSE = 100.0


def f(ka, ke, V, emax, t, c, e):
    C = DOSE * ka / (V * (ka - ke)) * (np.exp(-ke * t) - np.exp(-ka * t))
    effect = emax * C**2 / (4.0**2 + C**2)  # Hill coefficient 2
    return np.sum((np.log(C) - np.log(c)) ** 2) + 0.1 * np.sum((effect - e) ** 2)


def POINT(rng):
    t = np.array([0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24.0])
    ka, ke, V = 1.2, 0.15, 20.0
    C = DOSE * ka / (V * (ka - ke)) * (np.exp(-ke * t) - np.exp(-ka * t))
    c = C * np.exp(0.1 * rng.normal(size=12))
    return [np.array(1.0), np.array(0.2), np.array(18.0), np.array(0.9), t, c,
            C**2 / (16 + C**2) + 0.05 * rng.normal(size=12)]  # fmt: skip
