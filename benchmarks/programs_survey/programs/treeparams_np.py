import numpy as np

INPUTS = "W1:4x8,b1:8,W2:8x2,b2:2,X:16x4,Y:16x2"
PARAMS = "X,Y"


def forward(params, X):
    h = np.tanh(X @ params["l1"]["W"] + params["l1"]["b"])
    return h @ params["l2"]["W"] + params["l2"]["b"]


def f(W1, b1, W2, b2, X, Y, wd=1e-3):
    params = {"l1": {"W": W1, "b": b1}, "l2": {"W": W2, "b": b2}}
    l2 = sum(np.sum(v**2) for layer in params.values() for v in layer.values())
    return np.mean((forward(params, X) - Y) ** 2) + wd * l2


def POINT(rng):
    X = rng.normal(size=(16, 4))
    return [0.5 * rng.normal(size=(4, 8)), np.zeros(8), 0.5 * rng.normal(size=(8, 2)),
            np.zeros(2), X, np.stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2]], 1)]  # fmt: skip
