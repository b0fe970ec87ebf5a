import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import cdist

INPUTS = "log_ell:3,log_sf:,log_sn:,X:10x3,y:10"
PARAMS = "X,y"


def f(log_ell, log_sf, log_sn, X, y):
    # a GP's negative log marginal likelihood, squared exponential with ARD lengths
    Xs = X / np.exp(log_ell)
    D2 = cdist(Xs, Xs, "sqeuclidean")
    K = np.exp(2 * log_sf) * np.exp(-0.5 * D2) + (np.exp(2 * log_sn) + 1e-8) * np.eye(len(y))
    c, low = cho_factor(K, lower=True)
    alpha = cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c))) + 0.5 * len(y) * np.log(2 * np.pi)


def POINT(rng):
    X = rng.uniform(size=(10, 3))
    X[9] = X[0]  # a repeated input: distance 0 off the diagonal
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=10)
    return [np.zeros(3), np.array(0.0), np.log(np.array(0.1)), X, y]
