import numpy as np

INPUTS = "w:4,A:12x4,b:12"
PARAMS = "A,b"


def f(w, A, b):
    r = A @ w - b
    d = 0.5
    loss = np.where(np.abs(r) <= d, 0.5 * r**2, d * (np.abs(r) - 0.5 * d))
    return np.sum(loss) + 0.01 * np.linalg.norm(w) ** 2
