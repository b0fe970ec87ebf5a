"""Sparse Hessians through sorts: build CPU seconds, per-call time, nonzeros and the
error of H·v against JAX's Hessian-vector product (forward over reverse, jitted).

    python benchmarks/hessian_sorts.py [SIZES ...] [--calls N]

Each function's Hessian is diagonal at every point (the sort's permutation and its
transpose, the scatter-add in JAX's gradient, carry one order: dgraph/blocks/orders.py),
so the exact pattern is n entries; before that, the pattern was the union over
permutations (n² per fibre) and was refused past 5·10⁷ entries (n > 7,071).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def functions(n: int) -> dict:
    import jax.numpy as jnp

    k = max(1, n // 10)
    w = jnp.linspace(0.0, 1.0, n)
    return {
        "weighted sort": lambda x: jnp.sum(jnp.sin(jnp.sort(x)) * w),
        "k largest (CVaR)": lambda x: jnp.sum(jnp.exp(-jnp.sort(-x)[:k])) + 1e-3 * jnp.sum(x**2),
        "take at argsort": lambda x: jnp.sum(x[jnp.argsort(x)] ** 3 * w),
        "trimmed mean": lambda x: jnp.mean(jnp.sort(x)[k:-k] ** 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument(
        "--statistics", action="store_true", help="Jacobians of order statistics instead"
    )
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    if args.statistics:
        order_statistics(dgraph, args.sizes, args.calls)
        return

    print("| function | n | build CPU s | per call s (median) | nnz | rel. error of H·v |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        x = np.random.default_rng(0).normal(size=n)
        v = np.random.default_rng(1).normal(size=n)
        for name, f in functions(n).items():
            start = time.process_time()
            h = dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)
            build = time.process_time() - start
            times = []
            for _ in range(args.calls):
                start = time.perf_counter()
                H = h(x)
                times.append(time.perf_counter() - start)
            hvp = jax.jit(lambda x, v, f=f: jax.jvp(jax.grad(f), (x,), (v,))[1])
            want = np.asarray(hvp(x, v))
            error = np.abs(H @ v - want).max() / np.abs(want).max()
            print(
                f"| {name} | {n} | {build:.2f} | {statistics.median(times):.4f} | {H.nnz} |"
                f" {error:.1e} |"
            )


def order_statistics(dgraph, sizes: list[int], calls: int) -> None:
    """The sparse Jacobian of one order statistic and of the 5 largest: n and 5·n
    entries (the rows the slice keeps, each dense on the sorted axis), values one-hot at
    the stable argsort's positions; before, the sort's n² union was formed (refused past
    5·10⁷ entries, n > 7,071)."""
    import jax.numpy as jnp

    cases = {
        "sort(x)[7]": (lambda x: jnp.sort(x)[7], lambda order: order[[7]]),
        "sort(x)[-5:]": (lambda x: jnp.sort(x)[-5:], lambda order: order[-5:]),
    }
    print("| Jacobian of | n | build CPU s | per call s (median) | nnz | one-hot at argsort |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        x = np.random.default_rng(0).normal(size=n)
        order = np.argsort(x, kind="stable")
        for name, (f, taken) in cases.items():
            start = time.process_time()
            g = dgraph.make_function(f, "jacobian", "python", point=[x], sparse=True)
            build = time.process_time() - start
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                J = g(x)
                times.append(time.perf_counter() - start)
            hit = J.data != 0  # the entries the permutation takes, row by row; the rest zeros
            right = np.array_equal(J.indices[hit], taken(order)) and bool((J.data[hit] == 1).all())
            print(
                f"| {name} | {n} | {build:.2f} | {statistics.median(times):.4f} | {J.nnz} |"
                f" {right} |"
            )


if __name__ == "__main__":
    main()
