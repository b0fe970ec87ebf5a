import numpy as np

INPUTS = "Kg:2x4,x0:4"
PARAMS = "x0"
A = np.array([[1.0, 0.1, 0, 0], [0, 1.0, 0.1, 0], [0, 0, 1.0, 0.1], [0.01, 0, 0, 0.98]])
B = np.array([[0, 0], [0.1, 0], [0, 0], [0, 0.1]])


def f(Kg, x0):
    x = x0
    J = 0.0
    for _ in range(60):
        u = -Kg @ x
        J = J + x @ x + 0.1 * (u @ u)
        x = A @ x + B @ u
    return J


def POINT(rng):
    return [0.5 * np.ones((2, 4)) + 0.1 * rng.normal(size=(2, 4)), rng.normal(size=4)]
