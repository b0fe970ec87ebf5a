"""Window sums written as differences of a running sum (CUTEst's CURLY shape,
``cs = cumsum([0, x]); q = cs[min(i + k + 1, n)] - cs[i]``): one sparse Hessian of
``Σ (q² - 20) q² - 0.1 q`` or Jacobian of ``q``, built and called once, its nonzeros
against the true count (the band ``|a - b| ≤ k``: ``n (2k + 1) - k (k + 1)``; the
Jacobian's windows ``(n - k)(k + 1) + k (k + 1) / 2``) and, up to n = 2,000, against
``jax.hessian`` / ``jax.jacfwd``'s entries above 1e-9 of the largest (their rounding
aside) and values.

    python benchmarks/prefix_sums.py hessian|jacobian jax|numpy N K

prints one ``RESULT`` line (CPU seconds of the build and the call). Session 58's runs
(benchmarks/RESULTS.md, "prefix-sum differences") ran it under ``/usr/bin/time -f
"%U %M"`` for the peak memory."""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)


def program(xp, n: int, k: int):
    """``q`` and the objective over ``xp`` (NumPy or jax.numpy)."""
    upper = np.minimum(np.arange(n) + k + 1, n)

    def q(x):
        cs = xp.cumsum(xp.concatenate([xp.zeros(1), x]))
        return cs[upper] - cs[:n]

    def f(x):
        r = q(x)
        return xp.sum((r**2 - 20.0) * r**2 - 0.1 * r)

    return q, f


def main(mode: str, front: str, n: int, k: int) -> None:
    q, f = program(jnp if front == "jax" else np, n, k)
    x = np.linspace(0.1, 1.0, n)
    start = time.process_time()
    try:
        if mode == "hessian":
            M = dgraph.hessian(f, x, sparse=True)(x)
            true = n * (2 * k + 1) - k * (k + 1)
        else:
            M = dgraph.make_function(q, "jacobian", point=[x], sparse=True)(x)
            true = (n - k) * (k + 1) + k * (k + 1) // 2
    except Exception as error:  # the base's refusal, reported
        cpu = time.process_time() - start
        print(f"RESULT {mode} {front} n={n} k={k} REFUSED cpu={cpu:.2f}: {error}"[:300])
        return
    cpu = time.process_time() - start
    extra = ""
    if n <= 2000:
        qj, fj = program(jnp, n, k)
        transform = jax.hessian(fj) if mode == "hessian" else jax.jacfwd(qj)
        R = np.asarray(jax.jit(transform)(jnp.asarray(x)))
        exact = np.count_nonzero(np.abs(R) > 1e-9 * np.abs(R).max())
        error = np.abs(M.toarray() - R).max() / np.abs(R).max()
        extra = f" jaxnnz={exact} relerr={error:.1e}"
    print(f"RESULT {mode} {front} n={n} k={k} nnz={M.nnz} true={true} cpu={cpu:.2f}{extra}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
