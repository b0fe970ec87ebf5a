import numpy as np

INPUTS = "c:7,x:20"
P = 3
T = np.array([0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0])


def f(c, x):
    k = np.clip(np.searchsorted(T, x, side="right") - 1, P, len(T) - P - 2)
    d = [c[k - P + j] for j in range(P + 1)]
    for r in range(1, P + 1):
        for j in range(P, r - 1, -1):
            a = (x - T[j + k - P]) / (T[j + 1 + k - r] - T[j + k - P])
            d[j] = (1.0 - a) * d[j - 1] + a * d[j]
    return d[P]


def POINT(rng):
    x = np.sort(rng.uniform(0.0, 1.0, size=20))
    x[:5] = [0.0, 0.25, 0.5, 0.75, 1.0]  # the knots and both ends
    return [rng.normal(size=7), x]
