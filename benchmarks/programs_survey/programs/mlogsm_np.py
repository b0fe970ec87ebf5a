import numpy as np

INPUTS = "x:5x7,mask:5x7"
PARAMS = "mask"
TARGET = np.array([2, 0, 6, 3, 1])


def f(x, mask):
    z = np.where(mask > 0, x, -np.inf)  # forbidden actions
    m = np.max(z, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))
    logp = np.where(mask > 0, z - lse, 0.0)
    Y = np.eye(7)[TARGET]
    return -np.sum(Y * logp) + 0.1 * np.sum(np.exp(logp) * logp)


def POINT(rng):
    mask = (rng.uniform(size=(5, 7)) < 0.7).astype(float)
    mask[np.arange(5), TARGET] = 1.0
    mask[1] = 0.0
    mask[1, 0] = 1.0  # one allowed action: log p = 0
    mask[4] = 1.0
    return [rng.normal(size=(5, 7)), mask]
