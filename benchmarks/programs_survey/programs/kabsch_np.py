import numpy as np

INPUTS = "P:10x3,Q:10x3"


def f(P, Q):
    Pc = P - P.mean(axis=0)
    Qc = Q - Q.mean(axis=0)
    H = Pc.T @ Qc
    U, _, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))  # no reflections
    R = Vt.T @ np.diag(np.array([1.0, 1.0, d])) @ U.T
    return np.sqrt(np.mean(np.sum((Pc @ R.T - Qc) ** 2, axis=1)))


def POINT(rng):
    P = rng.normal(size=(10, 3)) * np.array([3.0, 2.0, 1.0])
    c, s = np.cos(0.7), np.sin(0.7)
    Rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return [P, P @ Rz.T + 0.1 * rng.normal(size=(10, 3))]
