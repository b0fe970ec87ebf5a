import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

INPUTS = "k:4x3x3,w:4x25,img:2x12x12,y:2"
PARAMS = "img,y"


def f(k, w, img, y):
    patches = sliding_window_view(img, (3, 3), axis=(1, 2))  # 2x10x10x3x3
    z = np.einsum("bijuv,cuv->bcij", patches, k)
    a = np.maximum(z, 0.0)
    pooled = a.reshape(2, 4, 5, 2, 5, 2).max(axis=(3, 5))  # 2x4x5x5
    feats = pooled.reshape(2, 4, 25)
    out = np.einsum("bcp,cp->b", feats, w)
    return np.mean((out - y) ** 2)


def POINT(rng):
    img, k = rng.normal(size=(2, 12, 12)), rng.normal(size=(4, 3, 3))
    return [k, 0.1 * rng.normal(size=(4, 25)), img, rng.normal(size=2)]
