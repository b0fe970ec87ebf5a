import numpy as np

INPUTS = "x:25x3"
_m = 5
_t = []
for _i in range(_m - 1):
    for _j in range(_m - 1):
        _a = _i * _m + _j
        _t += [[_a, _a + 1, _a + _m + 1], [_a, _a + _m + 1, _a + _m]]
TRI = np.array(_t)


def cot(a, b):
    return np.sum(a * b, axis=1) / np.linalg.norm(np.cross(a, b), axis=1)


def f(x):
    """The cotangent Laplacian of the mesh applied to its own positions."""
    L = np.zeros((25, 3))
    for k in range(3):
        i, j, o = TRI[:, k], TRI[:, (k + 1) % 3], TRI[:, (k + 2) % 3]
        w = 0.5 * cot(x[i] - x[o], x[j] - x[o])
        np.add.at(L, i, w[:, None] * (x[j] - x[i]))
        np.add.at(L, j, w[:, None] * (x[i] - x[j]))
    return L


def POINT(rng):
    g = np.stack(np.meshgrid(np.arange(5.0), np.arange(5.0)), -1).reshape(25, 2)
    z = 0.3 * np.sin(g[:, :1]) * np.cos(g[:, 1:])
    return [np.concatenate([g[:, ::-1], z], axis=1) + 0.01 * rng.normal(size=(25, 3))]
