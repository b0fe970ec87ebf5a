import numpy as np

INPUTS = "q:3,T:25x2"
PARAMS = "T"
L = np.array([1.0, 0.8, 0.5])


def f(q, T):
    a = np.cumsum(q)
    tip = np.array([np.sum(L * np.cos(a)), np.sum(L * np.sin(a))])
    r = tip[None, :] - T
    return 0.5 * np.sum(r**2) + 1e-2 * np.sum(q**2)
