import numpy as np
from scipy.special import gammaln

INPUTS = "a:5,P:200x5"
PARAMS = "P"


def f(a, P):
    al = np.exp(a)
    n = P.shape[0]
    return -(n * (gammaln(np.sum(al)) - np.sum(gammaln(al))) + np.sum((al - 1.0) * np.log(P)))


def POINT(rng):
    return [0.2 * rng.normal(size=5), rng.dirichlet(np.ones(5) * 2.0, size=200)]
