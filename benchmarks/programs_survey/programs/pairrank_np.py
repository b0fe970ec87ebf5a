import numpy as np

INPUTS = "w:5,X:9x5,y:9"
PARAMS = "X,y"


def f(w, X, y):
    # RankNet: logistic loss over every ordered pair (i, j) with y_i > y_j
    s = X @ w
    i, j = np.triu_indices(len(y), k=1)
    sign = np.sign(y[i] - y[j])
    margin = sign * (s[i] - s[j])
    return np.sum(np.logaddexp(0.0, -margin)) + 1e-2 * np.sum(w**2)


def POINT(rng):
    y = rng.normal(size=9)
    y[3] = y[5]  # a tie: sign 0, the pair contributes log 2
    return [rng.normal(size=5), rng.normal(size=(9, 5)), y]
