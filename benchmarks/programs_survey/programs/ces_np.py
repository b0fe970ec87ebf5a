import numpy as np

INPUTS = "alpha:3,rho:,p:3,m:"
PARAMS = "p,m"


def f(alpha, rho, p, m):
    # CES preferences: Marshallian demand, budget shares and indirect utility
    a = np.exp(alpha) / np.sum(np.exp(alpha))
    r = rho / (rho - 1.0)  # price exponent
    denom = np.sum(a ** (1 - r) * p**r)
    x = (
        m
        * (a / p) ** (1.0 / (1.0 - rho))
        / np.sum(a ** (1.0 / (1.0 - rho)) * p ** (rho / (rho - 1.0)))
    )
    shares = p * x / m
    u = np.sum(a * x**rho) ** (1.0 / rho)
    return u, shares, denom


def POINT(rng):
    return [np.array([0.2, -0.1, 0.0]), np.array(0.5), np.array([1.0, 2.0, 1.5]), np.array(10.0)]
