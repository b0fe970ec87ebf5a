import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

INPUTS = "img:7x7,w"


def f(img, w):
    y = np.tanh(img * w)
    # 3x3 max pooling, stride 2, "SAME" padding (one each side for 7 -> 4)
    yp = np.pad(y, 1, constant_values=-np.inf)
    p = sliding_window_view(yp, (3, 3))[::2, ::2].max(axis=(2, 3))
    # 2x2 sum pooling, stride 1, padding (1, 0) x (0, 1)
    s = sliding_window_view(np.pad(y, ((1, 0), (0, 1))), (2, 2)).sum(axis=(2, 3))
    return np.sum(p**2) + np.mean(s)


def POINT(rng):
    return [rng.normal(size=(7, 7)), np.array(0.7)]
