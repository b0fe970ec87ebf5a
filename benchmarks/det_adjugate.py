"""CPU-s of ``make_function`` of the Jacobian of ``det`` of an n×n matrix and of one call of
the generated function, at a random (non-singular) matrix: the cost of ``det``'s
derivative as the cofactor matrix ``adj(A)ᵀ`` (an SVD in the generated code, ``det A·A⁻ᵀ``
by one LU in the blocks' values) against Jacobi's ``det A·A⁻ᵀ`` before.

Run from a checkout (``PYTHONPATH`` picks the dgraph measured)::

    PYTHONPATH=. python benchmarks/det_adjugate.py --lang python --sizes 3 10 50

Prints one line per n: the medians of ``--repeats`` builds and of per-call times (each a
loop of calls for at least 0.2 CPU-s)."""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import dgraph


def _det(n: int):
    return lambda a: np.linalg.det(a.reshape(n, n))


def measure(n: int, lang: str, repeats: int) -> tuple[float, float]:
    """Median CPU-s of a build and of a call."""
    a = np.random.default_rng(n).normal(size=n * n)
    builds, calls = [], []
    for _ in range(repeats):
        start = time.process_time()
        fn = dgraph.make_function(_det(n), "jacobian", lang, point=[a])
        builds.append(time.process_time() - start)
        assert fn.generated.verified
        fn(a)
        count, start = 0, time.process_time()
        while time.process_time() - start < 0.2:
            fn(a)
            count += 1
        calls.append((time.process_time() - start) / count)
    return statistics.median(builds), statistics.median(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="python", choices=["python", "jax", "c"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 10, 50])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.lang == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
    for n in args.sizes:
        build, call = measure(n, args.lang, args.repeats)
        print(f"{args.lang} n={n}: make_function {build:.3f} CPU-s, a call {call * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
