import numpy as np

INPUTS = "w:10,X:3000x10,y:3000"
PARAMS = "X,y"
ALPHA = 0.25
GAMMA = 2.0


def f(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    pt = np.where(y == 1, p, 1 - p)
    at = np.where(y == 1, ALPHA, 1 - ALPHA)
    return -np.mean(at * (1 - pt) ** GAMMA * np.log(np.clip(pt, 1e-12, 1.0)))


def POINT(rng):
    X = rng.normal(size=(3000, 10))
    return [0.3 * rng.normal(size=10), X, (rng.uniform(size=3000) < 0.3).astype(float)]
