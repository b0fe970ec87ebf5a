import numpy as np

INPUTS = "x0:2,q:40"


def f(x0, q):
    ca, T = x0[0], x0[1]
    out = []
    for k in range(40):
        r = 7.2e10 * np.exp(-8750.0 / T) * ca
        dca = q[k] / 100.0 * (1.0 - ca) - r
        dT = q[k] / 100.0 * (350.0 - T) + 209.2 * r + 2.09 * (300.0 - T)
        ca = ca + 0.01 * dca
        T = T + 0.01 * dT
        out.append(T)
    return np.stack(out)


def POINT(rng):
    return [np.array([0.5, 350.0]), 100.0 + 5.0 * rng.normal(size=40)]
