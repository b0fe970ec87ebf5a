import numpy as np

INPUTS = "mu:,log_sigma:,xi:,x:40"
PARAMS = "x"


def gev_logpdf(x, mu, log_sigma, xi, tol=1e-8):
    # generalized extreme value; the Gumbel limit for |xi| < tol
    z = (x - mu) / np.exp(log_sigma)
    small = np.abs(xi) < tol
    xs = np.where(small, 1.0, xi)
    t = 1.0 + xs * z
    tpos = np.where(t > 0, t, 1.0)
    gumbel = -log_sigma - z - np.exp(-z)
    gev = -log_sigma - (1.0 + 1.0 / xs) * np.log(tpos) - tpos ** (-1.0 / xs)
    return np.where(small, gumbel, np.where(t > 0, gev, -1e10))


def f(mu, log_sigma, xi, x):
    return -np.sum(gev_logpdf(x, mu, log_sigma, xi)) + 0.5 * xi**2


def POINT(rng):
    x = 10.0 + 2.0 * rng.gumbel(size=40)
    x[0] = 10.0  # z = 0 exactly
    return [np.array(10.0), np.log(np.array(2.0)), np.array(0.0), x]  # the Gumbel start
