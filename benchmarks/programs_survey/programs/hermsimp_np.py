import numpy as np

INPUTS = "X:16x4,U:16,T:"
M, MP, L = 1.0, 0.3, 0.5


def dyn(x, u):
    th, v, w = x[..., 1], x[..., 2], x[..., 3]
    s, c = np.sin(th), np.cos(th)
    den = M + MP * s**2
    a = (u + MP * s * (L * w**2 + 9.81 * c)) / den
    al = -(u * c + MP * L * w**2 * c * s + (M + MP) * 9.81 * s) / (L * den)
    return np.stack([v, w, a, al], axis=-1)


def f(X, U, T):
    h = T / 15.0
    F = dyn(X, U)
    xm = 0.5 * (X[:-1] + X[1:]) + h / 8.0 * (F[:-1] - F[1:])
    um = 0.5 * (U[:-1] + U[1:])
    Fm = dyn(xm, um)
    defect = X[1:] - X[:-1] - h / 6.0 * (F[:-1] + 4.0 * Fm + F[1:])
    return defect.reshape(-1)


def POINT(rng):
    return [rng.normal(size=(16, 4)), rng.normal(size=16), np.array(2.0)]
