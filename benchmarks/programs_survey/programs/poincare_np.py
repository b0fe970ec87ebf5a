import numpy as np

INPUTS = "U:6x2,pos:5x2,neg:5x2"
PARAMS = "pos,neg"
EPS = 1e-5


def project(x):
    # keep the points strictly inside the unit ball; the norm from a guarded square root,
    # as x / norm(x) at the origin gives NaN gradients through the unused branch
    n2 = np.sum(x**2, axis=-1, keepdims=True)
    scale = (1 - EPS) / np.sqrt(np.maximum(n2, 1e-30))
    return np.where(n2 >= (1 - EPS) ** 2, x * scale, x)


def poincare_dist(u, v):
    uu = np.sum(u**2, axis=-1)
    vv = np.sum(v**2, axis=-1)
    duv = np.sum((u - v) ** 2, axis=-1)
    return np.arccosh(1 + 2 * duv / ((1 - uu) * (1 - vv)))


def f(U, pos, neg):
    # hyperbolic embedding of a small tree (Nickel & Kiela 2017): pull parent-child pairs
    # together, push sampled non-edges apart by a margin
    U = project(U)
    i, j = pos[:, 0].astype(int), pos[:, 1].astype(int)
    k, m = neg[:, 0].astype(int), neg[:, 1].astype(int)
    d_pos = poincare_dist(U[i], U[j])
    d_neg = poincare_dist(U[k], U[m])
    return np.sum(d_pos**2) + np.sum(np.maximum(0.0, 1.0 - d_neg) ** 2)


def POINT(rng):
    U = 0.3 * rng.normal(size=(6, 2))
    U[0] = 0.0  # the root at the origin
    pos = np.array([[0, 1], [0, 2], [1, 3], [1, 4], [2, 5]], float)
    neg = np.array([[3, 5], [4, 5], [3, 2], [1, 2], [0, 5]], float)
    return [U, pos, neg]
