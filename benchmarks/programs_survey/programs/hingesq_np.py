import numpy as np

INPUTS = "w:4,X:20x4,y:20"
PARAMS = "X,y"


def f(w, X, y):
    # an L2-SVM: squared hinge, its Hessian piecewise constant
    margin = 1.0 - y * (X @ w)
    return np.sum(np.maximum(margin, 0.0) ** 2) + 0.5 * w @ w


def POINT(rng):
    X = rng.normal(size=(20, 4))
    w = rng.normal(size=4)
    y = np.sign(rng.normal(size=20))
    X[0] = y[0] * X[0] / (X[0] @ w)  # margin exactly 0 at the first sample
    return [w, X, y]
