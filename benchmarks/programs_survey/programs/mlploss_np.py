import numpy as np

INPUTS = "W1:4x3,b1:4,w2:4,X:5x3,t:5"
PARAMS = "X,t"


def f(W1, b1, w2, X, t):
    H = np.tanh(X @ W1.T + b1)
    pred = H @ w2
    return 0.5 * np.mean((pred - t) ** 2) + 1e-3 * np.sum(W1**2)
