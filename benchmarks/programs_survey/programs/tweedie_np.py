import numpy as np

INPUTS = "beta:4,p:,X:20x4,y:20"
PARAMS = "X,y"


def f(beta, p, X, y):
    # the Tweedie deviance of a log-link GLM (compound Poisson-gamma, 1 < p < 2)
    mu = np.exp(X @ beta)
    dev = 2 * (
        np.power(y, 2 - p) / ((1 - p) * (2 - p))
        - y * mu ** (1 - p) / (1 - p)
        + mu ** (2 - p) / (2 - p)
    )
    return np.sum(dev)


def POINT(rng):
    X = rng.normal(size=(20, 4))
    X[:, 0] = 1.0
    y = np.where(rng.uniform(size=20) < 0.4, 0.0, rng.gamma(2.0, 1.5, size=20))
    y[:3] = 0.0  # zero claims: y ** (2 - p) at y = 0
    return [np.array([0.3, 0.1, -0.2, 0.05]), np.array(1.5), X, y]
