import numpy as np

INPUTS = "x:120,sos:3x6"


def f(x, sos):
    y = x
    for s in range(3):
        b0, b1, b2, a0, a1, a2 = sos[s]
        z1 = 0.0
        z2 = 0.0
        out = []
        for n in range(120):
            v = (b0 * y[n] + z1) / a0
            z1 = b1 * y[n] - a1 * v + z2
            z2 = b2 * y[n] - a2 * v
            out.append(v)
        y = np.stack(out)
    return y


def POINT(rng):
    sos = np.array([[0.3, 0.6, 0.3, 1.0, -0.2, 0.1]] * 3) + 0.01 * rng.normal(size=(3, 6))
    return [rng.normal(size=120), sos]
