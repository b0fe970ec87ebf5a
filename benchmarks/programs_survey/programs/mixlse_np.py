import numpy as np

INPUTS = "mu:3,log_sd:3,logit:3,x:30"
PARAMS = "x"


def f(mu, log_sd, logit, x):
    # a 1-D Gaussian mixture's negative log-likelihood by np.logaddexp.reduce
    sd = np.exp(log_sd)
    logw = logit - np.logaddexp.reduce(logit)
    comp = -0.5 * ((x[:, None] - mu) / sd) ** 2 - log_sd - 0.5 * np.log(2 * np.pi)
    return -np.sum(np.logaddexp.reduce(comp + logw, axis=1))


def POINT(rng):
    return [np.array([-1.0, 0.0, 2.0]), np.zeros(3), np.zeros(3), rng.normal(size=30)]
