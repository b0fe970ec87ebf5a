"""Eigenvalues of a nonsymmetric matrix and sqrtm (session 55, eig55): for an n×n matrix,
``make_function(f, "jacobian")``'s build in process CPU seconds and one call's CPU time
(median of several), against ``jax.jit(jax.grad(f))`` (the spectral abscissa) or, for
sqrtm, which JAX does not differentiate, SciPy's Sylvester solutions
(``scipy.linalg.solve_sylvester`` per basis direction), and the largest difference from
the reference relative to its largest entry. Run with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``) on a shared machine.

    python benchmarks/eig_sqrtm.py abscissa 8 16 32
    python benchmarks/eig_sqrtm.py sqrtm 4 8 16
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg

import dgraph

jax.config.update("jax_enable_x64", True)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _call(fn: Callable[[], object], reps: int = 7) -> float:
    """Median CPU seconds of one call."""
    fn()
    times = []
    for _ in range(reps):
        t = _cpu()
        fn()
        times.append(_cpu() - t)
    return statistics.median(times)


def _matrix(n: int) -> np.ndarray:
    """A random nonsymmetric matrix with complex pairs, positive real parts for sqrtm."""
    a = np.random.default_rng(n).standard_normal((n, n)) / np.sqrt(n)
    return a + 2.0 * np.eye(n)


def abscissa(n: int) -> str:
    a = _matrix(n)

    def f(a):
        return jnp.max(jnp.linalg.eigvals(a).real)

    t = _cpu()
    made = dgraph.make_function(f, "jacobian", point=[a])
    build = _cpu() - t
    reference = jax.jit(jax.grad(f))
    got, want = np.asarray(made(a)), np.asarray(reference(a))
    error = np.max(np.abs(got - want)) / np.max(np.abs(want))
    mine, theirs = _call(lambda: made(a)), _call(lambda: reference(a).block_until_ready())
    return (
        f"abscissa n={n}: build {build:.2f} CPU-s, call {mine * 1e3:.3f} ms,"
        f" jax.grad {theirs * 1e3:.3f} ms, error {error:.1e}"
    )


def sqrtm(n: int) -> str:
    a = _matrix(n)
    t = _cpu()
    made = dgraph.make_function(lambda a: scipy.linalg.sqrtm(a), "jacobian", point=[a])
    build = _cpu() - t

    def reference():
        x = np.real(scipy.linalg.sqrtm(a))
        cols = [scipy.linalg.solve_sylvester(x, x, e.reshape(n, n)) for e in np.eye(n * n)]
        return np.stack(cols, axis=-1).reshape(n, n, n, n)

    got, want = np.asarray(made(a)), reference()
    error = np.max(np.abs(got - want)) / np.max(np.abs(want))
    mine, theirs = _call(lambda: made(a), 5), _call(reference, 3)
    return (
        f"sqrtm n={n}: build {build:.2f} CPU-s, call {mine * 1e3:.3f} ms,"
        f" SciPy Sylvester {theirs * 1e3:.3f} ms, error {error:.1e}"
    )


if __name__ == "__main__":
    which = {"abscissa": abscissa, "sqrtm": sqrtm}[sys.argv[1]]
    for size in sys.argv[2:]:
        t = time.time()
        print(which(int(size)), f"({time.time() - t:.0f} s wall)", flush=True)
