import numpy as np

INPUTS = "x:6,gamma:6,beta:6"


def f(x, gamma, beta):
    mu = x.mean()
    var = ((x - mu) ** 2).mean()
    return (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
