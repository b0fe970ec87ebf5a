"""A 2-D finite-difference residual written with NumPy slices, at the array level.

    python benchmarks/stencil_arrays.py [N ...] [--element N]

For each grid N x N: the array-level graph's vertices and edges (the same at every N),
the sparse Jacobian's nonzeros, and the seconds to trace the graph, to make the sparse
Jacobian function (the cheapest of forward, reverse and Markowitz over blocks, verified,
its code checked) and to call it once (call ms). ``--element N`` times the element-by-element graph
and ``make_function`` at N x N too (the issue's 14 x 14: over 40 s).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import dgraph
from dgraph.frontends import from_function


def residual(u):
    p = np.pad(u, 1)
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
    return lap + 0.1 * np.exp(u)


def _flat_residual(u):  # the same function of a flat vector, for the element level
    n = round(len(u) ** 0.5)
    return residual(np.asarray(u).reshape(n, n)).ravel()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[14, 100, 300])
    parser.add_argument("--element", type=int, default=0)
    args = parser.parse_args(argv)
    print(
        "| level | grid | unknowns | vertices | edges | nnz | graph s | make_function s | call ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        t0 = time.perf_counter()
        g = from_function(residual, sizes=[(n, n)], level="array")
        t1 = time.perf_counter()
        J = dgraph.make_function(g, "jacobian", lang="python", sparse=True)
        t2 = time.perf_counter()
        u = np.random.default_rng(0).uniform(0.5, 1.5, (n, n))
        block = J(u)
        t3 = time.perf_counter()
        print(
            f"| array | {n}x{n} | {n * n} | {len(g)} | {g.n_edges} | {block.nnz} | {t1 - t0:.3f}"
            f" | {t2 - t1:.2f} | {(t3 - t2) * 1000:.1f} |",
            flush=True,
        )
    if args.element:
        n = args.element
        t0 = time.perf_counter()
        g = from_function(_flat_residual, sizes=[n * n])
        t1 = time.perf_counter()
        J = dgraph.make_function(g, "jacobian")
        t2 = time.perf_counter()
        J(np.random.default_rng(0).uniform(0.5, 1.5, n * n))
        t3 = time.perf_counter()
        print(
            f"| element | {n}x{n} | {n * n} | {len(g)} | {g.n_edges} | — | {t1 - t0:.2f}"
            f" | {t2 - t1:.2f} | {(t3 - t2) * 1000:.1f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
