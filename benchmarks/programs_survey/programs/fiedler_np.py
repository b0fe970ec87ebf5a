import numpy as np

INPUTS = "logw:8"
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [3, 4], [4, 5], [5, 3]])


def f(logw, n=6):
    # the two smallest nonzero Laplacian eigenvalues of a weighted graph (algebraic connectivity)
    w = np.exp(logw)
    i, j = EDGES[:, 0], EDGES[:, 1]
    L = np.zeros((n, n))
    np.add.at(L, (i, j), -w)
    np.add.at(L, (j, i), -w)
    np.add.at(L, (i, i), w)
    np.add.at(L, (j, j), w)
    lam = np.linalg.eigvalsh(L)
    return lam[1:3]


def POINT(rng):
    return [0.3 * rng.normal(size=8)]
