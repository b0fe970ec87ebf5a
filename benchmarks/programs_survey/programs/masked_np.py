import numpy as np

INPUTS = "s:4x4"


def f(s):
    mask = np.tril(np.ones((4, 4))) > 0
    s = np.where(mask, s, -np.inf)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)
