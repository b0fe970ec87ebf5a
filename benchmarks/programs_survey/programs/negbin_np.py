import numpy as np
from scipy.special import gammaln

INPUTS = "w:4,log_r:,X:300x4,k:300"
PARAMS = "X,k"


def f(w, log_r, X, k):
    r = np.exp(log_r)
    mu = np.exp(X @ w)
    ll = (
        gammaln(k + r)
        - gammaln(r)
        - gammaln(k + 1)
        + r * np.log(r / (r + mu))
        + k * np.log(mu / (r + mu))
    )
    return -np.mean(ll)


def POINT(rng):
    X = 0.3 * rng.normal(size=(300, 4))
    return [0.2 * rng.normal(size=4), np.array(0.5), X, rng.poisson(2.0, size=300).astype(float)]
