import numpy as np
from scipy.special import ndtr

INPUTS = "F:,sigma:,K:7,T:7"
PARAMS = "K,T"


def black76(F, K, T, sigma, r=0.02, call=True):
    # Black (1976): European options on a futures price; intrinsic value at expiry
    df = np.exp(-r * T)
    srt = sigma * np.sqrt(T)
    live = srt > 0
    s = np.where(live, srt, 1.0)
    d1 = (np.log(F / K) + 0.5 * s**2) / s
    d2 = d1 - s
    sign = 1.0 if call else -1.0
    price = sign * df * (F * ndtr(sign * d1) - K * ndtr(sign * d2))
    return np.where(live, price, df * np.maximum(sign * (F - K), 0.0))


def f(F, sigma, K, T):
    return black76(F, K, T, sigma) - black76(F, K, T, sigma, call=False)  # call - put


def POINT(rng):
    K = np.array([80.0, 90.0, 100.0, 100.0, 110.0, 120.0, 100.0])
    T = np.array([0.5, 1.0, 1.0, 0.0, 2.0, 0.25, 0.1])  # an expired at-the-money option
    return [np.array(100.0), np.array(0.25), K, T]
