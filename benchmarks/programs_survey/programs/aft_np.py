import numpy as np

INPUTS = "beta:3,logsig:,X:60x3,t:60,delta:60"
PARAMS = "X,t,delta"


def f(beta, logsig, X, t, delta):
    # Weibull accelerated failure time: log t = X beta + sigma * (extreme-value noise)
    z = (np.log(t) - X @ beta) / np.exp(logsig)
    ll = delta * (z - logsig - np.log(t)) - np.exp(z)  # censored rows: log S only
    return -np.sum(ll)


def POINT(rng):
    X = np.column_stack([np.ones(60), rng.normal(size=(60, 2))])
    t = np.exp(X @ np.array([1.0, 0.5, -0.3]) + 0.5 * np.log(rng.exponential(size=60)))
    delta = (rng.uniform(size=60) < 0.7).astype(float)
    return [np.array([0.8, 0.4, -0.2]), np.array(-0.5), X, t, delta]
