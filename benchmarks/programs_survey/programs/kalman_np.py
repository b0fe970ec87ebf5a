import numpy as np

INPUTS = "x:2,P:2x2"
H = np.array([[1.0, 0.0]])
R = np.array([[0.1]])
Z = np.array([0.7])


def f(x, P):
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    xn = x + K @ (Z - H @ x)
    Pn = (np.eye(2) - K @ H) @ P
    return xn, Pn


def POINT(rng):
    A = 0.3 * rng.normal(size=(2, 2))
    return [rng.normal(size=2), np.eye(2) + A @ A.T]
