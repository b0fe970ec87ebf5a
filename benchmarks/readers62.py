"""CPU-s of one verified ``dgraph.jacobian`` of the readers session 62 added, by size:
``python benchmarks/readers62.py PROGRAM N`` prints ``PROGRAM N cpu_s vertices``, after a
warm-up at the smallest size in the same process (imports, JAX's first use).

Programs: ``conv2d`` (scipy.signal.convolve2d of an N x N image and a 3 x 3 kernel, both
from the inputs, mode same, then a blur by a constant kernel), ``warp`` (a bilinear warp
of an N x N image by a displacement field, clipped before the floor), ``lfilt``
(scipy.signal.lfilter of 3 traced taps over N samples), ``cds`` (par spreads from N
hazard pillars, searchsorted and cumsum)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import scipy.signal
from harness import jacobian_cpu


def conv2d(n: int):
    blur = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0

    def f(img, k):
        h = scipy.signal.convolve2d(img, k, mode="same")
        return np.maximum(scipy.signal.convolve2d(h, blur, mode="same"), 0.0)

    rng = np.random.default_rng(0)
    return f, [rng.normal(size=(n, n)), rng.normal(size=(3, 3))]


def warp(n: int):
    def f(d, img):
        yy, xx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        y, x = np.clip(yy + d[0], 0.0, n - 1.001), np.clip(xx + d[1], 0.0, n - 1.001)
        y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
        wy, wx = y - y0, x - x0
        top = (1 - wx) * img[y0, x0] + wx * img[y0, x0 + 1]
        return (1 - wy) * top + wy * ((1 - wx) * img[y0 + 1, x0] + wx * img[y0 + 1, x0 + 1])

    rng = np.random.default_rng(0)
    return f, [0.7 * rng.normal(size=(2, n, n)), rng.uniform(size=(n, n))]


def lfilt(n: int):
    a = np.array([1.0, -1.2, 0.5])

    def f(b, x):
        return scipy.signal.lfilter(b, a, x) ** 2

    rng = np.random.default_rng(0)
    return f, [rng.normal(size=3), rng.normal(size=n)]


def cds(n: int):
    pillars = np.arange(1.0, n + 1)
    dt = 0.25

    def f(h):
        t = np.arange(1, 4 * n + 1) * dt
        lam = h[np.searchsorted(pillars, t - 1e-9)]
        surv = np.exp(-np.cumsum(lam * dt))
        idx = (pillars / dt).astype(int) - 1
        return np.cumsum(surv)[idx]

    return f, [np.full(n, 0.02)]


PROGRAMS = {"conv2d": conv2d, "warp": warp, "lfilt": lfilt, "cds": cds}


def run(name: str, n: int) -> tuple[float, int]:
    return jacobian_cpu(*PROGRAMS[name](n))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    program, size = sys.argv[1], int(sys.argv[2])
    run(program, 4)  # warm-up
    cpu, vertices = run(program, size)
    print(f"{program} {size} {cpu:.3f} {vertices}")
