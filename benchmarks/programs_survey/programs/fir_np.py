import numpy as np

INPUTS = "x:1000,h:15"


def f(x, h):
    return np.convolve(x, h, mode="same")
