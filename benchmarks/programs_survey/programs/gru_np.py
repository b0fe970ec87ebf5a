import numpy as np

INPUTS = "h:3,x:2,Wz:3x5,Wr:3x5,Wh:3x5"


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def f(h, x, Wz, Wr, Wh):
    hx = np.concatenate([h, x])
    z = sigmoid(Wz @ hx)
    r = sigmoid(Wr @ hx)
    cand = np.tanh(Wh @ np.concatenate([r * h, x]))
    return (1 - z) * h + z * cand
