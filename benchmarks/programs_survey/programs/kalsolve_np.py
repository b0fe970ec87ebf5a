import numpy as np

INPUTS = "x:3,P:3x3"
H = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5]])
R = 0.2 * np.eye(2)
Z = np.array([0.3, -0.4])


def f(x, P):
    S = H @ P @ H.T + R
    K = np.linalg.solve(S, H @ P).T
    return x + K @ (Z - H @ x)


def POINT(rng):
    A = 0.3 * rng.normal(size=(3, 3))
    return [rng.normal(size=3), np.eye(3) + A @ A.T]
