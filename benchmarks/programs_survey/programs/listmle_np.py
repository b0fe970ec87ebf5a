import numpy as np

INPUTS = "w:4,X:12x4,rel:12"
PARAMS = "X,rel"


def f(w, X, rel):
    # ListMLE (Xia et al. 2008): the Plackett-Luce likelihood of the relevance order;
    # suffix log-sum-exps by a reversed logaddexp.accumulate
    s = X @ w
    order = np.argsort(-rel, kind="stable")
    s = s[order]
    suffix = np.logaddexp.accumulate(s[::-1])[::-1]
    return np.sum(suffix - s) + 0.01 * w @ w


def POINT(rng):
    X = rng.normal(size=(12, 4))
    rel = np.array([3, 2, 2, 1, 0, 0, 0, 1, 2, 3, 0, 1], float)  # ties in the relevance
    return [np.zeros(4) + 0.1, X, rel]
