import numpy as np

INPUTS = "A:8x3,b:8"


def f(A, b):
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    r = b - A @ x
    s2 = r @ r / (A.shape[0] - A.shape[1])
    se = np.sqrt(s2 * np.diag(np.linalg.inv(A.T @ A)))
    return x, se
