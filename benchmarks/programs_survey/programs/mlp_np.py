import numpy as np

INPUTS = "W1:3x4,b1:3,W2:2x3,x:4"
PARAMS = "x"


def gelu(h):
    return 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h**3)))


def f(W1, b1, W2, x):
    h = np.tanh(W1 @ x + b1)
    return W2 @ gelu(h)
