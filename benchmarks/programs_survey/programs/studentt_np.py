import numpy as np
from scipy.special import gammaln

INPUTS = "theta:3,y:200"
PARAMS = "y"


def f(theta, y):
    mu, log_s, log_nu = theta[0], theta[1], theta[2]
    s, nu = np.exp(log_s), np.exp(log_nu)
    z = (y - mu) / s
    ll = (
        gammaln((nu + 1) / 2)
        - gammaln(nu / 2)
        - 0.5 * np.log(nu * np.pi)
        - log_s
        - (nu + 1) / 2 * np.log1p(z**2 / nu)
    )
    return -np.sum(ll)


def POINT(rng):
    return [np.array([0.1, -0.2, 1.3]) + 0.1 * rng.normal(size=3), rng.standard_t(4, size=200)]
