"""Sparse Hessians of loops indexed by their counter: build CPU seconds, nonzeros, the
largest error against ``jax.hessian`` and the growth exponent of the build.

    python benchmarks/hessian_loops.py [SIZES ...]

JAX's gradient of a ``fori_loop`` over ``x[i]`` stacks the counter and writes at it in
its reverse sweep; dgraph reads that counter before the program runs
(``jaxpr_loops._counted_outputs``) and takes the reverse sweep's writes as per-step
selections (``jaxpr_steps``). Their cost is T steps × the gradient's n entries, so the
build grows about as n²; ``STEP_LIMIT`` refuses it in one line past 2·10⁶.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np


def functions() -> dict:
    import jax
    import jax.numpy as jnp

    def chained_rosenbrock(x):
        body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
        return jax.lax.fori_loop(0, x.shape[0] - 1, body, 0.0)

    def window(x):
        body = lambda i, a: a + jnp.sum(jnp.sin(jax.lax.dynamic_slice(x, (i,), (3,)))) * a  # noqa: E731
        return jax.lax.fori_loop(0, x.shape[0] - 2, body, 1e-3)

    return {"chained Rosenbrock, fori_loop": chained_rosenbrock, "window of 3, fori_loop": window}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[30, 100, 300])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    print("| function | n | build CPU s | nnz | jax.hessian nnz | max error / max abs |")
    print("|---|---|---|---|---|---|")
    builds: dict[str, list[tuple[int, float]]] = {}
    for name, f in functions().items():
        for n in args.sizes:
            x = np.linspace(-0.8, 0.9, n)
            start = time.process_time()
            h = dgraph.hessian(f, x, sparse=True)
            built = time.process_time() - start
            got = h(x + 0.01).toarray()
            want = np.asarray(jax.jit(jax.hessian(f))(x + 0.01))
            error = np.abs(got - want).max() / np.abs(want).max()
            nnz = np.count_nonzero(got)
            print(
                f"| {name} | {n} | {built:.2f} | {nnz} | {np.count_nonzero(want)} | {error:.1e} |"
            )
            builds.setdefault(name, []).append((n, built))
    for name, rows in builds.items():
        (n0, t0), (n1, t1) = rows[0], rows[-1]
        print(f"{name}: build grows as n^{math.log(t1 / t0) / math.log(n1 / n0):.2f}")


if __name__ == "__main__":
    main()
