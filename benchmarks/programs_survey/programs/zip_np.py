import numpy as np
from scipy.special import gammaln

INPUTS = "w:3,g:,X:500x3,y:500"
PARAMS = "X,y"


def f(w, g, X, y):
    eta = X @ w
    lam = np.exp(eta)
    lpi = -np.logaddexp(0.0, -g)  # log sigmoid(g)
    l1pi = -np.logaddexp(0.0, g)
    ll0 = np.logaddexp(lpi, l1pi - lam)
    llp = l1pi + y * eta - lam - gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll0, llp))


def POINT(rng):
    X = 0.5 * rng.normal(size=(500, 3))
    y = rng.poisson(1.5, size=500) * (rng.uniform(size=500) > 0.3)
    return [0.2 * rng.normal(size=3), np.array(-0.5), X, y.astype(float)]
