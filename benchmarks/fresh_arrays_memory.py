"""Peak memory of a trace whose loop makes arrays of constants (session 37): 100
iterations of ``np.exp(-np.linspace(0, 1, n) * (i + 1))`` weighting ``x ** 2``, the sparse
Hessian by ``dgraph.hessian``. Fresh arrays (written into as ``np.zeros``'s) must not be
kept to the end of the trace.

    python benchmarks/fresh_arrays_memory.py [n]     # n = 100000 by default
"""

import resource
import sys
import time

import numpy as np

import dgraph


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000

    def f(x):
        s = 0.0
        for i in range(100):
            w = np.exp(-np.linspace(0.0, 1.0, n) * (i + 1))
            s = s + np.sum(w * x**2)
        return s

    x = np.linspace(0.1, 1.0, n)
    start = time.process_time()
    dgraph.hessian(f, x, sparse=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"n {n}  CPU-s {time.process_time() - start:.2f}  peak MB {peak}")


if __name__ == "__main__":
    main()
