import numpy as np

INPUTS = "R:5x3x3,v:5x3"


def f(R, v):
    # batched rotations by an ellipsis einsum, and orthogonality penalties
    w = np.einsum("...ij,...j->...i", R, v)
    RtR = np.einsum("...ki,...kj->...ij", R, R)
    return np.sum(w**2 * np.arange(1.0, 4.0)) + np.sum((RtR - np.eye(3)) ** 2)
