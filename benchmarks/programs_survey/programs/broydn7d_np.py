import numpy as np

INPUTS = "x:20"


def f(x, p=7.0 / 3.0):
    # CUTEst BROYDN7D (Toint 1978): x_0 = x_{n+1} = 0
    n = x.size
    z = np.zeros(1)
    xp = np.concatenate([z, x, z])
    t = (3.0 - 2.0 * x) * x - xp[:-2] - xp[2:] + 1.0
    return np.sum(np.abs(t) ** p) + np.sum(np.abs(x[: n // 2] + x[n // 2 :]) ** p)


def POINT(rng):
    x = -1.0 + 0.1 * rng.normal(size=20)
    x[0], x[10] = 0.5, -0.5  # a pair summing to exactly 0
    return [x]
