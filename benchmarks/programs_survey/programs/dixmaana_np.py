import numpy as np

INPUTS = "x:300"
ALPHA, BETA, GAMMA, DELTA = 1.0, 0.0, 0.125, 0.125


def f(x):
    n = x.size
    m = n // 3
    i = np.arange(1, n + 1) / n
    t1 = ALPHA * np.sum(i * x**2)
    t2 = BETA * np.sum(x[:-1] ** 2 * (x[1:] + x[1:] ** 2) ** 2)
    t3 = GAMMA * np.sum(x[: 2 * m] ** 2 * x[m:] ** 4)
    t4 = DELTA * np.sum(i[:m] * x[:m] * x[2 * m :])
    return 1.0 + t1 + t2 + t3 + t4
