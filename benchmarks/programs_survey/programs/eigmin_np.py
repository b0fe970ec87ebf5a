import numpy as np

INPUTS = "x:6"


def f(x):
    # a stiffness matrix's smallest eigenvalue, kept away from 0 by a log barrier
    K = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    S = K + np.diag(x[:3] ** 2) + np.outer(x[3:], x[3:])
    lam = np.linalg.eigvalsh(S)
    return -np.log(lam[0]) + 0.1 * np.sum(lam**2)


def POINT(rng):
    return [rng.normal(size=6) * 0.5]
