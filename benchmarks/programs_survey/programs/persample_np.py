import numpy as np

INPUTS = "W:4x6,b:4,X:20x6,Y:20x4"
PARAMS = "X,Y"


def f(W, b, X, Y, margin=1.0):
    S = X @ W.T + b  # 20x4 scores
    correct = np.sum(S * Y, axis=1, keepdims=True)
    hinge = np.maximum(0.0, margin + S - correct) * (1.0 - Y)
    return np.mean(np.sum(hinge, axis=1)) + 0.01 * np.sum(W**2)


def POINT(rng):
    Y = np.eye(4)[rng.integers(0, 4, 20)]
    return [0.3 * rng.normal(size=(4, 6)), np.zeros(4), rng.normal(size=(20, 6)), Y]
