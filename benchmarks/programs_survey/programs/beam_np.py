import numpy as np

INPUTS = "EI:8,q:"
NE = 8
LE = 1.0 / NE
KE = np.array([[12, 6 * LE, -12, 6 * LE],
               [6 * LE, 4 * LE**2, -6 * LE, 2 * LE**2],
               [-12, -6 * LE, 12, -6 * LE],
               [6 * LE, 2 * LE**2, -6 * LE, 4 * LE**2]]) / LE**3  # fmt: skip
FE = np.array([LE / 2, LE**2 / 12, LE / 2, -(LE**2) / 12])


def f(EI, q):
    n = 2 * (NE + 1)
    K = np.zeros((n, n))
    F = np.zeros(n)
    for e in range(NE):
        d = slice(2 * e, 2 * e + 4)
        K[d, d] += EI[e] * KE
        F[d] += q * FE
    u = np.linalg.solve(K[2:, 2:], F[2:])  # clamped at x = 0
    return u[-2], u[-1], np.max(np.abs(u[::2]))


def POINT(rng):
    return [1.0 + 0.3 * rng.uniform(size=8), np.array(-2.0)]
