import numpy as np
from scipy.special import erf

INPUTS = "x:16x32,g:32,b:32"


def f(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + 1e-5) * g + b
    e = 0.5 * h * (1 + erf(h / np.sqrt(2.0)))
    t = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
    return e + 0.5 * t
