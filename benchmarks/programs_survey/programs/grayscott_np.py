import numpy as np

INPUTS = "U:32x32,V:32x32"
DU, DV, F, K, DT = 0.16, 0.08, 0.035, 0.065, 1.0


def lap(a):
    p = np.pad(a, 1, mode="wrap")
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * a


def f(U, V):
    uvv = U * V * V
    Un = U + DT * (DU * lap(U) - uvv + F * (1 - U))
    Vn = V + DT * (DV * lap(V) + uvv - (F + K) * V)
    return Un, Vn


def POINT(rng):
    return [1.0 - 0.1 * rng.random((32, 32)), 0.25 * rng.random((32, 32))]
