import numpy as np
from scipy.linalg import expm

INPUTS = "k:3,x0:3"


def f(k, x0, t=(0.5, 1.0, 2.0, 4.0)):
    A = np.array([[-k[0], 0.0, 0.0], [k[0], -k[1], k[2]], [0.0, k[1], -k[2]]])  # compartments
    return np.stack([expm(A * ti) @ x0 for ti in t])


def POINT(rng):
    return [np.array([1.2, 0.5, 0.3]), np.array([1.0, 0.0, 0.0])]
