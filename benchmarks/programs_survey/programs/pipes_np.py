import numpy as np

INPUTS = "Q:6,H:4,C:6"
PARAMS = "C"
PIPES = np.array([[0, 1], [1, 2], [1, 3], [2, 4], [3, 4], [2, 3]])
L = np.array([300.0, 250.0, 400.0, 200.0, 350.0, 150.0])
D = np.array([0.3, 0.2, 0.25, 0.15, 0.2, 0.1])
DEMAND = np.array([0.02, 0.03, 0.025, 0.04])


def f(Q, H, C, H0=50.0):
    Hn = np.concatenate([[H0], H])
    hl = 10.67 * L / (C**1.852 * D**4.87) * np.sign(Q) * np.abs(Q) ** 1.852  # Hazen-Williams
    r_energy = Hn[PIPES[:, 0]] - Hn[PIPES[:, 1]] - hl
    inc = np.zeros((5, 6))
    inc[PIPES[:, 0], np.arange(6)] = -1.0
    inc[PIPES[:, 1], np.arange(6)] = 1.0
    r_mass = inc[1:] @ Q - DEMAND
    return np.concatenate([r_energy, r_mass])


def POINT(rng):
    Q = np.array([0.115, 0.05, 0.045, 0.03, 0.0, -0.01])  # a pipe without flow, one reversed
    return [
        Q,
        np.array([45.0, 40.0, 41.0, 35.0]),
        np.array([130.0, 120.0, 110.0, 140.0, 100.0, 90.0]),
    ]
