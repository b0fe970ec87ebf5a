import numpy as np

INPUTS = "A:6x6"


def f(A, iters=30):
    S = A + A.T + 6.0 * np.eye(6)
    v = np.ones(6) / np.sqrt(6.0)
    for _ in range(iters):
        w = S @ v
        v = w / np.linalg.norm(w)
    lam = v @ S @ v / (v @ v)  # Rayleigh quotient
    return lam, v
