import numpy as np

INPUTS = "x:300,b:3,a:2"


def f(x, b, a):
    y1 = 0.0
    y2 = 0.0
    x1 = 0.0
    x2 = 0.0
    out = []
    for n in range(300):
        y = b[0] * x[n] + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, y
        out.append(y)
    return np.array(out)


def POINT(rng):
    return [rng.normal(size=300), np.array([0.2, 0.4, 0.2]), np.array([-0.5, 0.2])]
