import numpy as np

INPUTS = "log_a:,log_b:,x:25,u:8"
PARAMS = "x,u"


def f(log_a, log_b, x, u):
    # Kumaraswamy: the log-likelihood of data and a reparameterised sample's second moment
    a, b = np.exp(log_a), np.exp(log_b)
    logpdf = np.log(a) + np.log(b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a))
    sample = (1 - (1 - u) ** (1 / b)) ** (1 / a)
    return -np.mean(logpdf) + np.mean(sample**2)


def POINT(rng):
    u = rng.uniform(size=8)
    u[0] = 1.0  # (1 - u) ** (1 / b) at 0
    return [np.array(0.5), np.array(0.3), rng.beta(2.0, 3.0, size=25), u]
