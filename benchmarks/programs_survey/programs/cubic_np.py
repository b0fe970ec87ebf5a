import numpy as np

INPUTS = "a:50,b:50"


def f(a, b):
    x = np.cbrt(b)
    for _ in range(30):
        x = x - (x**3 + a * x - b) / (3 * x**2 + a)
    return x


def POINT(rng):
    return [rng.uniform(0.5, 2.0, 50), rng.normal(size=50)]
