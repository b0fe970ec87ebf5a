import numpy as np

INPUTS = "x:512"


def f(x):
    out = []
    a = x
    for _ in range(5):
        pairs = a.reshape(-1, 2)
        d = (pairs[:, 0] - pairs[:, 1]) / np.sqrt(2.0)
        a = (pairs[:, 0] + pairs[:, 1]) / np.sqrt(2.0)
        out.append(np.sign(d) * np.maximum(np.abs(d) - 0.1, 0.0))
    out.append(a)
    return np.concatenate(out[::-1])
