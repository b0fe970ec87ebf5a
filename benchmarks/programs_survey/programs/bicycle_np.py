from functools import partial

import numpy as np

INPUTS = "tire:4,delta:25"
PARAMS = "delta"
M, IZ, LF, LR, U = 1500.0, 2500.0, 1.2, 1.4, 20.0


def pacejka(alpha, B, C, D, E):
    # the Magic Formula lateral force (Pacejka & Bakker 1992)
    x = B * alpha
    return D * np.sin(C * np.arctan(x - E * (x - np.arctan(x))))


def step(s, d, tire, dt=0.02):
    vy, r = s
    alpha_f = d - np.arctan2(vy + LF * r, U)
    alpha_r = -np.arctan2(vy - LR * r, U)
    Fyf, Fyr = tire(alpha_f), tire(alpha_r)
    dvy = (Fyf * np.cos(d) + Fyr) / M - U * r
    dr = (LF * Fyf * np.cos(d) - LR * Fyr) / IZ
    return np.array([vy + dt * dvy, r + dt * dr])


def f(tire, delta):
    # a dynamic bicycle model at constant speed over a steering sequence: yaw rates
    tire_fn = partial(pacejka, B=tire[0], C=tire[1], D=tire[2], E=tire[3])
    s = np.zeros(2)
    yaw = []
    for d in delta:
        s = step(s, d, tire_fn)
        yaw.append(s[1])
    return np.array(yaw)


def POINT(rng):
    delta = np.concatenate([np.zeros(5), np.full(10, 0.05), np.linspace(0.05, -0.05, 10)])
    return [np.array([10.0, 1.9, 6000.0, 0.97]), delta]  # straight ahead first: alpha = 0
