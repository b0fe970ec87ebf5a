import numpy as np

INPUTS = "y:2"
Y0 = np.array([2.0, 0.0])


def rhs(y):
    mu = 5.0
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def f(y):
    dt = 0.05
    return y - Y0 - dt * rhs(y)
