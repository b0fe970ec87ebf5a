"""Session 49 (lead): a spline made outside the function at n queries from the inputs.
``sum(w · spl(x)²)`` with ``spl = CubicSpline`` of 200 knots (scipy.interpolate, read as
the interval by ``searchsorted`` and Horner's rule): the gradient by
``make_function(f, "vjp")`` at x, CPU-s to make it and per call, the worst error against
the closed form ``2·w·spl(x)·spl(x, 1)`` (scipy's own derivative).

``python benchmarks/lead49_spline_scale.py N [N ...]``
"""

import sys
import time
import warnings

import numpy as np
from scipy.interpolate import CubicSpline

import dgraph

XK = np.linspace(0.0, 10.0, 200)
SPLINE = CubicSpline(XK, np.sin(XK) * np.exp(-0.1 * XK))


def f(x):
    return np.sum(np.cos(x) * SPLINE(x) ** 2)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for n in map(int, sys.argv[1:]):
        x = np.random.default_rng(0).uniform(-1.0, 11.0, size=n)
        t = time.process_time()
        made = dgraph.make_function(f, "vjp", point=[x])
        build = time.process_time() - t
        t = time.process_time()
        g = made(x, np.ones(()))
        call = time.process_time() - t
        s, d = SPLINE(x), SPLINE(x, 1)
        want = -np.sin(x) * s**2 + 2 * np.cos(x) * s * d
        error = np.abs(np.reshape(g, n) - want).max() / np.abs(want).max()
        print(n, round(build, 2), round(call, 4), f"{error:.1e}", made.generated.verified)
