import numpy as np

INPUTS = "x:8,k:3"


def f(x, k):
    y = np.convolve(x, k, mode="valid")
    return np.tanh(y)
