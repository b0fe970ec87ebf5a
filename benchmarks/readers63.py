"""CPU-s of one verified ``dgraph.jacobian`` of the readers session 63 added, by size:
``python benchmarks/readers63.py PROGRAM N`` prints ``PROGRAM N cpu_s vertices``, after a
warm-up at the smallest size in the same process (imports, the first loop region).

Programs: ``iir`` (scipy.signal.lfilter of traced taps ``b``, denominator ``a`` and N
samples, squared: one loop region), ``iirnd`` (lfilter along axis 0 of an N x 8 array from
traced delays ``zi``, both ``y`` and ``zf``), ``filtfilt`` (scipy.signal.filtfilt of
traced ``b`` and ``a`` over N samples: two loops and the odd extension), ``convwrap``
(scipy.signal.convolve2d, boundary wrap, of an N x N image and an (N + 2) x 3 kernel,
both traced: the kernel longer than the image)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import scipy.signal
from harness import jacobian_cpu

_B, _A = np.array([0.2, 0.3, 0.1]), np.array([1.0, -1.2, 0.5])


def iir(n: int):
    def f(b, a, x):
        return scipy.signal.lfilter(b, a, x) ** 2

    return f, [_B, _A, np.random.default_rng(0).normal(size=n)]


def iirnd(n: int):
    def f(b, a, x, zi):
        y, zf = scipy.signal.lfilter(b, a, x, axis=0, zi=zi)
        return np.sum(y**2, axis=0) + zf[0]

    rng = np.random.default_rng(0)
    return f, [_B, _A, rng.normal(size=(n, 8)), rng.normal(size=(2, 8))]


def filtfilt(n: int):
    def f(b, a, x):
        return scipy.signal.filtfilt(b, a, x)

    return f, [_B, _A, np.random.default_rng(0).normal(size=n)]


def convwrap(n: int):
    def f(img, k):
        return scipy.signal.convolve2d(img, k, mode="same", boundary="wrap")

    rng = np.random.default_rng(0)
    return f, [rng.normal(size=(n, n)), rng.normal(size=(n + 2, 3))]


PROGRAMS = {"iir": iir, "iirnd": iirnd, "filtfilt": filtfilt, "convwrap": convwrap}


def run(name: str, n: int) -> tuple[float, int]:
    return jacobian_cpu(*PROGRAMS[name](n))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    program, size = sys.argv[1], int(sys.argv[2])
    run(program, 12)  # warm-up
    cpu, vertices = run(program, size)
    print(f"{program} {size} {cpu:.3f} {vertices}")
