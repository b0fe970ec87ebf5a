import numpy as np

INPUTS = "w:3,b:,X:20x3,y:20"
PARAMS = "X,y"


def f(w, b, X, y, C=1.0, pos_weight=3.0):
    # an L2-regularised squared-hinge SVM with class weights from np.heaviside
    margin = y * (X @ w + b)
    cw = np.heaviside(y, 0.5) * (pos_weight - 1.0) + 1.0
    hinge = np.fmax(0.0, 1.0 - margin)
    return 0.5 * np.dot(w, w) + C * np.sum(cw * hinge**2)


def POINT(rng):
    X = rng.normal(size=(20, 3))
    y = np.where(rng.random(20) < 0.3, 1.0, -1.0)
    w = np.array([0.5, -0.25, 1.0])
    X[0] = np.array([2.0, 0.0, 0.0]) * y[0]  # margin exactly 1: the kink
    return [w, np.array(0.0), X, y]
