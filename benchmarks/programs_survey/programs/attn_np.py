import numpy as np

INPUTS = "X:4x3,Wq:3x3,Wk:3x3,Wv:3x3"


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def f(X, Wq, Wk, Wv):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    a = softmax(q @ k.T / np.sqrt(3.0))
    return a @ v
