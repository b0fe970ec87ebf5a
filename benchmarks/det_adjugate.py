"""CPU-s of ``make_function`` of the Jacobian of ``det`` of an n×n matrix and of one call of
the generated function, at a random (non-singular) matrix: the cost of ``det``'s
derivative as the cofactor matrix ``adj(A)ᵀ`` (an SVD in the generated code, ``det A·A⁻ᵀ``
by one LU in the blocks' values) against Jacobi's ``det A·A⁻ᵀ`` before.

Run from a checkout (``PYTHONPATH`` picks the dgraph measured)::

    PYTHONPATH=. python benchmarks/det_adjugate.py --lang python --sizes 3 10 50

Prints one line per n: the medians over ``--repeats`` fresh processes (no build cached) of
the build's CPU-s and of a call's (a loop of calls for at least 0.2 CPU-s)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

import dgraph


def _det(n: int):
    return lambda a: np.linalg.det(a.reshape(n, n))


def measure(n: int, lang: str) -> tuple[float, float]:
    """CPU-s of one build and of one call (this process)."""
    a = np.random.default_rng(n).normal(size=n * n)
    start = time.process_time()
    fn = dgraph.make_function(_det(n), "jacobian", lang, point=[a])
    build = time.process_time() - start
    assert fn.generated.verified
    fn(a)
    count, start = 0, time.process_time()
    while time.process_time() - start < 0.2:
        fn(a)
        count += 1
    return build, (time.process_time() - start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="python", choices=["python", "jax", "c"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 10, 50])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", type=int, help="measure this n once, in this process")
    args = parser.parse_args()
    if args.lang == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
    if args.one is not None:
        print(*measure(args.one, args.lang))
        return
    for n in args.sizes:
        runs = []
        for _ in range(args.repeats):
            command = [sys.executable, "-W", "ignore", __file__, "--lang", args.lang]
            done = subprocess.run([*command, "--one", str(n)], capture_output=True, text=True)
            runs.append(tuple(map(float, done.stdout.split()[-2:])))
        build = statistics.median(r[0] for r in runs)
        call = statistics.median(r[1] for r in runs)
        print(f"{args.lang} n={n}: make_function {build:.3f} CPU-s, a call {call * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
