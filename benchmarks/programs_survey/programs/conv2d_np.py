import numpy as np
from scipy.signal import convolve2d

INPUTS = "img:10x10,k:3x3"


def f(img, k):
    """A learned 3x3 filter, then a fixed Gaussian blur, both by scipy.signal.convolve2d
    (mode "same", zero padding), and a ReLU."""
    g = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0
    h = convolve2d(img, k, mode="same")
    return np.maximum(convolve2d(h, g, mode="same"), 0.0)
