import numpy as np

INPUTS = "beta:6,X:1000x6,y:1000"
PARAMS = "X,y"


def f(beta, X, y):
    eta = X @ beta
    return np.sum(np.exp(eta) - y * eta) + 0.5 * np.sum(beta[1:] ** 2)


def POINT(rng):
    X = np.hstack([np.ones((1000, 1)), 0.2 * rng.normal(size=(1000, 5))])
    return [0.1 * rng.normal(size=6), X, rng.poisson(1.5, size=1000).astype(float)]
