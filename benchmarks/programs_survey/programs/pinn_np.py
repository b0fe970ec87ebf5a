import numpy as np

INPUTS = "W1:10,b1:10,W2:10,b2"
XS = np.linspace(0, 1, 16)


def f(W1, b1, W2, b2):
    t = np.tanh(np.outer(XS, W1) + b1)  # u(x) = W2 . tanh(W1 x + b1) + b2
    u_xx = (-2 * t * (1 - t**2)) @ (W2 * W1**2)
    residual = u_xx + np.pi**2 * np.sin(np.pi * XS)
    u0 = W2 @ np.tanh(b1) + b2
    u1 = W2 @ np.tanh(W1 + b1) + b2
    return np.mean(residual**2) + u0**2 + u1**2


def POINT(rng):
    return [
        rng.normal(size=10),
        0.5 * rng.normal(size=10),
        0.5 * rng.normal(size=10),
        np.array(0.1),
    ]
