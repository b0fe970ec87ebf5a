import numpy as np

INPUTS = "q:8x2"
CENTER, RAD, KC, MU = np.array([1.0, 0.8]), 0.5, 1e3, 5.0


def f(q):
    floor = q[:, 1]
    sphere = np.sqrt(np.sum((q - CENTER) ** 2, axis=1)) - RAD
    pen = KC * np.sum(np.minimum(0.0, floor) ** 2) + KC * np.sum(np.minimum(sphere, 0.0) ** 2)
    friction = -MU * np.sum(np.minimum(floor, 0.0))  # linear: its kink at gap 0
    springs = np.sum((np.linalg.norm(np.diff(q, axis=0), axis=1) - 0.3) ** 2)
    return pen + friction + springs + 9.81 * np.sum(q[:, 1])


def POINT(rng):
    q = np.stack([np.linspace(0, 2.1, 8), 0.05 * rng.normal(size=8)], axis=1)
    q[2, 1] = 0.0  # exactly on the floor
    q[5] = CENTER + np.array([0.0, -RAD])  # exactly on the sphere
    return [q]
