import numpy as np

INPUTS = "u:12,x0:2"


def f(u, x0, dt=0.1, umax=1.0):
    # double integrator driven by saturated controls, quadratic tracking cost
    x = x0
    cost = 0.0
    for t in range(u.size):
        a = np.clip(u[t], -umax, umax)
        x = np.array([x[0] + dt * x[1] + 0.5 * dt**2 * a, x[1] + dt * a])
        cost = cost + (x[0] - 1.0) ** 2 + 0.1 * x[1] ** 2 + 0.01 * a**2
    return cost + 10.0 * np.sum(np.maximum(np.abs(u) - umax, 0.0) ** 2)


def POINT(rng):
    u = np.array(
        [1.0, 1.3, 0.8, -1.0, 0.2, -0.4, -1.2, 0.0, 0.5, -0.3, 0.1, 1.0]
    )  # at, past the bound
    return [u, np.array([0.0, 0.0])]
