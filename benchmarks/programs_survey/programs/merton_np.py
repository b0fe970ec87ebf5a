import math

import numpy as np
from scipy.special import ndtr

INPUTS = "S:,sigma:,lam:,muj:,dj:,K:5,T:"
PARAMS = "K,T"


def bs_call(S, K, T, r, v):
    d1 = (np.log(S / K) + (r + 0.5 * v**2) * T) / (v * np.sqrt(T))
    return S * ndtr(d1) - K * np.exp(-r * T) * ndtr(d1 - v * np.sqrt(T))


def f(S, sigma, lam, muj, dj, K, T, r=0.03, nterms=20):
    # Merton (1976): jump diffusion as a Poisson mixture of Black-Scholes prices
    k = np.exp(muj + 0.5 * dj**2) - 1
    lp = lam * (1 + k)
    price = 0.0
    for n in range(nterms):
        vn = np.sqrt(sigma**2 + n * dj**2 / T)
        rn = r - lam * k + n * np.log(1 + k) / T
        weight = np.exp(-lp * T + n * np.log(lp * T) - math.lgamma(n + 1))
        price = price + weight * bs_call(S, K, T, rn, vn)
    return price


def POINT(rng):
    return [np.array(100.0), np.array(0.2), np.array(0.5), np.array(0.0), np.array(0.15),
            np.array([80.0, 95.0, 100.0, 105.0, 130.0]), np.array(1.0)]  # fmt: skip  # muj = 0
