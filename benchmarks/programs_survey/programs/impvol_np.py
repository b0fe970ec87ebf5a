import numpy as np
from scipy.special import ndtr

INPUTS = "price:10,K:10"
PARAMS = "K"
S, T, R = 100.0, 0.5, 0.01


def bs(sig, K):
    sq = sig * np.sqrt(T)
    d1 = (np.log(S / K) + (R + 0.5 * sig**2) * T) / sq
    return S * ndtr(d1) - K * np.exp(-R * T) * ndtr(d1 - sq), d1


def f(price, K):
    sig = np.full_like(price, 0.3)
    for _ in range(8):  # Newton on the Black-Scholes price
        c, d1 = bs(sig, K)
        vega = S * np.sqrt(T) * np.exp(-0.5 * d1**2) / np.sqrt(2 * np.pi)
        sig = sig - (c - price) / vega
    return sig


def POINT(rng):
    K = np.linspace(85, 115, 10)
    K[4] = S  # at the money
    sig = 0.2 + 0.05 * rng.random(10)
    return [bs(sig, K)[0], K]
