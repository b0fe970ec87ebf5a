import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import ndtri

INPUTS = "rho:3,u:20x3"
PARAMS = "u"


def f(rho, u):
    r = np.tanh(rho)
    R = np.array([[1.0, r[0], r[1]], [r[0], 1.0, r[2]], [r[1], r[2], 1.0]])
    L = np.linalg.cholesky(R)
    z = ndtri(u)  # normal scores of the uniform margins
    w = solve_triangular(L, z.T, lower=True)
    n = u.shape[0]
    return n * np.sum(np.log(np.diag(L))) + 0.5 * np.sum(w**2) - 0.5 * np.sum(z**2)


def POINT(rng):
    u = rng.uniform(0.02, 0.98, size=(20, 3))
    u[0] = 0.5  # normal score exactly 0
    return [np.array([0.3, -0.2, 0.1]), u]
