"""The dense Hessian of a stick-breaking (Dirichlet-process) log-likelihood, as in
``benchmarks/real_programs14.py``: ``make_function(f, "hessian", point=[x])``'s process
CPU-s, one call's, and the process's peak resident memory (session 36: the J·v check's
rows from the left in chunks).

    python benchmarks/stick_breaking_memory.py N [dense|sparse]
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

import dgraph


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 500
    sparse = len(argv) > 1 and argv[1] == "sparse"
    counts = np.random.default_rng(1).integers(1, 6, n).astype(float)

    def f(x):
        v = 1.0 / (1.0 + np.exp(-x))
        rest = np.cumprod(1.0 - v)
        weights = v * np.concatenate([[1.0], rest[:-1]])
        return -np.sum(counts * np.log(weights)) + 0.5 * np.sum(x**2)

    x0 = 0.3 * np.random.default_rng(0).normal(size=n)
    t = time.process_time()
    H = dgraph.make_function(f, "hessian", point=[x0], sparse=sparse)
    built = time.process_time() - t
    t = time.process_time()
    H(x0)
    called = time.process_time() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    kind = "sparse" if sparse else "dense"
    print(f"{n} {kind}: build {built:.2f} s, call {called:.3f} s, peak {peak:.2f} GB")


if __name__ == "__main__":
    main(sys.argv[1:])
