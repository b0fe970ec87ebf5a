import numpy as np

INPUTS = "theta:4,P:30,E:30"
PARAMS = "P,E"
S0 = np.float32(50.0)  # the initial soil store, single precision as logged


def f(theta, P, E, s0=S0):
    # a bucket rainfall-runoff model (HBV-like): soil store, recharge, linear reservoir
    fc, beta, k, lp = theta
    sm, gw = s0, np.float32(10.0)
    q = []
    for t in range(P.size):
        recharge = P[t] * (np.clip(sm / fc, 0.0, 1.0) ** beta)
        sm = sm + P[t] - recharge
        et = E[t] * np.minimum(sm / (lp * fc), 1.0)
        sm = np.maximum(sm - et, 0.0)
        gw = gw + recharge
        out = k * gw
        gw = gw - out
        q.append(out)
    return np.stack(q)


def POINT(rng):
    P = np.where(rng.random(30) < 0.4, rng.gamma(2.0, 5.0, 30), 0.0)  # dry days exactly 0
    E = np.full(30, 2.0)
    return [np.array([120.0, 2.0, 0.1, 0.7]), P, E]
