import numpy as np

INPUTS = "z:4x6"


def sparsemax(z):
    # Martins & Astudillo (2016): the Euclidean projection onto the simplex, row-wise
    zs = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    css = np.cumsum(zs, axis=-1)
    support = 1 + k * zs > css
    kz = np.sum(support, axis=-1, keepdims=True)
    tau = (np.take_along_axis(css, kz - 1, axis=-1) - 1) / kz
    return np.maximum(z - tau, 0.0)


def f(z):
    return sparsemax(z)


def POINT(rng):
    z = rng.normal(size=(4, 6))
    z[1] = [0.5, 0.5, 0.1, -1.0, 0.3, 0.5]  # ties at the top
    z[2] = 0.0  # all equal: uniform
    return [z]
