"""Sparse Hessians of scans whose body blocks are dense (filled at or above
``loop_blocks.SPARSE_BELOW``): each step multiplies the block by the tangent matrix, in
NumPy and JAX by ``einsum`` (BLAS), in C by ``dgraph_matmul``. Build CPU-s (this
process's, and the C compiler's beside them), per call CPU-s, peak resident memory and
the largest error against ``jax.hessian``; one program, size and target per process.

    python benchmarks/dense_loop_blocks.py [--lang=python|jax|c] [--calls=K] PROGRAM N

Programs: ``rnn`` (``h ← tanh(W·h + x)`` for ``STEPS`` steps from h = 0, W a fixed random
n × n matrix scaled by 1/√n, Σ h²: every body block n × n and full) and ``kicks``
(``region_body_maps.kicks``: ``c ← c + 0.01·Σ_j sin(x_j c_j)·x`` by a ``fori_loop`` in
each of ``STEPS`` scan steps: a rank-one dense step). A call's CPU-s include JAX's and
BLAS's threads (``jax.block_until_ready``); the first call is not timed. The reference is
``jax.jit(jax.hessian(f))``, below 300 unknowns also ``jax.jit(jax.jacfwd(jax.jacfwd(f)))``.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from region_body_maps import kicks  # noqa: E402
from while_hessian import _dense, built  # noqa: E402

STEPS = 3


def rnn(n: int):
    W = jnp.asarray(np.random.default_rng(0).normal(size=(n, n)) / np.sqrt(n))

    def f(x):
        body = lambda h, _: (jnp.tanh(W @ h + x), None)  # noqa: E731
        return jnp.sum(lax.scan(body, jnp.zeros(n), None, length=STEPS)[0] ** 2)

    return f


def softmax(n: int):
    def f(x):
        body = lambda c, _: (jax.nn.softmax(c * x + x), None)  # noqa: E731
        return jnp.sum(lax.scan(body, jnp.ones(n) / n, None, length=STEPS)[0] ** 2)

    return f


PROGRAMS = {"rnn": rnn, "kicks": lambda n: kicks(n, STEPS), "softmax": softmax}


def main(argv: list[str]) -> None:
    options = {"lang": "python", "calls": "5"}
    rest = []
    for a in argv:
        if a.startswith("--") and "=" in a:
            key, value = a[2:].split("=", 1)
            options[key] = value
        else:
            rest.append(a)
    name, n = rest[0], int(rest[1])
    lang, calls = options["lang"], int(options["calls"])
    f = PROGRAMS[name](n)
    x = np.linspace(-0.9, 0.8, n)
    print(f"dgraph from {Path(dgraph.__file__).parent}; {name} n={n} lang={lang}")
    made = built(f, lang, x)
    if made is None:
        return
    h, build, compiler = made
    jax.block_until_ready(h(x))
    took = []
    for _ in range(calls):
        t = time.process_time()
        jax.block_until_ready(h(x))  # JAX's call returns before its work is done
        took.append(time.process_time() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the references
    errors = []
    point = x + 0.05
    got = _dense(h(point))
    references = [jax.hessian(f)] + ([jax.jacfwd(jax.jacfwd(f))] if n < 300 else [])
    for reference in references:
        want = np.asarray(jax.jit(reference)(point))
        errors.append(float(np.abs(got - want).max() / np.abs(want).max()))
    print(
        f"nnz {np.count_nonzero(got)}; build {build:.2f} CPU-s (+{compiler:.2f} in child"
        f" processes); per call {statistics.median(took) * 1e3:.2f} ms CPU (median of"
        f" {calls}); peak {peak:.0f} MB; verified {h.generated.verified};"
        f" max rel error {max(errors):.1e}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
