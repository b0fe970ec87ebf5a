"""Sparse Hessians of ``fori_loop``s that sum terms (``jaxpr_reductions``: run as maps):
build CPU seconds, one call's, peak memory and H·v against JAX's forward-over-reverse of
the loop as written, at sizes the loop itself (a region swept step by step) reached in
minutes.

    python benchmarks/reduction_loops.py [SIZES ...]
"""

from __future__ import annotations

import argparse
import itertools
import math
import resource
import time

import numpy as np


def chained_rosenbrock(x):
    import jax

    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return jax.lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    print("| n | build CPU s | call CPU ms (median of 5) | nnz | H·v error / max | peak RSS GB |")
    print("|---|---|---|---|---|---|")
    rows = []
    for n in args.sizes:
        x = np.linspace(-0.8, 0.9, n)
        t = time.process_time()
        H = dgraph.hessian(chained_rosenbrock, x, sparse=True)
        built = time.process_time() - t
        y = x + 0.01
        calls = []
        for _ in range(5):
            t = time.process_time()
            h = H(y)
            calls.append(time.process_time() - t)
        v = np.cos(np.arange(n))
        hv = jax.jvp(jax.grad(chained_rosenbrock), (y,), (v,))[1]
        error = np.abs(h @ v - np.asarray(hv)).max() / np.abs(hv).max()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        rows.append((n, built))
        print(
            f"| {n:,} | {built:.2f} | {1e3 * float(np.median(calls)):.2f} | {h.nnz:,} |"
            f" {error:.1e} | {peak:.2f} |",
            flush=True,
        )
    for (n0, t0), (n1, t1) in itertools.pairwise(rows):
        print(f"build grows as n^{math.log(t1 / t0) / math.log(n1 / n0):.2f} ({n0:,} → {n1:,})")


if __name__ == "__main__":
    main()
