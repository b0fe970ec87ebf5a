import numpy as np

INPUTS = "M:50,e:"


def f(M, e):
    E = M + e * np.sin(M)
    for _ in range(6):  # Newton on E - e sin E = M, unrolled
        E = E - (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
    nu = 2.0 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
    return nu


def POINT(rng):
    M = rng.uniform(0.0, 2 * np.pi, size=50)
    M[0] = 0.0
    return [M, np.array(0.3)]
