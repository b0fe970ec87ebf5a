import numpy as np

INPUTS = "s:8"
RANKINGS = np.array([[3, 1, 0, 7, 2, 5, 4, 6], [1, 3, 7, 0, 2, 4, 6, 5], [0, 1, 2, 3, 4, 5, 6, 7]])


def f(s, reg=1e-2):
    # Plackett-Luce negative log-likelihood: full rankings, then a top-3 list
    nll = 0.0
    for r in RANKINGS:
        v = s[r]
        tail = np.log(np.cumsum(np.exp(v)[::-1])[::-1])  # log sum_{j >= k} exp(v_j)
        nll = nll - np.sum(v - tail)
    v = s[RANKINGS[0]]
    tail = np.log(np.cumsum(np.exp(v)[::-1])[::-1])
    nll = nll - np.sum((v - tail)[:3])
    return nll + 0.5 * reg * np.sum(s**2)


def POINT(rng):
    s = rng.normal(size=8)
    s[2] = s[5]  # a tie
    return [s]
