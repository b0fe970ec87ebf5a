import numpy as np

INPUTS = "b:3,lam,tau:40,y:40"
PARAMS = "tau,y"


def f(b, lam, tau, y):
    x = tau / lam
    g = (1 - np.exp(-x)) / x
    model = b[0] + b[1] * g + b[2] * (g - np.exp(-x))
    return np.sum((model - y) ** 2)


def POINT(rng):
    tau = np.linspace(0.25, 30, 40)
    return [np.array([0.04, -0.02, 0.01]), np.array(1.8), tau, 0.03 + 0.005 * rng.normal(size=40)]
