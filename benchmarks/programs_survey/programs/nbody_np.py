import numpy as np

INPUTS = "q:8x3,m:8"
PARAMS = "m"
EPS = 1e-2


def f(q, m):
    d = q[None, :, :] - q[:, None, :]
    r2 = np.sum(d**2, axis=-1) + EPS**2
    inv = r2**-1.5
    return np.sum(m[None, :, None] * d * inv[:, :, None], axis=1)


def POINT(rng):
    return [rng.normal(size=(8, 3)), rng.random(8) + 0.5]
