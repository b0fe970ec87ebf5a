import numpy as np

INPUTS = "th:3,y0:4"
PARAMS = "y0"
DT = 0.5


def f(th, y0):
    beta, sigma, gamma = th
    S, E, I, R = y0
    infected = []
    for _ in range(60):
        new = beta * S * I
        S, E, I, R = (S - DT * new, E + DT * (new - sigma * E),
                      I + DT * (sigma * E - gamma * I), R + DT * gamma * I)  # fmt: skip
        infected.append(I)
    return np.array(infected)


def POINT(rng):
    return [np.array([0.6, 0.2, 0.1]) + 0.02 * rng.random(3), np.array([0.99, 0.0, 0.01, 0.0])]
