import numpy as np

INPUTS = "u0:200,c:200"
DT = 0.4


def f(u0, c):
    u_prev = u0
    u = u0
    for _ in range(40):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u_next = 2 * u - u_prev + (DT * c) ** 2 * lap
        u_prev, u = u, u_next
    return u


def POINT(rng):
    x = np.linspace(0, 1, 200)
    return [np.exp(-200 * (x - 0.5) ** 2), 1.0 + 0.1 * rng.uniform(size=200)]
