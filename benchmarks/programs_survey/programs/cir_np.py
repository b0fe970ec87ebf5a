from dataclasses import dataclass

import numpy as np

INPUTS = "theta:3,r0:,T:8,y_obs:8"
PARAMS = "T,y_obs"


@dataclass(frozen=True)
class Weights:
    fit: float = 1.0
    feller: float = 10.0


def cir_yield(kappa, mu, sigma, r0, T):
    # Cox-Ingersoll-Ross zero-coupon yields: P = A exp(-B r0), y = -log(P)/T
    g = np.sqrt(kappa**2 + 2 * sigma**2)
    e = np.expm1(g * T)
    den = (g + kappa) * e + 2 * g
    B = 2 * e / den
    logA = (2 * kappa * mu / sigma**2) * (np.log(2 * g) + 0.5 * (kappa + g) * T - np.log(den))
    logP = logA - B * r0
    Ts = np.where(T > 0, T, 1.0)
    return np.where(T > 0, -logP / Ts, r0)  # the short rate at T = 0


def f(theta, r0, T, y_obs, w=Weights()):
    kappa, mu, sigma = np.exp(theta)
    y = cir_yield(kappa, mu, sigma, r0, T)
    feller = np.maximum(sigma**2 - 2 * kappa * mu, 0.0)
    return w.fit * np.sum((y - y_obs) ** 2) * 1e4 + w.feller * feller**2


def POINT(rng):
    T = np.array([0.0, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
    y = 0.03 + 0.01 * (1 - np.exp(-T / 3))
    return [np.log(np.array([0.5, 0.04, 0.1])), np.array(0.02), T, y]
