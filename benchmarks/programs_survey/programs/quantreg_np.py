import numpy as np

INPUTS = "beta:3,X:30x3,y:30"
PARAMS = "X,y"


def f(beta, X, y, tau=0.7):
    # pinball loss on residuals scaled by their interquartile range, plus a 90 % quantile
    r = y - X @ beta
    q25, q75 = np.percentile(r, np.array([25.0, 75.0]))
    u = r / ((q75 - q25) / 1.349)
    return np.mean(np.maximum(tau * u, (tau - 1.0) * u)) + np.quantile(np.abs(r), 0.9)


def POINT(rng):
    X = np.column_stack([np.ones(30), rng.normal(size=(30, 2))])
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.standard_t(3, size=30)
    return [np.array([0.8, -1.5, 0.2]), X, y]
