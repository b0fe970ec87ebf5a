import numpy as np

INPUTS = "x0:4,W1:16x4,W2:4x16"
NSTEP = 20
DT = 0.05


def rhs(x, W1, W2):
    return W2 @ np.tanh(W1 @ x)


def f(x0, W1, W2):
    x = x0
    for _ in range(NSTEP):
        k1 = rhs(x, W1, W2)
        k2 = rhs(x + 0.5 * DT * k1, W1, W2)
        k3 = rhs(x + 0.5 * DT * k2, W1, W2)
        k4 = rhs(x + DT * k3, W1, W2)
        x = x + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def POINT(rng):
    return [rng.normal(size=4), 0.5 * rng.normal(size=(16, 4)), 0.5 * rng.normal(size=(4, 16))]
