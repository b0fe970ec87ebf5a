import numpy as np
from scipy.special import gammainc, gammaln

INPUTS = "beta:2,x:15,y:15,cens:15"
PARAMS = "x,y,cens"


def f(beta, x, y, cens):
    # a Poisson regression with counts right-censored at y (the survey capped answers):
    # log P(Y >= y) = log P(y, mu), the regularised lower incomplete gamma
    mu = np.exp(beta[0] + beta[1] * x)
    exact = y * np.log(mu) - mu - gammaln(y + 1)
    tail = np.log(gammainc(np.maximum(y, 1.0), mu))
    return -np.sum(np.where(cens > 0, tail, exact))


def POINT(rng):
    x = np.linspace(-1, 1, 15)
    y = np.array([0, 1, 2, 1, 3, 2, 5, 4, 5, 5, 5, 6, 5, 5, 5.0])
    cens = (y >= 5).astype(float)
    return [np.array([0.8, 0.9]), x, y, cens]
