import numpy as np

INPUTS = "y:5,mu0:5"
PARAMS = "mu0"
# species H2, O2, H2O, OH, H; elements H, O
A = np.array([[2.0, 0.0, 2.0, 1.0, 1.0], [0.0, 2.0, 1.0, 1.0, 0.0]])
B = np.array([2.0, 1.0])


def f(y, mu0, P=1.0, rho=50.0):
    n = np.exp(y)  # moles, kept positive by the log parametrisation
    ntot = np.sum(n)
    G = np.sum(n * (mu0 + np.log(n / ntot) + np.log(P)))
    r = A @ n - B
    return G + 0.5 * rho * r @ r


def POINT(rng):
    return [np.log(np.array([0.3, 0.1, 0.7, 0.05, 0.02])), np.array([0.0, 0.0, -5.0, 1.0, 2.0])]
