import numpy as np
from scipy.special import expit, logsumexp

INPUTS = "a:4,m:5,log_s:5,x:30"
PARAMS = "x"


def stick_breaking(a):
    v = expit(a)  # K-1 fractions
    rest = np.cumprod(1.0 - v)
    return np.concatenate([v, [1.0]]) * np.concatenate([[1.0], rest])


def f(a, m, log_s, x):
    w = stick_breaking(a)
    s = np.exp(log_s)
    z = (x[:, None] - m[None, :]) / s
    comp = np.log(w) - 0.5 * z**2 - log_s - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(comp, axis=1))


def POINT(rng):
    x = np.concatenate([rng.normal(-2, 0.5, 12), rng.normal(1, 0.7, 18)])
    return [np.array([0.0, 0.5, -0.5, 1.0]), np.linspace(-2, 2, 5), np.full(5, -0.3), x]
