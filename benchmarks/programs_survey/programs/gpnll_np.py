import numpy as np
from scipy.linalg import cho_solve, cholesky

INPUTS = "hyp:3,X:30x2,y:30"
PARAMS = "X,y"


def f(hyp, X, y):
    ell, sf2, sn2 = np.exp(hyp[0]), np.exp(2 * hyp[1]), np.exp(2 * hyp[2])
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * d2 / ell**2) + sn2 * np.eye(X.shape[0])
    L = cholesky(K, lower=True)
    alpha = cho_solve((L, True), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * X.shape[0] * np.log(2 * np.pi)


def POINT(rng):
    X = rng.random((30, 2))
    return [
        np.array([-1.0, 0.0, -1.5]) + 0.1 * rng.normal(size=3),
        X,
        np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=30),
    ]
