import numpy as np

INPUTS = "c:3x2,amp:3,img:12x12"
PARAMS = "img"


def f(c, amp, img, s=1.5):
    # fit three Gaussian blobs to an image, a smoothness penalty by a 5-point Laplacian of
    # the residual with reflecting borders
    yy, xx = np.ogrid[0:12, 0:12]
    model = np.zeros((12, 12))
    for k in range(3):
        model = model + amp[k] * np.exp(-((xx - c[k, 0]) ** 2 + (yy - c[k, 1]) ** 2) / (2 * s**2))
    r = model - img
    rp = np.pad(r, 1, mode="reflect")
    lap = rp[:-2, 1:-1] + rp[2:, 1:-1] + rp[1:-1, :-2] + rp[1:-1, 2:] - 4 * r
    ep = np.pad(r, ((0, 0), (2, 2)), mode="edge")
    grad_x = (ep[:, 4:] - ep[:, :-4]) / 4
    return np.sum(r**2) + 0.1 * np.sum(lap**2) + 0.05 * np.sum(grad_x**2)


def POINT(rng):
    yy, xx = np.mgrid[0:12, 0:12]
    img = 2 * np.exp(-((xx - 3) ** 2 + (yy - 4) ** 2) / 4.5) + np.exp(
        -((xx - 8) ** 2 + (yy - 8) ** 2) / 4.5
    )
    img = img + 0.02 * rng.normal(size=(12, 12))
    return [np.array([[3.2, 4.1], [7.8, 8.0], [6.0, 2.0]]), np.array([1.9, 1.1, 0.0]), img]
