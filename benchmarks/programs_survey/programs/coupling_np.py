import numpy as np

INPUTS = "x:8x4,Ws1:2x2,Wt1:2x2,Ws2:2x2,Wt2:2x2"


def layer(x1, x2, Ws, Wt):
    s = np.tanh(x1 @ Ws)
    return x2 * np.exp(s) + x1 @ Wt, np.sum(s, axis=1)


def f(x, Ws1, Wt1, Ws2, Wt2):
    a, b = x[:, :2], x[:, 2:]
    b, ld1 = layer(a, b, Ws1, Wt1)
    a, ld2 = layer(b, a, Ws2, Wt2)  # swap halves
    return np.concatenate([a, b], axis=1), ld1 + ld2


def POINT(rng):
    return [rng.normal(size=(8, 4))] + [0.5 * rng.normal(size=(2, 2)) for _ in range(4)]
