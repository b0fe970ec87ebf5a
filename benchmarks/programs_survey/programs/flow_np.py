import numpy as np

INPUTS = "W:4x4,b:4,x:64x4"
PARAMS = "x"


def f(W, b, x):
    z = x @ W.T + b
    _sign, logdet = np.linalg.slogdet(W)
    logp = -0.5 * np.sum(z**2, axis=1) - 2 * np.log(2 * np.pi)
    return -np.mean(logp) - logdet


def POINT(rng):
    return [
        np.eye(4) + 0.2 * rng.normal(size=(4, 4)),
        0.1 * rng.normal(size=4),
        rng.normal(size=(64, 4)),
    ]
