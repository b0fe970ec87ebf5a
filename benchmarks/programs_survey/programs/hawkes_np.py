import numpy as np

INPUTS = "th:3,t:150"
PARAMS = "t"
TEND = 100.0


def f(th, t):
    mu, alpha, beta = np.exp(th[0]), np.exp(th[1]), np.exp(th[2])
    A = 0.0
    ll = 0.0
    for i in range(150):
        if i > 0:
            A = np.exp(-beta * (t[i] - t[i - 1])) * (1.0 + A)
        ll = ll + np.log(mu + alpha * A)
    comp = mu * TEND + alpha / beta * np.sum(1.0 - np.exp(-beta * (TEND - t)))
    return -(ll - comp)


def POINT(rng):
    t = np.sort(rng.uniform(0, TEND, 150))
    t[5] = t[4]  # two events at one time: a zero gap
    return [np.log(np.array([0.8, 0.5, 1.5])), t]
