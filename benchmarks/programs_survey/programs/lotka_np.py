import numpy as np

INPUTS = "y0:2,th:4"
H = 0.05


def rhs(y, th):
    a, b, c, d = th
    return np.array([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])


def f(y0, th):
    y = y0
    for _ in range(20):
        k1 = rhs(y, th)
        k2 = rhs(y + H / 2 * k1, th)
        k3 = rhs(y + H / 2 * k2, th)
        k4 = rhs(y + H * k3, th)
        y = y + H / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def POINT(rng):
    return [
        np.array([10.0, 5.0]) + rng.random(2),
        np.array([1.1, 0.4, 0.1, 0.4]) + 0.01 * rng.random(4),
    ]
