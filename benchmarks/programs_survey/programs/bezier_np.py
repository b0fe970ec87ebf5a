import numpy as np

INPUTS = "P:4x2"
NODES, WEIGHTS = np.polynomial.legendre.leggauss(8)


def f(P):
    # arc length of a cubic Bézier curve by 8-point Gauss-Legendre on [0, 1]
    t = 0.5 * (NODES + 1.0)
    dB = (
        3 * (1 - t)[:, None] ** 2 * (P[1] - P[0])
        + 6 * ((1 - t) * t)[:, None] * (P[2] - P[1])
        + 3 * t[:, None] ** 2 * (P[3] - P[2])
    )
    speed = np.linalg.norm(dB, axis=1)
    return 0.5 * WEIGHTS @ speed


def POINT(rng):
    return [
        np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 2.0], [4.0, 0.0]]) + 0.05 * rng.normal(size=(4, 2))
    ]
