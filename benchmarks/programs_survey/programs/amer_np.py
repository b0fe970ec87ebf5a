import numpy as np

INPUTS = "s0,k,sig,r"
NSTEP = 60
T = 1.0


def f(s0, k, sig, r):
    dt = T / NSTEP
    u = np.exp(sig * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    j = np.arange(NSTEP + 1)
    S = s0 * u ** (NSTEP - 2.0 * j)
    V = np.maximum(k - S, 0.0)
    for i in range(NSTEP - 1, -1, -1):
        S = s0 * u ** (i - 2.0 * np.arange(i + 1))
        V = np.maximum(disc * (p * V[:-1] + (1 - p) * V[1:]), k - S)
    return V[0]


def POINT(rng):
    return [np.array(100.0), np.array(100.0), np.array(0.25), np.array(0.05)]
