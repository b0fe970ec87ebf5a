import numpy as np

INPUTS = "Re:4,rel_rough:"


def f(Re, rel_rough, iters=12):
    # Darcy friction factor by fixed-point iteration of Colebrook-White on x = 1/sqrt(f)
    x = np.full(Re.shape, 8.0)
    for _ in range(iters):
        x = -2.0 * np.log10(rel_rough / 3.7 + 2.51 * x / Re)
    return 1.0 / x**2


def POINT(rng):
    return [np.array([4e3, 2e4, 1e5, 1e6]), np.array(1e-4)]
