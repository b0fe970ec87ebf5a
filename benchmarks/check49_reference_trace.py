"""CPU of tracing a value check's JAX reference, ``jvp`` of a fresh function, two ways:
``jvp(f)`` (f's Python run again under ``jvp``) against ``jvp`` of f's own program as the
builder traced it (``jax.core.eval_jaxpr`` of ``jax.make_jaxpr(f)``, what
:class:`dgraph.frontends.jaxpr_arrays.JaxJvp` traces since session 49), milliseconds,
medians of 7 fresh functions each.

Usage: ``python benchmarks/check49_reference_trace.py``.
"""

from __future__ import annotations

import functools
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

__all__ = ["fresh"]


def fresh(kind: str):
    """A new function object of ``kind`` (no trace of it cached) and its arguments."""

    def rosen(x):
        return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    if kind == "rosenbrock":
        return rosen, [np.ones(6)]
    if kind == "softmax":
        return lambda x: jax.nn.softmax(x) * jnp.log1p(jnp.exp(x)) + jnp.linalg.norm(x), [
            np.ones(5)
        ]
    if kind == "fori_loop":
        return lambda x: jax.lax.fori_loop(0, 5, lambda i, c: jnp.sin(c) * 1.1 + c, x), [np.ones(4)]
    if kind == "grad rosenbrock":
        return jax.grad(rosen), [np.ones(6)]
    if kind == "grad mlp":

        def f(x, w1, w2):
            return jax.grad(lambda x: jnp.tanh(jnp.tanh(x @ w1) @ w2).sum())(x)

        return f, [np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))]
    raise ValueError(kind)


def main() -> None:
    print("| function | jvp(f) ms | jvp(traced program) ms |")
    print("|---|---:|---:|")
    for kind in ("rosenbrock", "softmax", "fori_loop", "grad rosenbrock", "grad mlp"):
        direct, traced = [], []
        for _ in range(7):
            f, args = fresh(kind)
            primals, moves = tuple(args), tuple(np.ones_like(a) for a in args)
            closed = jax.make_jaxpr(f)(*args)  # the builder's trace
            program = functools.partial(jax.core.eval_jaxpr, closed.jaxpr, closed.consts)
            t = time.process_time()
            jax.make_jaxpr(functools.partial(jax.jvp, program))(primals, moves)
            traced.append(time.process_time() - t)
            f2, _ = fresh(kind)
            t = time.process_time()
            jax.make_jaxpr(functools.partial(jax.jvp, f2))(primals, moves)
            direct.append(time.process_time() - t)
        print(
            f"| {kind} | {1e3 * statistics.median(direct):.2f} |"
            f" {1e3 * statistics.median(traced):.2f} |"
        )


if __name__ == "__main__":
    main()
