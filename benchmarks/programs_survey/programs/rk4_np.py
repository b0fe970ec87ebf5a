import numpy as np

INPUTS = "y:4"


def rhs(y):
    q, p = y[:2], y[2:]
    r3 = np.sum(q**2) ** 1.5
    return np.concatenate([p, -q / r3])


def f(y):
    h = 0.01
    k1 = rhs(y)
    k2 = rhs(y + 0.5 * h * k1)
    k3 = rhs(y + 0.5 * h * k2)
    k4 = rhs(y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
