import numpy as np

INPUTS = "log_h:,x:12x2"


def f(log_h, x):
    # leave-one-out log-likelihood of a Gaussian kernel density estimate
    h = np.exp(log_h)
    n, d = x.shape
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / h**2) / (2 * np.pi * h**2) ** (d / 2)
    np.fill_diagonal(K, 0.0)
    return -np.sum(np.log(K.sum(axis=1) / (n - 1)))


def POINT(rng):
    x = rng.normal(size=(12, 2))
    x[5] = x[3]  # a duplicated sample: a distance exactly 0 off the diagonal
    return [np.array(-0.5), x]
