import numpy as np

INPUTS = "x:3,h:4,c:4,W:16x7,b:16"


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def f(x, h, c, W, b):
    g = W @ np.concatenate([x, h]) + b
    i, fg, o, u = np.split(g, 4)
    cn = sigmoid(fg) * c + sigmoid(i) * np.tanh(u)
    hn = sigmoid(o) * np.tanh(cn)
    return hn, cn
