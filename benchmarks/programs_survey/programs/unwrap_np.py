import numpy as np

INPUTS = "th:12"


def f(th):
    # a phase track unwrapped, then its roughness
    ph = np.unwrap(np.arctan2(np.sin(3 * th), np.cos(3 * th)))
    return np.sum(np.diff(ph) ** 2)


def POINT(rng):
    return [np.linspace(0, 4, 12) + 0.05 * rng.normal(size=12)]
