import numpy as np

INPUTS = "G:2x3x2,A:5x2,B:4x3,C:6x2,Y:5x4x6"
PARAMS = "Y"


def mode_product(T, M, mode):
    # n-mode product T x_n M (Kolda & Bader 2009)
    out = np.tensordot(M, T, axes=([1], [mode]))
    return np.moveaxis(out, 0, mode)


def f(G, A, B, C, Y):
    Yhat = mode_product(mode_product(mode_product(G, A, 0), B, 1), C, 2)
    ortho = sum(np.sum((M.T @ M - np.eye(M.shape[1])) ** 2) for M in (A, B, C))
    return 0.5 * np.sum((Yhat - Y) ** 2) + 0.1 * ortho
