import numpy as np

INPUTS = "w:5,delta,R:60x5"
PARAMS = "R"


def f(w, delta, R):
    S = np.cov(R, rowvar=False)
    Sig = (1 - delta) * S + delta * np.trace(S) / 5 * np.eye(5)
    a = np.linalg.solve(Sig, np.ones(5))
    wmv = a / np.sum(a)
    return w @ Sig @ w / np.sum(w) ** 2 + wmv @ S @ wmv


def POINT(rng):
    R = 0.01 * rng.normal(size=(60, 5)) @ (np.eye(5) + 0.5 * rng.random((5, 5)))
    return [np.full(5, 0.2) + 0.02 * rng.normal(size=5), np.array(0.3), R]
