import numpy as np

INPUTS = "w:5,X:40x5,y:40"
PARAMS = "X,y"


def softplus(z):
    return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def f(w, X, y, l2=0.01):
    z = X @ w
    # logistic loss with labels in {-1, +1}, the softplus written stably
    return np.mean(softplus(-y * z)) + l2 * np.sum(softplus(w) - np.log(2.0))


def POINT(rng):
    X = rng.normal(size=(40, 5))
    X[0] = 0.0  # z exactly 0: the kinks of maximum and abs at the same point
    w = rng.normal(size=5)
    w[2] = 0.0
    return [w, X, np.sign(rng.normal(size=40))]
