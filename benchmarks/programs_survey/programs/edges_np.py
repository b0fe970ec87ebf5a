import numpy as np

INPUTS = "x:50"


def f(x):
    return (
        np.sum(np.clip(x, -1.0, 1.0) ** 2)
        + np.max(np.abs(x))
        + np.sum(np.logaddexp(0.0, 50.0 * x))
        + np.sum(np.maximum(x, 0.0) ** 3)
    )


def POINT(rng):
    x = rng.normal(size=50) * 30
    x[:5] = 0.0
    x[5:8] = [1.0, -1.0, 1.0]
    x[8] = 800.0
    x[9] = -800.0
    return [x]
