import numpy as np

INPUTS = "R:6x3"
K_PHI = np.array([0.2, -0.1, 0.3])  # cosine series of a torsion potential


def dihedral(p0, p1, p2, p3):
    b0, b1, b2 = p0 - p1, p2 - p1, p3 - p2
    b1n = b1 / np.linalg.norm(b1)
    v = b0 - (b0 @ b1n) * b1n
    w = b2 - (b2 @ b1n) * b1n
    x = v @ w
    y = np.cross(b1n, v) @ w
    return np.arctan2(y, x)


def angle(a, b, c):
    u, v = a - b, c - b
    cos = u @ v / (np.linalg.norm(u) * np.linalg.norm(v))
    return np.arccos(np.clip(cos, -1.0, 1.0))


def f(R, theta0=1.9):
    e = 0.0
    for i in range(3):
        phi = dihedral(R[i], R[i + 1], R[i + 2], R[i + 3])
        e = e + np.sum(K_PHI * (1 + np.cos(np.arange(1, 4) * phi)))
    for i in range(1, 4):  # bond angles, harmonic
        e = e + 0.5 * (angle(R[i], R[i + 1], R[i + 2]) - theta0) ** 2
    return e


def POINT(rng):
    R = np.array(
        [
            [0.0, 0, 0],
            [1.0, 0, 0],
            [1.5, 0.9, 0],
            [2.5, 0.9, 0.2],
            [3.0, 1.8, -0.3],
            [4.0, 1.8, 0.5],
        ]
    )
    return [R + 0.01 * rng.normal(size=R.shape)]
