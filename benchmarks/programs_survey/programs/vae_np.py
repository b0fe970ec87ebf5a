import numpy as np

INPUTS = "We:4x8,Wd:8x2,x:8,eps:2"
PARAMS = "x,eps"


def f(We, Wd, x, eps):
    h = We @ x
    mu, logvar = h[:2], h[2:]
    z = mu + np.exp(0.5 * logvar) * eps
    xr = Wd @ z
    rec = -0.5 * np.sum((x - xr) ** 2)
    kl = -0.5 * np.sum(1 + logvar - mu**2 - np.exp(logvar))
    return -(rec - kl)


def POINT(rng):
    return [
        0.3 * rng.normal(size=(4, 8)),
        0.3 * rng.normal(size=(8, 2)),
        rng.normal(size=8),
        rng.normal(size=2),
    ]
