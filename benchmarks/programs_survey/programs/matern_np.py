import numpy as np

INPUTS = "hyp:3,X:20x2,y:20"
PARAMS = "X,y"


def f(hyp, X, y):
    ell, sf2, sn2 = np.exp(hyp[0]), np.exp(2 * hyp[1]), np.exp(2 * hyp[2])
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    r = np.sqrt(d2 + 1e-12) / ell
    s5 = np.sqrt(5.0) * r
    K = sf2 * (1 + s5 + 5.0 / 3.0 * r**2) * np.exp(-s5) + sn2 * np.eye(len(y))
    _sign, logdet = np.linalg.slogdet(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def POINT(rng):
    X = rng.random((20, 2))
    X[7] = X[3]  # a repeated input: r = 0 up to the jitter
    return [np.array([-1.2, 0.1, -1.6]), X, np.cos(4 * X[:, 1]) + 0.1 * rng.normal(size=20)]
