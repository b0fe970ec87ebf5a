import numpy as np

INPUTS = "q:3,p:3"


def f(q, p):
    m, length, g = 1.0, 1.0, 9.81
    kinetic = 0.5 * np.sum(p**2) / (m * length**2)
    y = -length * np.cumsum(np.cos(q))
    potential = m * g * np.sum(y)
    springs = 0.5 * 3.0 * np.sum(np.diff(q) ** 2)
    return kinetic + potential + springs
