import numpy as np

INPUTS = "A:5x4"


def f(A):
    r1 = np.linalg.norm(A, ord=1, axis=1)
    c2 = np.linalg.norm(A, axis=0)
    ri = np.linalg.norm(A, ord=np.inf, axis=1)
    fro = np.linalg.norm(A, "fro")
    m1 = np.linalg.norm(A, 1)  # largest column sum
    nuc = np.linalg.norm(A, "nuc")
    s2 = np.linalg.norm(A, 2)
    return r1, c2, ri, fro, m1 + nuc + s2


def POINT(rng):
    A = rng.normal(size=(5, 4))
    A[0] = [1.0, -1.0, 0.5, 0.2]  # a tie of |max| in the row's inf-norm
    A[1, 2] = 0.0  # abs at zero
    return [A]
