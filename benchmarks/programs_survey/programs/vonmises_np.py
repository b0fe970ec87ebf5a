import numpy as np
from scipy.special import i0e

INPUTS = "mu:,lk:,th:300"
PARAMS = "th"


def f(mu, lk, th):
    k = np.exp(lk)
    logi0 = np.log(i0e(k)) + k
    return -np.sum(k * np.cos(th - mu) - np.log(2 * np.pi) - logi0)


def POINT(rng):
    return [np.array(0.4), np.array(1.2), rng.vonmises(0.5, 3.0, size=300)]
