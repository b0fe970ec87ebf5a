import numpy as np

INPUTS = "z:4,lam:,R:24x4"


def f(z, lam, R, rf=0.001):
    w = np.exp(z) / np.sum(np.exp(z))  # long-only weights by softmax
    S = (1 - lam) * np.cov(R, rowvar=False) + lam * np.diag(np.var(R, axis=0, ddof=1))
    port = R @ w
    sharpe = (np.mean(port) - rf) / np.std(port, ddof=1)
    return -sharpe + 5.0 * w @ S @ w


def POINT(rng):
    R = 0.01 + 0.05 * rng.normal(size=(24, 4))
    return [np.zeros(4), np.array(0.2), R]
