import numpy as np

INPUTS = "x:5x4,g:4,Wg:4x6,Wu:4x6,Wd:6x4"


def rms_norm(x, g, eps=1e-6):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * g


def silu(z):
    return z / (1.0 + np.exp(-z))


def f(x, g, Wg, Wu, Wd):
    h = rms_norm(x, g)
    return x + (silu(h @ Wg) * (h @ Wu)) @ Wd  # pre-norm SwiGLU block with a residual


def POINT(rng):
    x = rng.normal(size=(5, 4))
    x[2] = 0.0  # an all-zero token: the norm's eps is all that keeps it finite
    return [
        x,
        1.0 + 0.1 * rng.normal(size=4),
        *(0.5 * rng.normal(size=s) for s in [(4, 6), (4, 6), (6, 4)]),
    ]
