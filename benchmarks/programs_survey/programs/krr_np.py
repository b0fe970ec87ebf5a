import numpy as np

INPUTS = "al:40,ll:,X:40x2,y:40"
PARAMS = "X,y"


def f(al, ll, X, y):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / np.exp(2 * ll))
    Ka = K @ al
    return 0.5 * np.sum((y - Ka) ** 2) + 0.05 * al @ Ka


def POINT(rng):
    X = rng.uniform(-2, 2, size=(40, 2))
    return [0.1 * rng.normal(size=40), np.array(-0.3), X, np.sin(X[:, 0]) * X[:, 1]]
