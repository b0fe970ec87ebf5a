import numpy as np

INPUTS = "p:6x2,u:6x2"
OBST, RAD, ALPHA = np.array([0.0, 0.0]), 0.5, 1.0


def f(p, u):
    d = p - OBST
    h = np.sum(d**2, axis=1) - RAD**2
    a = 2 * d
    slack = np.sum(a * u, axis=1) + ALPHA * h
    lam = np.maximum(0.0, -slack) / np.sum(a**2, axis=1)
    return u + lam[:, None] * a  # the closest input with dh/dt >= -alpha h


def POINT(rng):
    p = 1.5 * rng.normal(size=(6, 2))
    u = rng.normal(size=(6, 2))
    p[0], u[0] = [1.0, 0.0], [-0.375, 0.3]  # the constraint exactly active: slack 0
    return [p, u]
