import numpy as np

INPUTS = "x:200,k"


def f(x, k):
    s = 0.0
    out = []
    for t in range(200):
        if x[t] > 0:  # noqa: SIM108 (a user's if/else on a traced value)
            s = 0.9 * s + k * x[t]
        else:
            s = 0.5 * s - x[t] ** 2
        out.append(s)
    return np.stack(out)


def POINT(rng):
    return [rng.normal(size=200), np.array(1.5)]
