"""Session 46: the dense C ``jacobian`` of a tensor graph (``tensor/c_dense.py``), a 1-D
stencil at n = 1000, 2000, 4000: build CPU-s, call (median of 5), its error against the
NumPy module's dense J: ``python benchmarks/dense_c_jacobian.py``."""

import statistics
import time

import numpy as np

import dgraph


def f(u):
    return np.exp(u[1:-1]) * (u[2:] - 2 * u[1:-1] + u[:-2]) + np.sin(u[1:-1]) ** 2


def main() -> None:
    for n in (1000, 2000, 4000):
        u = np.random.default_rng(0).uniform(0.5, 1.5, n)
        start = time.process_time()
        J = dgraph.make_function(f, "jacobian", "c", point=[u])
        build = time.process_time() - start
        calls = []
        for _ in range(5):
            start = time.process_time()
            J(u)
            calls.append(time.process_time() - start)
        err = np.abs(J(u) - dgraph.make_function(f, "jacobian", "python", point=[u])(u)).max()
        call = statistics.median(calls) * 1e3
        print(f"{n} build {build:.2f} call {call:.2f} ms err {err:.1e}", J.generated.verified)


if __name__ == "__main__":
    main()
