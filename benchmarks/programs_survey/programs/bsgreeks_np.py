import numpy as np
from scipy.stats import norm

INPUTS = "S,sigma,r,K:5,T:5,w:5"
PARAMS = "K,T,w"


def call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)


def f(S, sigma, r, K, T, w):
    # a book of calls and puts (put-call parity); its Hessian is gamma, vanna, volga, ...
    c = call(S, K, T, r, sigma)
    p = c - S + K * np.exp(-r * T)
    return np.sum(np.abs(w) * np.where(w > 0, c, p))


def POINT(rng):
    K = np.array([80.0, 90.0, 100.0, 110.0, 120.0])
    T = np.array([0.25, 0.5, 1.0, 1.0, 2.0])
    return [np.array(100.0), np.array(0.2 + 0.01 * rng.random()), np.array(0.03), K, T,
            np.array([1.0, -1.0, 2.0, 1.0, -1.0])]  # fmt: skip
