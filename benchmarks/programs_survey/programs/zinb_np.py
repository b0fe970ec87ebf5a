import numpy as np
from scipy.special import expit, gammaln

INPUTS = "beta:2,gamma:,log_alpha:,X:25x2,y:25,expo:25"
PARAMS = "X,y,expo"


def f(beta, gamma, log_alpha, X, y, expo):
    # zero-inflated negative binomial with an exposure offset
    mu = np.exp(X @ beta + np.log(expo))
    pi = expit(gamma)
    r = np.exp(-log_alpha)  # size = 1 / dispersion
    log_nb = (
        gammaln(y + r) - gammaln(r) - gammaln(y + 1)
        + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu))
    )  # fmt: skip
    p0 = (r / (r + mu)) ** r
    ll = np.where(y == 0, np.log(pi + (1 - pi) * p0), np.log1p(-pi) + log_nb)
    return -np.sum(ll)


def POINT(rng):
    X = np.column_stack([np.ones(25), rng.normal(size=25)])
    expo = rng.uniform(0.5, 2.0, 25)
    y = np.where(rng.random(25) < 0.3, 0.0, rng.poisson(2.0 * expo))
    return [np.array([0.5, 0.3]), np.array(-1.0), np.array(-0.5), X, y, expo]
