import numpy as np
from scipy.special import logsumexp

INPUTS = "E:12x4,T:4x4,tags:12"
PARAMS = "tags"


def f(E, T, tags):
    Y = (tags[:, None] == np.arange(4)[None, :]).astype(float)  # one-hot gold tags
    gold = np.sum(E * Y) + np.sum(Y[:-1, :, None] * Y[1:, None, :] * T)
    alpha = E[0]
    for t in range(1, 12):
        alpha = logsumexp(alpha[:, None] + T, axis=0) + E[t]
    return logsumexp(alpha) - gold


def POINT(rng):
    return [rng.normal(size=(12, 4)), rng.normal(size=(4, 4)), rng.integers(0, 4, 12).astype(float)]
