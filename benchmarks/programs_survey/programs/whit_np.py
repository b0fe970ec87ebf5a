import numpy as np

INPUTS = "y:30,loglam"


def f(y, loglam):
    n = len(y)
    D = np.diff(np.eye(n), 2, axis=0)
    z = np.linalg.solve(np.eye(n) + np.exp(loglam) * D.T @ D, y)
    return z, np.sum(np.diff(z, 2) ** 2)


def POINT(rng):
    t = np.linspace(0, 1, 30)
    return [np.sin(6 * t) + 0.2 * rng.normal(size=30), np.array(2.0)]
