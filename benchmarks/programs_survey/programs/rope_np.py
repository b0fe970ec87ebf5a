import numpy as np

INPUTS = "q:6x4,k:6x4,v:6x4"


def rotate(x):
    n, d = x.shape
    pos = np.arange(n)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    ang = pos * freq[None, :]
    c, s = np.cos(ang), np.sin(ang)
    x1, x2 = x[:, 0::2], x[:, 1::2]
    return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], axis=1)


def f(q, k, v):
    s = rotate(q) @ rotate(k).T / np.sqrt(q.shape[1])
    s = s - np.max(s, axis=1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=1, keepdims=True)
    return p @ v
