import numpy as np

INPUTS = "p:3,Z:40x24"
PARAMS = "Z"
STRIKE, T = 100.0, 1.0


def f(p, Z):
    """A Monte Carlo arithmetic Asian call under GBM with a smoothed payoff (softplus),
    pathwise in (S0, sigma, r): the Hessian holds gamma and vanna."""
    S0, sigma, r = p[0], p[1], p[2]
    n = Z.shape[1]
    dt = T / n
    logs = np.log(S0) + np.cumsum((r - 0.5 * sigma**2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    avg = np.mean(np.exp(logs), axis=1)
    payoff = 2.0 * np.logaddexp(0.0, (avg - STRIKE) / 2.0)
    return np.exp(-r * T) * np.mean(payoff)


def POINT(rng):
    return [np.array([100.0, 0.25, 0.03]), rng.normal(size=(40, 24))]
