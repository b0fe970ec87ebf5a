import numpy as np

INPUTS = "uv:2x6x6,I0:8x8,I1:8x8"
PARAMS = "I0,I1"


def bilinear(img, y, x):
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    wy, wx = y - y0, x - x0
    return ((1 - wy) * (1 - wx) * img[y0, x0] + (1 - wy) * wx * img[y0, x0 + 1]
            + wy * (1 - wx) * img[y0 + 1, x0] + wy * wx * img[y0 + 1, x0 + 1])  # fmt: skip


def f(uv, I0, I1):
    yy, xx = np.meshgrid(np.arange(1, 7), np.arange(1, 7), indexing="ij")
    warped = bilinear(I1, yy + uv[1], xx + uv[0])
    r = warped - I0[1:7, 1:7]
    data = np.sum(np.sqrt(r**2 + 1e-6))
    smooth = np.sum(np.diff(uv, axis=1) ** 2) + np.sum(np.diff(uv, axis=2) ** 2)
    return data + 0.1 * smooth


def POINT(rng):
    uv = 0.3 * rng.random((2, 6, 6))
    uv[:, 2, 2] = 0.0  # an integer sample point: the bilinear kink
    yy, xx = np.mgrid[0:8, 0:8]
    return [uv, np.sin(0.7 * xx) * np.cos(0.5 * yy), np.sin(0.7 * xx - 0.2) * np.cos(0.5 * yy)]
