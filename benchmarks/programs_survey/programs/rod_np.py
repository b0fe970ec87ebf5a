import numpy as np

INPUTS = "p:12x2"
KS, KB, L0 = 50.0, 2.0, 0.5


def f(p):
    e = np.diff(p, axis=0)
    length = np.linalg.norm(e, axis=1)
    stretch = 0.5 * KS * np.sum((length - L0) ** 2)
    cross = e[:-1, 0] * e[1:, 1] - e[:-1, 1] * e[1:, 0]
    dot = np.sum(e[:-1] * e[1:], axis=1)
    theta = np.arctan2(cross, dot)  # turning angle at each inner node
    kappa = 2 * theta / (length[:-1] + length[1:])
    return stretch + 0.5 * KB * np.sum(kappa**2)


def POINT(rng):
    s = np.linspace(0, 5.5, 12)
    p = np.stack([s, 0.3 * np.sin(s)], axis=1) + 0.02 * rng.normal(size=(12, 2))
    p[:3] = [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0]]  # a straight triple: theta exactly 0
    return [p]
