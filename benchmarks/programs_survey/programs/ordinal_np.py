import numpy as np

INPUTS = "w:3,c0:,d:2,X:200x3,Y:200x4"
PARAMS = "X,Y"


def sig(t):
    return 1.0 / (1.0 + np.exp(-t))


def f(w, c0, d, X, Y):
    cuts = c0 + np.concatenate([np.zeros(1), np.cumsum(np.exp(d))])  # increasing cutpoints
    eta = X @ w
    cdf = sig(cuts[None, :] - eta[:, None])
    cdf = np.concatenate([np.zeros((200, 1)), cdf, np.ones((200, 1))], axis=1)
    p = np.diff(cdf, axis=1)
    return -np.sum(Y * np.log(p))


def POINT(rng):
    X = rng.normal(size=(200, 3))
    cls = rng.integers(0, 4, size=200)
    return [0.3 * rng.normal(size=3), np.array(-1.0), np.zeros(2), X, np.eye(4)[cls]]
