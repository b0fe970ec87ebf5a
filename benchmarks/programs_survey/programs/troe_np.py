import numpy as np

INPUTS = "T:6,P:6"
R = 8.314
K0 = (6.366e20, -1.72, 524.8 * 4.184)
KINF = (4.65e12, 0.44, 0.0)
TROE = (0.5, 1.0e-30, 1.0e30, 1.0e30)


def arr(k, T):
    return k[0] * T ** k[1] * np.exp(-k[2] / (R * T))


def f(T, P):
    """A Troe fall-off rate k(T, P) (H + O2 (+M) = HO2 (+M)) on a grid of states."""
    conc = P / (R * T) * 1e-6
    k0, kinf = arr(K0, T), arr(KINF, T)
    pr = k0 * conc / kinf
    a, t3, t1, t2 = TROE
    fcent = (1 - a) * np.exp(-T / t3) + a * np.exp(-T / t1) + np.exp(-t2 / T)
    logf = np.log10(fcent)
    c = -0.4 - 0.67 * logf
    n = 0.75 - 1.27 * logf
    lp = np.log10(pr)
    f1 = (lp + c) / (n - 0.14 * (lp + c))
    F = 10 ** (logf / (1 + f1**2))
    return kinf * pr / (1 + pr) * F


def POINT(rng):
    return [rng.uniform(800, 2000, 6), rng.uniform(1e4, 1e6, 6)]
