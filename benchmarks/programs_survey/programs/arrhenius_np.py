import numpy as np

INPUTS = "c:6,T:,A:8"
PARAMS = "A"
S = np.array(
    [
        [-1, 0, 0, 1, 0, 0, -1, 0],
        [-1, -1, 0, 0, 1, 0, 0, 0],
        [1, -1, -1, 0, 0, 1, 0, 0],
        [0, 1, 0, -1, 0, 0, 1, -1],
        [0, 0, 1, 0, -1, 0, 0, 1],
        [0, 0, 0, 0, 0, -1, 0, 0],
    ],
    dtype=float,
)
NU = np.maximum(-S, 0.0).T  # reaction orders (8, 6)
EA = np.array([50.0, 62.0, 45.0, 80.0, 70.0, 55.0, 90.0, 40.0]) * 1e3


def f(c, T, A):
    k = A * np.exp(-EA / (8.314 * T))
    r = k * np.exp(NU @ np.log(c))
    return S @ r


def POINT(rng):
    return [rng.uniform(0.1, 2.0, size=6), np.array(600.0), 10.0 ** rng.uniform(5, 9, size=8)]
