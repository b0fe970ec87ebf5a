import numpy as np

INPUTS = "E:30x8,ia:40,ip:40,ineg:40"
PARAMS = "ia,ip,ineg"
MARGIN = 0.5


def f(E, ia, ip, ineg):
    En = E / np.linalg.norm(E, axis=1, keepdims=True)
    a = En[ia.astype(int)]
    p = En[ip.astype(int)]
    n = En[ineg.astype(int)]
    dap = np.sum((a - p) ** 2, axis=1)
    dan = np.sum((a - n) ** 2, axis=1)
    return np.mean(np.maximum(dap - dan + MARGIN, 0.0))


def POINT(rng):
    idx = [rng.integers(0, 30, 40).astype(float) for _ in range(3)]
    return [rng.normal(size=(30, 8)), *idx]
