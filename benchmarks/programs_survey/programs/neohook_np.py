import numpy as np

INPUTS = "x:36x2"


def _mesh(m):
    xs, ys = np.meshgrid(np.linspace(0.0, 1.0, m), np.linspace(0.0, 1.0, m))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    tri = []
    for i in range(m - 1):
        for j in range(m - 1):
            a, b, c, d = i * m + j, i * m + j + 1, (i + 1) * m + j, (i + 1) * m + j + 1
            tri += [[a, b, d], [a, d, c]]
    return pts, np.array(tri)


PTS, TRI = _mesh(6)
_E = PTS[TRI]
DM = np.stack([_E[:, 1] - _E[:, 0], _E[:, 2] - _E[:, 0]], axis=2)
DMINV = np.linalg.inv(DM)
AREA = 0.5 * np.abs(np.linalg.det(DM))
MU, LAM = 1.0, 4.0


def f(x):
    e = x[TRI]
    Ds = np.stack([e[:, 1] - e[:, 0], e[:, 2] - e[:, 0]], axis=2)
    F = np.einsum("eij,ejk->eik", Ds, DMINV)
    J = np.linalg.det(F)
    I1 = np.einsum("eij,eij->e", F, F)
    logJ = np.log(J)
    W = 0.5 * MU * (I1 - 2.0) - MU * logJ + 0.5 * LAM * logJ**2
    return np.sum(AREA * W)


def POINT(rng):
    return [PTS * np.array([1.1, 0.95]) + 0.01 * rng.normal(size=PTS.shape)]
