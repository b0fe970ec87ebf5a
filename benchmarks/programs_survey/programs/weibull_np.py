import numpy as np

INPUTS = "lk:,ll:,t:500"
PARAMS = "t"


def f(lk, ll, t):
    k, lam = np.exp(lk), np.exp(ll)
    z = t / lam
    return -np.sum(np.log(k) - np.log(lam) + (k - 1.0) * np.log(z) - z**k)


def POINT(rng):
    return [np.array(0.3), np.array(0.1), rng.weibull(1.5, size=500) * 1.2]
