import numpy as np

INPUTS = "c:3,rad,light:3,D:24x3"
PARAMS = "D"


def f(c, rad, light, D):
    """Ray casting one sphere from the origin: the hit distance by the quadratic's smaller
    root (rays that miss give background 0), Lambert shading at the hit point."""
    D = D / np.linalg.norm(D, axis=1, keepdims=True)
    b = D @ c
    disc = b**2 - (c @ c - rad**2)
    hit = disc > 0
    t = b - np.sqrt(np.where(hit, disc, 1.0))
    X = t[:, None] * D
    n = (X - c) / rad
    ld = light / np.linalg.norm(light)
    shade = np.maximum(n @ ld, 0.0)
    return np.where(hit, shade, 0.0)


def POINT(rng):
    D = np.column_stack([0.4 * rng.uniform(-1, 1, 24), 0.4 * rng.uniform(-1, 1, 24), np.ones(24)])
    return [np.array([0.1, -0.05, 4.0]), np.array(1.0), np.array([1.0, 1.0, -1.0]), D]
