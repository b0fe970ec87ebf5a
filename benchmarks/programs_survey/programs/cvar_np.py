import numpy as np

INPUTS = "w:6,R:2000x6"
PARAMS = "R"


def f(w, R):
    loss = -(R @ w)
    s = np.sort(loss)
    tail = s[-100:]
    return np.mean(tail) + 0.5 * np.sum(w**2)
