import numpy as np

INPUTS = "w0:3,q0:4,Ivec:3"


def quat_mul(a, b):
    w1, v1 = a[0], a[1:]
    w2, v2 = b[0], b[1:]
    return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def rhs(s, inertia):
    w, q = s[:3], s[3:]
    dw = -np.cross(w, inertia * w) / inertia  # torque-free Euler equations
    dq = 0.5 * quat_mul(q, np.concatenate([[0.0], w]))
    return np.concatenate([dw, dq])


def f(w0, q0, Ivec, dt=0.05, steps=20):
    s = np.concatenate([w0, q0 / np.linalg.norm(q0)])
    for _ in range(steps):
        k1 = rhs(s, Ivec)
        k2 = rhs(s + 0.5 * dt * k1, Ivec)
        k3 = rhs(s + 0.5 * dt * k2, Ivec)
        k4 = rhs(s + dt * k3, Ivec)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[3:]


def POINT(rng):
    return [np.array([0.1, 2.0, 0.05]), np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 2.0, 3.0])]
