import numpy as np
from scipy.integrate import trapezoid

INPUTS = "y:10,x:10"


def f(y, x):
    # an integral over a moving grid: both the values and the abscissae learned
    return trapezoid(y**2, x) + trapezoid(np.sin(y), x) ** 2


def POINT(rng):
    return [rng.normal(size=10), np.cumsum(rng.uniform(0.1, 0.5, size=10))]
