import numpy as np
from scipy.special import logsumexp

INPUTS = "W:20x8,X:500x20,y:500"
PARAMS = "X,y"
EPS = 0.1


def f(W, X, y):
    z = X @ W
    logp = z - logsumexp(z, axis=1, keepdims=True)
    onehot = (y[:, None] == np.arange(8)[None, :]).astype(float)
    target = onehot * (1 - EPS) + EPS / 8
    return -np.mean(np.sum(target * logp, axis=1))


def POINT(rng):
    return [0.1 * rng.normal(size=(20, 8)), rng.normal(size=(500, 20)),
            rng.integers(0, 8, size=500).astype(float)]  # fmt: skip
