import numpy as np
from scipy.special import ndtr

INPUTS = "w:3,mu:3,log_s:3,alpha:"
PARAMS = "alpha"


def mixture_cdf(q, p, mu, s):
    return np.sum(p * ndtr((q - mu) / s))


def f(w, mu, log_s, alpha, iters=60):
    # the alpha-quantile (value at risk) of a normal mixture: bisection, then one Newton
    # step, which carries the implicit derivative
    p = np.exp(w - np.max(w))
    p = p / np.sum(p)
    s = np.exp(log_s)
    lo, hi = -50.0, 50.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = mixture_cdf(mid, p, mu, s) < alpha
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    q = 0.5 * (lo + hi)
    pdf = np.sum(p * np.exp(-0.5 * ((q - mu) / s) ** 2) / (s * np.sqrt(2 * np.pi)))
    return q - (mixture_cdf(q, p, mu, s) - alpha) / pdf


def POINT(rng):
    return [np.zeros(3), np.array([-1.0, 0.0, 2.0]), np.array([0.0, -0.5, 0.3]), np.array(0.05)]
