import numpy as np

INPUTS = "W1:2x5,W2:5x3,P:10x2"
PARAMS = "P"


def safe_log(x):
    return np.log(np.where(x > 0, x, 1.0))


def f(W1, W2, P):
    # PointNet-style: a shared per-point MLP, max-pooled over points, then a log-norm head
    h = np.maximum(P @ W1, 0.0) @ W2
    g = np.max(h, axis=0)
    return np.sum(safe_log(np.sum(np.maximum(g, 0.0) ** 2)) + 0.01 * np.sum(W1**2))


def POINT(rng):
    P = rng.normal(size=(10, 2))
    P[7] = P[2]  # two equal points: the max over points is a tie
    return [rng.normal(size=(2, 5)), rng.normal(size=(5, 3)), P]
