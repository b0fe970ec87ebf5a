import numpy as np

INPUTS = "q:8,p:8,alpha:"


def force(q, alpha):
    qq = np.concatenate([[0.0], q, [0.0]])  # fixed ends
    d = np.diff(qq)
    fb = d + alpha * d**2  # alpha-FPU bond force
    return fb[1:] - fb[:-1]


def f(q, p, alpha, dt=0.1, steps=40):
    p = p + 0.5 * dt * force(q, alpha)
    for _ in range(steps - 1):
        q = q + dt * p
        p = p + dt * force(q, alpha)
    q = q + dt * p
    p = p + 0.5 * dt * force(q, alpha)
    return q, p


def POINT(rng):
    return [np.sin(np.pi * np.arange(1, 9) / 9), np.zeros(8), np.array(0.25)]
