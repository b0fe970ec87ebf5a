import numpy as np

INPUTS = "x:300,k:9"


def f(x, k):
    a = np.correlate(x, k, mode="valid")
    b = np.convolve(x, k[::-1] * 0.5, mode="same")
    return np.concatenate([a, b[::3]])
