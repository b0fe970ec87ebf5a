import numpy as np
import scipy.linalg

INPUTS = "mu:3,Lraw:3x3,X:25x3"


def f(mu, Lraw, X):
    L = np.tril(Lraw, -1) + np.diag(np.exp(np.diag(Lraw)))
    S = L @ L.T + 1e-6 * np.eye(3)
    C = scipy.linalg.cholesky(S, lower=True)
    Z = scipy.linalg.solve_triangular(C, (X - mu).T, lower=True)
    d2 = np.sum(Z**2, axis=0)
    logdet = 2.0 * np.sum(np.log(np.diag(C)))
    return d2, logdet


def POINT(rng):
    X = rng.normal(size=(25, 3))
    mu = rng.normal(size=3)
    X[0] = mu  # distance exactly zero
    return [mu, 0.3 * rng.normal(size=(3, 3)), X]
