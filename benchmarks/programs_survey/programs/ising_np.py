import numpy as np

INPUTS = "h:8x8"
J, B, TEMP = 1.0, 0.1, 2.5


def f(h):
    m = np.tanh(h)
    energy = -J * np.sum(m * np.roll(m, 1, axis=0)) - J * np.sum(m * np.roll(m, -1, axis=1))
    p, q = (1 + m) / 2, (1 - m) / 2
    entropy = -np.sum(p * np.log(p) + q * np.log(q))
    return energy - B * np.sum(m) - TEMP * entropy


def POINT(rng):
    h = 0.5 * rng.normal(size=(8, 8))
    h[::3, ::2] = 0.0  # zero magnetization sites
    return [h]
