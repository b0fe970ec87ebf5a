import numpy as np
from scipy.special import logsumexp

INPUTS = "x:3x5x2,y:3x6x2"
EPS = 0.2


def f(x, y):
    C = np.sum((x[:, :, None, :] - y[:, None, :, :]) ** 2, axis=-1)  # (3, 5, 6)
    u, v = np.zeros((3, 5)), np.zeros((3, 6))
    for _ in range(20):
        u = EPS * (-np.log(5.0) - logsumexp((v[:, None, :] - C) / EPS, axis=2))
        v = EPS * (-np.log(6.0) - logsumexp((u[:, :, None] - C) / EPS, axis=1))
    P = np.exp((u[:, :, None] + v[:, None, :] - C) / EPS)
    return np.sum(P * C, axis=(1, 2))
