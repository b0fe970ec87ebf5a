import numpy as np

INPUTS = "th:5,Z:50x2"
PARAMS = "Z"
DT, S0, STRIKE = 0.02, 100.0, 100.0


def f(th, Z):
    kappa, vbar, xi, rho, v0 = th
    s, v = S0, v0
    for t in range(Z.shape[0]):
        z1 = Z[t, 0]
        z2 = rho * z1 + np.sqrt(1 - rho**2) * Z[t, 1]
        vp = np.maximum(v, 0.0)
        s = s * np.exp(-0.5 * vp * DT + np.sqrt(vp * DT) * z1)
        v = v + kappa * (vbar - vp) * DT + xi * np.sqrt(vp * DT) * z2
    return np.maximum(s - STRIKE, 0.0)


def POINT(rng):
    return [np.array([2.0, 0.04, 0.3, -0.7, 0.04]), rng.normal(size=(50, 2))]
