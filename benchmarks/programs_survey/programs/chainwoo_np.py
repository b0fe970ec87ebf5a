import numpy as np

INPUTS = "x:40"


def f(x):
    a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
    return 1.0 + np.sum(
        100 * (b - a**2) ** 2
        + (1 - a) ** 2
        + 90 * (d - c**2) ** 2
        + (1 - c) ** 2
        + 10 * (b + d - 2) ** 2
        + 0.1 * (b - d) ** 2
    )
