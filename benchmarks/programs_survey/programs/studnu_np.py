import numpy as np
from scipy.special import gammaln

INPUTS = "beta:3,log_nu:,log_s:,X:15x3,y:15"
PARAMS = "X,y"


def f(beta, log_nu, log_s, X, y):
    # Student-t regression, its degrees of freedom learned
    nu, s = np.exp(log_nu), np.exp(log_s)
    r = (y - X @ beta) / s
    ll = (
        gammaln((nu + 1) / 2)
        - gammaln(nu / 2)
        - 0.5 * np.log(nu * np.pi)
        - np.log(s)
        - (nu + 1) / 2 * np.log1p(r**2 / nu)
    )
    return -np.sum(ll)


def POINT(rng):
    X = rng.normal(size=(15, 3))
    return [
        rng.normal(size=3),
        np.array(1.2),
        np.array(-0.3),
        X,
        X @ [1.0, -2.0, 0.5] + rng.standard_t(3, size=15),
    ]
