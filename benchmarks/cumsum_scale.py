"""Jacobians (dense and sparse) through ``cumsum`` at one size, CPU seconds: build (trace,
accumulate, generate, check) and one call, ``time.process_time``, after a warm-up at a
small size; the largest error against ``jax.jacfwd``; the cumsum edge block's stored
values; and, in the generated source, ``einsum`` calls and constants of at least
n(n+1)/2 entries (cumsum's explicit triangle).

    python benchmarks/cumsum_scale.py {sin1d|sq2d0|sq2d1} {dense|sparse} N

``sin1d``: ``np.cumsum(np.sin(x))``, x of n entries; ``sq2d0``/``sq2d1``:
``jnp.cumsum(x**2, axis=0/1)``, x of shape (4, n).
"""

from __future__ import annotations

import re
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph.methods.registry import traced_function


def _program(name: str, n: int):
    if name == "sin1d":
        return (lambda x: np.cumsum(np.sin(x))), (lambda x: jnp.cumsum(jnp.sin(x))), (n,)
    axis = int(name[-1])
    return (lambda x: jnp.cumsum(x**2, axis=axis)), (lambda x: jnp.cumsum(x**2, axis=axis)), (4, n)


def _stored(f, x) -> int:
    graph = traced_function(f, point=[x])
    graph = getattr(graph, "graph", graph)
    found = [
        graph.block(u, v).stored
        for u, v in graph.edges()
        if getattr(graph.op(v), "primitive", None) == "cumsum"
    ]
    return max(found, default=-1)


def _big_constants(source: str, at_least: int) -> int:
    sizes = [int(s) for s in re.findall(r"\((\d+),\)", source)]
    return sum(size >= at_least for size in sizes)


def run(name: str, kind: str, n: int) -> str:
    f, ref, shape = _program(name, n)
    x = np.random.default_rng(0).normal(size=shape)
    sparse = kind == "sparse"
    fs, _, small = _program(name, 6)
    dgraph.make_function(fs, "jacobian", point=[np.ones(small)], sparse=sparse)
    t0 = time.process_time()
    made = dgraph.make_function(f, "jacobian", point=[x], sparse=sparse)
    t1 = time.process_time()
    got = made(x)
    t2 = time.process_time()
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    want = np.asarray(jax.jacfwd(ref)(jnp.asarray(x))).reshape(got.shape)
    err = np.abs(got - want).max() / np.abs(want).max()
    length = shape[int(name[-1])] if name != "sin1d" else n
    triangle = length * (length + 1) // 2
    return (
        f"{name} {kind} n={n} build={t1 - t0:.2f} call={t2 - t1:.3f} CPU-s relerr={err:.1e}"
        f" stored={_stored(f, x)} einsum={made.source.count('einsum(')}"
        f" constants>=n(n+1)/2: {_big_constants(made.source, triangle)}"
    )


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    print(run(sys.argv[1], sys.argv[2], int(sys.argv[3])))
