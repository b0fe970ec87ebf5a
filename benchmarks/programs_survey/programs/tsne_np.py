import numpy as np

INPUTS = "Y:30x2,P:30x30"
PARAMS = "P"


def f(Y, P):
    d2 = np.sum((Y[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    num = 1.0 / (1.0 + d2)
    num = num * (1.0 - np.eye(30))
    Q = num / np.sum(num)
    return np.sum(P * np.log(np.maximum(P, 1e-12) / np.maximum(Q, 1e-12)))


def POINT(rng):
    X = rng.normal(size=(30, 5))
    D = np.sum((X[:, None] - X[None]) ** 2, -1)
    W = np.exp(-D / 4.0) * (1 - np.eye(30))
    P = W / W.sum(1, keepdims=True)
    return [rng.normal(size=(30, 2)), (P + P.T) / 60.0]
