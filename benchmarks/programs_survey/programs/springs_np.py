import numpy as np

INPUTS = "p:10x2"
K, L0 = 3.0, 1.0


def f(p):
    d = p[1:] - p[:-1]
    length = np.sqrt(np.sum(d * d, axis=1))
    elastic = 0.5 * K * np.sum((length - L0) ** 2)
    gravity = 9.81 * np.sum(p[:, 1])
    return elastic + gravity


def POINT(rng):
    base = np.stack([np.arange(10.0), np.zeros(10)], axis=1)
    return [base + 0.1 * rng.normal(size=(10, 2))]
