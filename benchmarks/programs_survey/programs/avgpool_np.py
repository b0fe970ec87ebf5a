import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

INPUTS = "img:2x3x8x8"


def f(img):
    a = img.reshape(2, 3, 4, 2, 4, 2).mean(axis=(3, 5))  # 2x2 average pooling
    p = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    s = sliding_window_view(p, (3, 3), axis=(2, 3)).sum(axis=(-1, -2)) / 9.0  # 3x3 "SAME"
    return np.tanh(s)
