import numpy as np
from scipy.stats import multivariate_normal

INPUTS = "mu:3,tri:6,X:10x3"
PARAMS = "X"


def f(mu, tri, X):
    # a Gaussian's log-likelihood, its covariance L L^T + 0.1 I from a packed triangle
    L = np.zeros((3, 3))
    L[np.tril_indices(3)] = tri
    cov = L @ L.T + 0.1 * np.eye(3)
    return np.sum(multivariate_normal.logpdf(X, mean=mu, cov=cov))


def POINT(rng):
    return [rng.normal(size=3), np.array([1.0, 0.2, 0.9, -0.1, 0.3, 1.1]), rng.normal(size=(10, 3))]
