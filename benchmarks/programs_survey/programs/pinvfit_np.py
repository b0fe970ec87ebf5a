import numpy as np

INPUTS = "x:10,y:10"


def f(x, y, lam=0.01):
    # a cubic least-squares fit at moving nodes through the pseudo-inverse
    V = np.vander(x, 4, increasing=True)
    c = np.linalg.pinv(V) @ y
    return np.sum((V @ c - y) ** 2) + lam * np.sum(c**2)


def POINT(rng):
    x = np.linspace(-1.0, 1.0, 10) + 0.02 * rng.normal(size=10)
    return [x, np.sin(2 * x) + 0.1 * rng.normal(size=10)]
