import numpy as np

INPUTS = "u:64,kappa:98"


def _mesh(m):
    xs, ys = np.meshgrid(np.linspace(0.0, 1.0, m), np.linspace(0.0, 1.0, m))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    tri = []
    for i in range(m - 1):
        for j in range(m - 1):
            a, b, c, d = i * m + j, i * m + j + 1, (i + 1) * m + j, (i + 1) * m + j + 1
            tri += [[a, b, d], [a, d, c]]
    return pts, np.array(tri)


PTS, TRI = _mesh(8)
_E = PTS[TRI]  # (98, 3, 2)
_B = np.stack([_E[:, 1] - _E[:, 0], _E[:, 2] - _E[:, 0]], axis=2)  # columns: edges
_AREA = 0.5 * np.abs(np.linalg.det(_B))
_G = np.linalg.inv(_B).transpose(0, 2, 1) @ np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
KE = _AREA[:, None, None] * np.einsum("eki,ekj->eij", _G, _G)


def f(u, kappa):
    ue = u[TRI]
    re = kappa[:, None] * np.einsum("eij,ej->ei", KE, ue)
    r = np.zeros(64)
    np.add.at(r, TRI, re)
    return r - 0.1 * u**3
