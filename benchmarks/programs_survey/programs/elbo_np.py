import numpy as np
from scipy.special import expit, log_expit

INPUTS = "mu:3,rho:3,X:20x3,y:20"
PARAMS = "X,y"
EPS = np.random.default_rng(46).normal(size=(8, 3))  # fixed reparameterisation draws


def softplus(r):
    return np.log1p(np.exp(r))


def f(mu, rho, X, y, prior_sd=1.0):
    sigma = softplus(rho)
    w = mu + sigma * EPS  # 8 samples of the weights
    z = w @ X.T  # 8 x 20
    loglik = np.sum(y * log_expit(z) + (1 - y) * log_expit(-z), axis=1).mean()
    kl = np.sum(np.log(prior_sd / sigma) + (sigma**2 + mu**2) / (2 * prior_sd**2) - 0.5)
    penalty = 1e-3 * np.sum(expit(rho)) + 1e-4 * (np.sum(mu**2) + np.sum(rho**2))
    return -(loglik - kl) + penalty


def POINT(rng):
    X = rng.normal(size=(20, 3))
    y = (X @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=20) > 0).astype(float)
    return [np.array([0.5, -0.5, 0.0]), np.array([-1.0, -1.0, -1.0]), X, y]
