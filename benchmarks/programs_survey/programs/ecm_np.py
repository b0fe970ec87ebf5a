import numpy as np

INPUTS = "theta:4,cur:100"
PARAMS = "cur"
OCV = np.array([3.2, 1.1, -0.4, 0.05], dtype=np.float32)  # coefficients kept in float32


def f(theta, cur, dt=1.0, soc0=0.9):
    R0, R1, C1, Q = np.exp(theta)
    a = np.exp(-dt / (R1 * C1))
    soc, v1, V = soc0, 0.0, []
    for k in range(100):
        soc = soc - cur[k] * dt / (3600.0 * Q)
        v1 = a * v1 + R1 * (1.0 - a) * cur[k]
        ocv = OCV[0] + OCV[1] * soc + OCV[2] * soc**2 + OCV[3] * np.log(soc / (1.0 - soc))
        V.append(ocv - v1 - R0 * cur[k])
    return np.array(V)


def POINT(rng):
    cur = np.where(np.arange(100) % 20 < 12, 2.0, 0.0)  # pulses and rests (zero current)
    return [np.log(np.array([0.05, 0.02, 800.0, 0.5])), cur]
