"""Causal attention's sparse Jacobian where a product is split into diagonal parts
(session 62, patterns62): stored entries against the true pattern, values against JAX.

Row t of ``softmax(causal(X Wq (X Wk)ᵀ/2)) X Wv`` reads X[:t+1] only: D²·T(T+1)/2 true
entries of (T·D)². Each case is ``dgraph.make_function(f, "jacobian", sparse=True,
method=...)`` of the NumPy program (made once, then timed), called at a point.

    PYTHONPATH=. python benchmarks/split_patterns.py                 # the default cases
    PYTHONPATH=. python benchmarks/split_patterns.py 48:8:forward 64:16:default

Prints one row per case: T, D, method, stored, true, the largest difference from
``jax.jacfwd``, verified, make CPU-s (``time.process_time``).
"""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)

CASES = ["48:8:forward", "48:8:markowitz", "48:8:reverse", "48:8:default", "64:16:default"]


def attention(xp, t: int, d: int):
    """Single-head causal attention of an (t, d) input, the mask by ``triu`` (ml59's)."""
    rng = np.random.default_rng(61)
    wq, wk, wv = (rng.normal(size=(d, d)) for _ in range(3))
    later = np.triu(np.ones((t, t), dtype=bool), k=1)

    def f(X):
        s = xp.where(later, -xp.inf, (X @ wq) @ (X @ wk).T / 2.0)
        e = xp.exp(s - s.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ (X @ wv)

    return f


def run(case: str) -> tuple:
    t, d, method = case.split(":")
    t, d = int(t), int(d)
    x = np.random.default_rng(1).normal(size=(t, d))
    kw = {} if method == "default" else {"method": method}
    start = time.process_time()
    made = dgraph.make_function(attention(np, t, d), "jacobian", point=[x], sparse=True, **kw)
    seconds = time.process_time() - start
    got = made(x)
    ref = np.asarray(jax.jacfwd(attention(jnp, t, d))(jnp.asarray(x))).reshape(t * d, t * d)
    diff = float(np.abs(got.toarray() - ref).max())
    true = d * d * t * (t + 1) // 2
    return t, d, method, got.nnz, true, f"{diff:.1e}", made.generated.verified, round(seconds, 2)


def main(cases: list[str]) -> None:
    print("| T | D | method | stored | true | max diff | verified | make CPU-s |")
    print("|---|---|---|---|---|---|---|---|")
    for case in cases or CASES:
        print("| " + " | ".join(str(c) for c in run(case)) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
