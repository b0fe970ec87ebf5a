"""What closing a trip count over costs (:mod:`dgraph.frontends.fixed_parameters`).

``python benchmarks/fixed_parameters.py READER PROGRAM N`` prints the CPU seconds of one
verified ``dgraph.jacobian`` of a loop of ``N`` steps, after a warm-up read of a
one-step loop in the same process:

* READER ``closed``: ``jacobian(f, point=[y, N], params=["n"])``, the count a parameter
  (read as a number first, which fails, then closed over at ``N``);
* READER ``lambda``: ``jacobian(lambda y: f(y, N), point=[y])``, the count closed over by
  hand (what a user wrote before), the same graph;

PROGRAM ``numpy`` (``for _ in range(n)``) or ``jax`` (``lax.fori_loop(0, n, ...)``), the
step ``y + 0.1 sin(y) y[::-1]`` of ``y`` of 3 entries. The closure's extra cost is the
failed first reading; both graphs are verified.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import dgraph


def numpy_steps(y, n):
    for _ in range(n):
        y = y + 0.1 * np.sin(y) * y[::-1]
    return y


def jax_steps(y, n):
    from jax import lax
    from jax import numpy as jnp

    return lax.fori_loop(0, n, lambda i, y: y + 0.1 * jnp.sin(y) * y[::-1], y)


def build(reader: str, f, n: int) -> dgraph.ExpressionSet:
    y = np.array([0.3, 0.7, 1.1])
    if reader == "closed":
        return dgraph.jacobian(f, point=[y, n], params=["n"])
    return dgraph.jacobian(lambda y: f(y, n), point=[y])


def main() -> None:
    reader, program, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    f = {"numpy": numpy_steps, "jax": jax_steps}[program]
    build(reader, f, 1)  # warm-up: imports, the readers' first calls
    start = time.process_time()
    es = build(reader, f, n)
    seconds = time.process_time() - start
    assert es.verified, es.verification
    fixed = es.graph.fixed_parameters
    print(f"{reader} {program} n={n}: {seconds:.3f} CPU-s, {es.graph.n_edges} edges, {fixed}")


if __name__ == "__main__":
    main()
