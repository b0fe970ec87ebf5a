import numpy
import numpy as np

INPUTS = "x:6"
_R = numpy.random.default_rng(50)
A = _R.normal(size=(14, 6))
B = numpy.abs(_R.normal(size=14)) + 1.0
C = _R.normal(size=6)


def f(x):
    # an interior-point step's objective: c.x - mu * sum(log(b - A x)) + a proximal term
    s = B - A @ x
    return C @ x - 0.1 * np.sum(np.log(s)) + 0.5 * np.dot(x, x)


def POINT(rng):
    return [0.05 * rng.normal(size=6)]
