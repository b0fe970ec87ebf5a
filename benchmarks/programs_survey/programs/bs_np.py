import numpy as np
from scipy.special import ndtr

INPUTS = "S:100,sig:100,K:100,T:100"
PARAMS = "K,T"
R = 0.02


def f(S, sig, K, T):
    sq = sig * np.sqrt(T)
    d1 = (np.log(S / K) + (R + 0.5 * sig**2) * T) / sq
    d2 = d1 - sq
    return S * ndtr(d1) - K * np.exp(-R * T) * ndtr(d2)


def POINT(rng):
    return [
        100 + 10 * rng.normal(size=100),
        0.2 + 0.05 * rng.random(100),
        np.full(100, 100.0),
        0.1 + rng.random(100),
    ]
