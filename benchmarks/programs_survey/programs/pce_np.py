import math

import numpy as np

INPUTS = "th:2"
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(10)
WEIGHTS = WEIGHTS / np.sqrt(2 * np.pi)


def f(th):
    u = th[0] + th[1] * NODES
    g = np.sin(u) + 0.1 * u**3
    He = [np.ones_like(NODES), NODES]
    for n in range(1, 5):
        He.append(NODES * He[n] - n * He[n - 1])
    c = [np.sum(WEIGHTS * g * He[n]) / math.factorial(n) for n in range(6)]
    var = sum(c[n] ** 2 * math.factorial(n) for n in range(1, 6))
    return c[0], var


def POINT(rng):
    return [np.array([0.3, 0.5]) + 0.1 * rng.random(2)]
