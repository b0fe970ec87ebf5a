import numpy as np

INPUTS = "phi:128"
DX = 0.05


def f(phi):
    s = phi / np.sqrt(phi**2 + DX**2)
    p = np.concatenate([phi[:1], phi, phi[-1:]])
    a = (p[1:-1] - p[:-2]) / DX
    b = (p[2:] - p[1:-1]) / DX
    gp = np.sqrt(np.maximum(np.maximum(a, 0) ** 2, np.minimum(b, 0) ** 2) + 1e-12)
    gm = np.sqrt(np.maximum(np.minimum(a, 0) ** 2, np.maximum(b, 0) ** 2) + 1e-12)
    g = np.where(s > 0, gp, gm)
    return phi - 0.5 * DX * s * (g - 1.0)


def POINT(rng):
    x = np.linspace(-3, 3, 128)
    return [np.abs(x) - 1.0 + 0.02 * rng.normal(size=128)]
