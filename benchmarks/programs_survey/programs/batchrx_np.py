import numpy as np

INPUTS = "p:4,c0:3"
R = 8.314
STEPS = 30  # benchmarks/batchrx_make.py sets other step counts


def rates(c, T, p):
    k1 = np.exp(p[0] - p[1] * 1e4 / (R * T))
    k2 = np.exp(p[2] - p[3] * 1e4 / (R * T))
    r1 = k1 * c[0] ** 2
    r2 = k2 * c[1]
    return np.array([-2 * r1, r1 - r2, r2])


def f(p, c0):
    """2A -> B -> C in a batch reactor with a linear temperature ramp, integrated by 30
    classical RK4 steps; the final concentrations."""
    c = c0
    dt = 0.1
    for i in range(STEPS):
        T = 500.0 + 5.0 * i * dt
        k1 = rates(c, T, p)
        k2 = rates(c + 0.5 * dt * k1, T + 2.5 * dt, p)
        k3 = rates(c + 0.5 * dt * k2, T + 2.5 * dt, p)
        k4 = rates(c + dt * k3, T + 5.0 * dt, p)
        c = c + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return c


def POINT(rng):
    return [np.array([10.0, 4.0, 8.0, 5.0]) + 0.1 * rng.normal(size=4), np.array([1.0, 0.0, 0.0])]
