import numpy as np

INPUTS = "X:6x2"


def f(X):
    # a soft repulsion over pairwise distances, the diagonal (distance 0) masked out
    diff = X[:, None, :] - X[None, :, :]
    d = np.linalg.norm(diff, axis=-1)
    off = ~np.eye(6, dtype=bool)
    return np.sum(np.where(off, np.exp(-d), 0.0)) + 0.1 * np.sum(X**2)
