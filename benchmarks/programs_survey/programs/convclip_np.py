import numpy as np

INPUTS = "k:5,lo:,hi:,x:40"
PARAMS = "x"


def f(k, lo, hi, x):
    # a learned smoothing kernel, then a clip to learned bounds, scored against x
    y = np.convolve(x, k, mode="same")
    z = np.clip(y, lo, hi)
    return np.sum((z - x) ** 2) + np.sum(k**2)


def POINT(rng):
    return [rng.normal(size=5) * 0.3, np.array(-0.8), np.array(0.9), np.sin(np.linspace(0, 6, 40))]
