import numpy as np
from scipy.special import multigammaln

INPUTS = "theta:6,nu:,X:3x3"
PARAMS = "X"


def f(theta, nu, X):
    # Wishart log density of X with scale S = L Lᵀ, L's lower triangle from theta (log diagonal)
    p = X.shape[0]
    L = np.zeros((p, p))
    L[np.tril_indices(p)] = theta
    L[np.diag_indices(p)] = np.exp(np.diag(L))
    S = L @ L.T
    _, logdet_S = np.linalg.slogdet(S)
    _, logdet_X = np.linalg.slogdet(X)
    tr = np.trace(np.linalg.solve(S, X))
    return -(
        0.5 * (nu - p - 1) * logdet_X - 0.5 * tr - 0.5 * nu * p * np.log(2.0)
        - 0.5 * nu * logdet_S - multigammaln(0.5 * nu, p)
    )  # fmt: skip


def POINT(rng):
    M = rng.normal(size=(3, 8))
    return [np.array([0.1, 0.2, -0.1, 0.3, 0.0, 0.05]), np.array(8.0), M @ M.T]
