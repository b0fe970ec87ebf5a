import numpy as np

INPUTS = "V:3x2,P:16x2"
PARAMS = "P"


def f(V, P):
    """Barycentric coordinates of sample points in a triangle (by signed areas), and the
    interpolated attribute of a fragment shader (colours at the vertices)."""
    a, b, c = V[0], V[1], V[2]

    def cross2(u, v):
        return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]

    area = cross2(b - a, c - a)
    l0 = cross2(b - P, c - P) / area
    l1 = cross2(c - P, a - P) / area
    l2 = 1.0 - l0 - l1
    col = np.array([[1.0, 0.2, 0.1], [0.1, 0.9, 0.3], [0.2, 0.3, 1.0]])
    lam = np.stack([l0, l1, l2], axis=1)
    return lam @ col


def POINT(rng):
    return [np.array([[0.0, 0.0], [1.0, 0.1], [0.3, 0.9]]) + 0.05 * rng.normal(size=(3, 2)),
            rng.uniform(0.1, 0.5, size=(16, 2))]  # fmt: skip
