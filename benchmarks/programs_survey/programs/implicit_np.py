import numpy as np
from scipy.linalg import solve_banded

INPUTS = "u:12,logk:12"


def f(u, logk, dt=0.05, h=0.1, steps=3):
    # backward Euler for u_t = (k u_x)_x, a tridiagonal solve per step
    k = np.exp(logk)
    kf = 0.5 * (k[:-1] + k[1:])
    r = dt / h**2
    ab = np.zeros((3, u.size))
    ab[0, 1:] = -r * kf
    ab[1] = 1.0 + r * (np.concatenate([[0.0], kf]) + np.concatenate([kf, [0.0]]))
    ab[2, :-1] = -r * kf
    for _ in range(steps):
        u = solve_banded((1, 1), ab, u)
    return u
