import numpy as np

INPUTS = "u:12x12,f0:12x12"
PARAMS = "f0"


def f(u, f0):
    """An edge-preserving denoising energy: data term plus a Charbonnier penalty on Sobel
    gradients of the edge-padded image."""
    p = np.pad(u, 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    mag = np.sqrt(gx**2 + gy**2 + 1e-3)
    return 0.5 * np.sum((u - f0) ** 2) + 0.1 * np.sum(mag)
