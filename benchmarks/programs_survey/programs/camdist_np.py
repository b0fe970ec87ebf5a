import numpy as np

INPUTS = "K:6,P:40x3"
PARAMS = "P"


def f(K, P):
    fx, fy, cx, cy, k1, k2 = K
    x = P[:, 0] / P[:, 2]
    y = P[:, 1] / P[:, 2]
    r2 = x * x + y * y
    d = 1 + k1 * r2 + k2 * r2**2
    return np.stack([fx * x * d + cx, fy * y * d + cy], axis=1)


def POINT(rng):
    P = rng.normal(size=(40, 3)) + np.array([0.0, 0.0, 5.0])
    P[0, :2] = 0.0  # the principal point: r2 == 0
    return [np.array([500.0, 510.0, 320.0, 240.0, -0.1, 0.01]), P]
