import numpy as np
from scipy.special import erfc

INPUTS = "mu:,log_sigma:,log_lam:,rt:25"
PARAMS = "rt"


def f(mu, log_sigma, log_lam, rt):
    # ex-Gaussian response times: N(mu, sigma^2) + Exp(lam), the log density with erfc
    s, lam = np.exp(log_sigma), np.exp(log_lam)
    z = (mu + lam * s**2 - rt) / (np.sqrt(2.0) * s)
    logpdf = np.log(lam / 2) + lam / 2 * (2 * mu + lam * s**2 - 2 * rt) + np.log(erfc(z))
    return -np.sum(logpdf)


def POINT(rng):
    rt = 0.4 + 0.05 * rng.normal(size=25) + rng.exponential(0.2, 25)
    return [np.array(0.45), np.array(np.log(0.05)), np.array(np.log(5.0)), rt]
