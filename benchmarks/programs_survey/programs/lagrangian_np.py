import numpy as np

INPUTS = "x:5,lam:3"


def constraints(x):
    return np.array([np.sum(x**2) - 1.0, x[0] * x[1] - x[2], np.prod(x[2:]) - 0.1])


def f(x, lam, rho=10.0):
    # an augmented Lagrangian: its Hessian in (x, lam) is the KKT matrix plus the penalty
    obj = np.sum(x * np.arange(1, 6)) + 0.5 * np.dot(x, x)
    c = constraints(x)
    return obj + np.dot(lam, c) + 0.5 * rho * np.average(c**2, weights=np.array([1.0, 2.0, 3.0]))


def POINT(rng):
    return [0.4 + 0.1 * rng.normal(size=5), rng.normal(size=3)]
