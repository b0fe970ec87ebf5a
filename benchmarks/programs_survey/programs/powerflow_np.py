import numpy as np

INPUTS = "th:14,V:14,P:14,Q:14"
PARAMS = "P,Q"
FR = np.array([0, 0, 1, 1, 1, 2, 3, 3, 3, 4, 5, 5, 5, 6, 6, 8, 8, 9, 11, 12])
TO = np.array([1, 4, 2, 3, 4, 3, 4, 6, 8, 5, 10, 11, 12, 7, 8, 9, 13, 10, 12, 13])
_z = 0.02 + 0.05j + 0.01 * np.arange(20)
Y = 1.0 / _z
G = np.zeros((14, 14))
B = np.zeros((14, 14))
np.add.at(G, (FR, TO), -Y.real)
np.add.at(G, (TO, FR), -Y.real)
np.add.at(B, (FR, TO), -Y.imag)
np.add.at(B, (TO, FR), -Y.imag)
G[np.arange(14), np.arange(14)] = -G.sum(axis=1)
B[np.arange(14), np.arange(14)] = -B.sum(axis=1) + 0.01
ROW, COL = np.nonzero(G)


def f(th, V, P, Q):
    d = th[ROW] - th[COL]
    vv = V[ROW] * V[COL]
    p = vv * (G[ROW, COL] * np.cos(d) + B[ROW, COL] * np.sin(d))
    q = vv * (G[ROW, COL] * np.sin(d) - B[ROW, COL] * np.cos(d))
    Pc = np.bincount(ROW, weights=p, minlength=14)
    Qc = np.bincount(ROW, weights=q, minlength=14)
    return np.concatenate([Pc - P, Qc - Q])


def POINT(rng):
    return [
        0.1 * rng.normal(size=14),
        1.0 + 0.03 * rng.normal(size=14),
        rng.normal(size=14),
        rng.normal(size=14),
    ]
