"""Tracing a loop's running sum on every route (issue 40 item 3): edges and seconds
against the steps, with the growth exponents (least-squares slopes of log(edges) and
log(seconds) over log(steps)). A tape gives one vertex per operation executed, so both
should grow linearly (exponent 1); sympy's flattening of sums made them quadratic.

Run: python benchmarks/tracing_scale.py [--sizes 500,1000,2000,4000,8000] [--routes ...]
Routes: ``pairs`` (NumPy tracer, ``s = s + x[k]*x[k+1]``, the issue's case), ``sines``
(``s += np.sin(x[k])``), ``reused`` (``y = y + np.sin(y)*x[1]``: every partial sum used
again), ``sympy`` (scalars with ``sympy.sin``: ``y = y + sympy.sin(y)*b``), ``trace``
(the pairs sum as a ``.trace`` file), ``jax`` (the pairs sum with ``jax.numpy``, read
from its jaxpr). Seconds are CPU seconds of tracing and building the graph.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import sympy
from harness import log_slope  # benchmarks/, first on the path

from dgraph.core.graph import DGraph
from dgraph.frontends import from_function, from_jax, from_trace


def pairs(n: int) -> DGraph:
    def f(x):
        s = 0
        for k in range(n):
            s = s + x[k] * x[k + 1]
        return s

    return from_function(f, sizes=[n + 1])


def sines(n: int) -> DGraph:
    def f(x):
        s = 0
        for k in range(n):
            s += np.sin(x[k])
        return s

    return from_function(f, sizes=[n])


def reused(n: int) -> DGraph:
    def f(x):
        y = x[0]
        for _ in range(n):
            y = y + np.sin(y) * x[1]
        return y

    return from_function(f, sizes=[2])


def sympy_sum(n: int) -> DGraph:
    def f(a, b):
        y = a
        for _ in range(n):
            y = y + sympy.sin(y) * b
        return y

    return from_function(f)


def trace(n: int) -> DGraph:
    lines = ["inputs: " + ", ".join(f"x{k}" for k in range(n + 1)), "outputs: y", "s = x0*x1"]
    lines += [f"s = s + x{k}*x{k + 1}" for k in range(1, n)]
    return from_trace("\n".join([*lines, "y = s"]))


def jax_pairs(n: int) -> DGraph:
    import jax.numpy as jnp

    def f(x):
        s = jnp.float64(0.0)
        for k in range(n):
            s = s + x[k] * x[k + 1]
        return s

    return from_jax(f, np.ones(n + 1))


ROUTES: dict[str, Callable[[int], DGraph]] = {
    "pairs": pairs,
    "sines": sines,
    "reused": reused,
    "sympy": sympy_sum,
    "trace": trace,
    "jax": jax_pairs,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000,4000,8000")
    parser.add_argument("--routes", default=",".join(ROUTES))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    routes = args.routes.split(",")
    print("| route | " + " | ".join(f"{n} steps: edges, s" for n in sizes) + " | k edges | k s |")
    print("|---|" + "---|" * (len(sizes) + 2))
    for route in routes:
        edges, seconds = [], []
        for n in sizes:
            started = time.process_time()
            graph = ROUTES[route](n)
            seconds.append(time.process_time() - started)
            edges.append(graph.n_edges)
        cells = " | ".join(f"{e}, {s:.2f}" for e, s in zip(edges, seconds, strict=True))
        k_edges, k_seconds = log_slope(sizes, edges), log_slope(sizes, seconds)
        print(f"| {route} | {cells} | {k_edges:.2f} | {k_seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
