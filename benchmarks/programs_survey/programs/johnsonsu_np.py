import numpy as np

INPUTS = "gamma:,log_delta:,xi:,log_lam:,x:30"
PARAMS = "x"


def f(gamma, log_delta, xi, log_lam, x):
    # Johnson's S_U distribution (Johnson 1949) for fat-tailed returns: negative log-lik.
    delta, lam = np.exp(log_delta), np.exp(log_lam)
    u = (x - xi) / lam
    z = gamma + delta * np.arcsinh(u)
    logpdf = (
        np.log(delta) - np.log(lam) - 0.5 * np.log(2 * np.pi) - 0.5 * np.log1p(u**2) - 0.5 * z**2
    )
    return -np.sum(logpdf)


def POINT(rng):
    x = 0.01 * rng.standard_t(4, size=30)
    x[0] = 0.0  # u = 0 exactly at xi = 0
    return [np.array(0.1), np.array(0.3), np.array(0.0), np.array(np.log(0.01)), x]
