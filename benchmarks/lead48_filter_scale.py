"""Session 48 (lead): a probed filter at scale. ``sum(gaussian_filter(u, 1.5)**2)`` of an
m × m image (scipy.ndimage, read as scipy's own matrix along each axis): the gradient by
``make_function(f, "vjp")`` at u, CPU-s to make it and per call, the worst error against
the closed form ``2·G(G(u))`` (G symmetric under ``mode="wrap"``).

``python benchmarks/lead48_filter_scale.py M [M ...]``
"""

import sys
import time
import warnings

import numpy as np
import scipy.ndimage as nd

import dgraph


def f(u):
    return np.sum(nd.gaussian_filter(u, 1.5, mode="wrap") ** 2)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for m in map(int, sys.argv[1:]):
        u = np.random.default_rng(0).normal(size=(m, m))
        t = time.process_time()
        made = dgraph.make_function(f, "vjp", point=[u])
        build = time.process_time() - t
        t = time.process_time()
        g = made(u, np.ones(()))
        call = time.process_time() - t
        want = 2 * nd.gaussian_filter(nd.gaussian_filter(u, 1.5, mode="wrap"), 1.5, mode="wrap")
        error = np.abs(np.reshape(g, (m, m)) - want).max()
        print(m, m * m, round(build, 2), round(call, 3), f"{error:.1e}", made.generated.verified)
