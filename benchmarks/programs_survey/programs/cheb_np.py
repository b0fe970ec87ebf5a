import numpy as np

INPUTS = "c:10,x:60"


def f(c, x):
    t0, t1 = np.ones_like(x), x
    s = c[0] * t0 + c[1] * t1
    for k in range(2, 10):
        t0, t1 = t1, 2.0 * x * t1 - t0
        s = s + c[k] * t1
    return s


def POINT(rng):
    x = np.cos(np.pi * (np.arange(60) + 0.5) / 60)
    x[0], x[-1] = 1.0, -1.0
    return [rng.normal(size=10), x]
