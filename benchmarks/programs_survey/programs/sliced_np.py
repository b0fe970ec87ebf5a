import numpy as np

INPUTS = "X:12x2,Y:12x2"
PARAMS = "Y"
THETA = np.linspace(0.0, np.pi, 6, endpoint=False)


def f(X, Y):
    # sliced Wasserstein-2: project on fixed directions, sort each column
    D = np.stack([np.cos(THETA), np.sin(THETA)])
    px = np.sort(X @ D, axis=0)
    py = np.sort(Y @ D, axis=0)
    return np.mean((px - py) ** 2)


def POINT(rng):
    return [rng.normal(size=(12, 2)), rng.normal(loc=1.0, size=(12, 2))]
