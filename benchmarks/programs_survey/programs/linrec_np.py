import numpy as np

INPUTS = "a:64,b:64"


def f(a, b):
    lam = 1.0 / (1.0 + np.exp(-a))  # decay in (0, 1)
    h, hs = 0.0, []
    for t in range(64):
        h = lam[t] * h + b[t]
        hs.append(h)
    return np.stack(hs)
