import numpy as np

INPUTS = "p:3"


def f(p):
    # three Newton steps on r(u) = u + 0.1 u^3 - p (a fixed count), then a loss of u
    u = np.zeros(3)
    A = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    for _ in range(3):
        r = A @ u + 0.1 * u**3 - p
        J = A + np.diag(0.3 * u**2)
        u = u - np.linalg.solve(J, r)
    return np.sum(u**2) + u[0] * u[2]
