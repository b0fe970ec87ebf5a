import numpy as np

INPUTS = "xi:6"


def hat(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def f(xi):
    w, v = xi[:3], xi[3:]
    th = np.linalg.norm(w)
    W = hat(w)
    A = np.sin(th) / th
    B = (1 - np.cos(th)) / th**2
    C = (th - np.sin(th)) / th**3
    R = np.eye(3) + A * W + B * W @ W
    V = np.eye(3) + B * W + C * W @ W
    return R, V @ v


def POINT(rng):
    return [rng.normal(size=6)]
