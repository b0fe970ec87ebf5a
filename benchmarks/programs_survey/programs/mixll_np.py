import numpy as np
from scipy.special import logsumexp

INPUTS = "logits:3,mu:3,log_s:3,x:500"
PARAMS = "x"


def f(logits, mu, log_s, x):
    logw = logits - logsumexp(logits)
    z = (x[:, None] - mu[None, :]) / np.exp(log_s)[None, :]
    comp = -0.5 * z**2 - log_s[None, :] - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(logw[None, :] + comp, axis=1))


def POINT(rng):
    return [
        rng.normal(size=3),
        np.array([-2.0, 0.0, 2.0]),
        0.1 * rng.normal(size=3),
        np.concatenate([rng.normal(-2, 1, 200), rng.normal(2, 0.5, 300)]),
    ]
