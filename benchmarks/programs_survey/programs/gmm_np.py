import numpy as np

INPUTS = "mu:3,logs:3,logits:3,data:8"
PARAMS = "data"


def f(mu, logs, logits, data):
    s = np.exp(logs)
    logw = logits - np.log(np.sum(np.exp(logits)))
    z = (data[:, None] - mu[None, :]) / s[None, :]
    comp = logw - logs - 0.5 * z**2 - 0.5 * np.log(2 * np.pi)
    m = np.max(comp, axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


def POINT(rng):
    return [
        rng.normal(size=3),
        0.3 * rng.normal(size=3),
        rng.normal(size=3),
        2 * rng.normal(size=8),
    ]
