import numpy as np
from scipy.stats import genpareto

INPUTS = "log_sigma:,xi:,y:30"
PARAMS = "y"


def f(log_sigma, xi, y, u=5.0):
    # peaks over threshold: exceedances y - u of a generalized Pareto law
    exc = y - u
    return -np.sum(genpareto.logpdf(exc, xi, scale=np.exp(log_sigma)))


def POINT(rng):
    y = 5.0 + rng.pareto(4.0, size=30)
    y[0] = 5.0  # an exceedance exactly 0
    return [np.array(0.1), np.array(0.2), y]
