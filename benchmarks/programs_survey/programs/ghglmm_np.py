import numpy as np
from scipy.special import logsumexp

INPUTS = "beta:3,log_tau:,X:6x5x3,y:6x5"
PARAMS = "X,y"
NODES, WEIGHTS = np.polynomial.hermite.hermgauss(12)


def f(beta, log_tau, X, y):
    # a random-intercept logistic GLMM: each group's likelihood by Gauss-Hermite quadrature
    b = np.sqrt(2.0) * np.exp(log_tau) * NODES  # (Q,)
    eta = (X @ beta)[:, :, None] + b  # (G, n, Q)
    ll = y[..., None] * eta - np.logaddexp(0.0, eta)
    per_group = logsumexp(ll.sum(axis=1) + np.log(WEIGHTS), axis=1) - 0.5 * np.log(np.pi)
    return -np.sum(per_group)


def POINT(rng):
    X = rng.normal(size=(6, 5, 3))
    X[..., 0] = 1.0
    y = (rng.uniform(size=(6, 5)) < 0.5).astype(float)
    y[0] = 0.0  # a group without events
    return [np.array([0.2, -0.5, 0.3]), np.array(0.0), X, y]
