import numpy as np

INPUTS = "A:3x4x5,B:4x5x2,a:2x2,b:3x3"


def f(A, B, a, b):
    C = np.tensordot(A, B, axes=([1, 2], [0, 1]))  # 3x2
    K = np.kron(a, b)  # 6x6
    G = np.tensordot(C, C, axes=0).sum(axis=(1, 3))  # 3x3 from the outer product
    T = np.tensordot(A, A, axes=([0, 2], [0, 2]))  # 4x4
    return np.concatenate([K @ C.T.reshape(-1), G.ravel(), np.trace(T, offset=1)[None]])
