import numpy as np

INPUTS = "th:3,y0:4"
PARAMS = "y0"
DT = 0.5


def f(th, y0):
    beta, sigma, gamma = th
    sus, exp_, inf, rec = y0
    infected = []
    for _ in range(60):
        new = beta * sus * inf
        sus, exp_, inf, rec = (
            sus - DT * new,
            exp_ + DT * (new - sigma * exp_),
            inf + DT * (sigma * exp_ - gamma * inf),
            rec + DT * gamma * inf,
        )
        infected.append(inf)
    return np.array(infected)


def POINT(rng):
    return [np.array([0.6, 0.2, 0.1]) + 0.02 * rng.random(3), np.array([0.99, 0.0, 0.01, 0.0])]
