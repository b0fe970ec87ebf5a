import numpy as np

INPUTS = "g:4,S:3x4,Y:3x4"
PARAMS = "S,Y"


def f(g, S, Y):
    # L-BFGS's two-loop recursion: the search direction's squared norm
    q = g
    alphas = []
    for k in range(2, -1, -1):
        rho = 1.0 / (Y[k] @ S[k])
        a = rho * (S[k] @ q)
        alphas.append(a)
        q = q - a * Y[k]
    gamma = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1])
    r = gamma * q
    for k in range(3):
        rho = 1.0 / (Y[k] @ S[k])
        b = rho * (Y[k] @ r)
        r = r + S[k] * (alphas[2 - k] - b)
    return np.sum(r**2) + np.sum(np.tanh(g))


def POINT(rng):
    S = rng.normal(size=(3, 4))
    return [rng.normal(size=4), S, S + 0.1 * rng.normal(size=(3, 4))]
