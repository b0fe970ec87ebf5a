import numpy as np

INPUTS = "d:2x8x8,img:8x8"
PARAMS = "img"


def f(d, img):
    """Backward warping by a displacement field with bilinear interpolation (optical-flow
    photometric residual's warp), border clamped."""
    H, W = img.shape
    yy, xx = np.meshgrid(np.arange(H), np.arange(W), indexing="ij")
    y = np.clip(yy + d[0], 0.0, H - 1.001)
    x = np.clip(xx + d[1], 0.0, W - 1.001)
    y0 = np.floor(y).astype(int)
    x0 = np.floor(x).astype(int)
    wy = y - y0
    wx = x - x0
    I00 = img[y0, x0]
    I01 = img[y0, x0 + 1]
    I10 = img[y0 + 1, x0]
    I11 = img[y0 + 1, x0 + 1]
    return (1 - wy) * ((1 - wx) * I00 + wx * I01) + wy * ((1 - wx) * I10 + wx * I11)


def POINT(rng):
    return [0.7 * rng.normal(size=(2, 8, 8)), rng.uniform(size=(8, 8))]
