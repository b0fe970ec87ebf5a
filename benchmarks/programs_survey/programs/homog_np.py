import numpy as np

INPUTS = "h:8,p:60x2,q:60x2"
PARAMS = "p,q"


def f(h, p, q):
    H = np.concatenate([h, np.ones(1)]).reshape(3, 3)
    ph = np.concatenate([p, np.ones((p.shape[0], 1))], axis=1)
    w = ph @ H.T
    return (w[:, :2] / w[:, 2:]) - q


def POINT(rng):
    h = np.array([1.0, 0.1, 0.2, -0.05, 0.9, 0.1, 1e-3, 2e-3])
    return [h, rng.uniform(-50, 50, size=(60, 2)), rng.uniform(-50, 50, size=(60, 2))]
