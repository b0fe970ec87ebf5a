import numpy as np

INPUTS = "x:30,a:"


def f(x, a):
    # a progressive schedule: 10 % up to 1, 20 % up to 3, then a rate a
    conds = [x < 1.0, (x >= 1.0) & (x < 3.0), x >= 3.0]
    vals = [0.1 * x, 0.1 + 0.2 * (x - 1.0), 0.5 + a * (x - 3.0)]
    tax = np.select(conds, vals)
    g = np.piecewise(x, [x < 0.0, x >= 0.0], [lambda t: np.exp(t) - 1.0, lambda t: t + 0.5 * t**2])
    return tax + a * g


def POINT(rng):
    x = rng.uniform(-2.0, 5.0, size=30)
    x[:4] = [0.0, 1.0, 3.0, -1.0]  # the schedule's kinks
    return [x, np.array(0.35)]
