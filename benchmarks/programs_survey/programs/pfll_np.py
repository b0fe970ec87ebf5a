import numpy as np
from scipy.special import logsumexp

INPUTS = "th:2,eps:25x40,y:25"
PARAMS = "eps,y"


def f(th, eps, y):
    phi, sig = np.tanh(th[0]), np.exp(th[1])
    x = np.zeros(eps.shape[1])
    logw = np.zeros(eps.shape[1])
    ll = 0.0
    for t in range(len(y)):
        x = phi * x + sig * eps[t]
        logw = logw - 0.5 * (y[t] - x) ** 2 / 0.3 - 0.5 * np.log(2 * np.pi * 0.3)
        c = logsumexp(logw)
        ll = ll + c - np.log(eps.shape[1])
        logw = logw - c + np.log(eps.shape[1])
    return -ll


def POINT(rng):
    x, y = 0.0, np.zeros(25)
    for t in range(25):
        x = 0.8 * x + 0.5 * rng.normal()
        y[t] = x + 0.5 * rng.normal()
    return [np.array([1.0, np.log(0.5)]), rng.normal(size=(25, 40)), y]
