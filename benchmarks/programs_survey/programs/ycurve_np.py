import numpy as np

INPUTS = "s:10"


def f(s):
    n = len(s)
    D = np.zeros(n)
    for i in range(n):
        D[i] = (1 - s[i] * np.sum(D[:i])) / (1 + s[i])
    t = np.arange(1, n + 1)
    return -np.log(D) / t


def POINT(rng):
    return [0.02 + 0.002 * np.arange(10) + 0.001 * rng.random(10)]
