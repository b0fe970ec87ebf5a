import numpy as np

INPUTS = "x:4000"
M = 7
V = np.vander(np.arange(-M, M + 1), 4, increasing=True)
COEF = np.linalg.pinv(V)[0]


def f(x):
    s = np.convolve(x, COEF[::-1], mode="same")
    return s - x
