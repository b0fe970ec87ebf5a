"""CPU seconds of single builds the default build path made cheaper in session 30
(benchmarks/RESULTS.md, "build30"): Hessians by columns of the tangent program (one NumPy
``jvp`` sweep built, not two: dgraph/codegen/tensor/jacobian_columns.py) and tensor
Hessians whose array program is counted only when ``generated.ops`` is read
(dgraph/codegen/tensor/function.py). One line: each build's ``time.process_time``
seconds (after a warm-up build) and the md5 of each generated text (the same on both
sides of an A/B run).

    python benchmarks/build_once.py REPO columns|tensor

``REPO``: the checkout whose dgraph is imported (an A/B run alternates two).
"""

from __future__ import annotations

import hashlib
import sys
import time

repo, which = sys.argv[1], sys.argv[2]
sys.path.insert(0, repo)
sys.path.insert(0, f"{repo}/benchmarks")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)

import hessian_functions as hf  # noqa: E402

import dgraph  # noqa: E402

N, STEPS = 6, 5


def kicks(x):
    def step(c, t):
        kick = lambda j, a: a + jnp.sin(x[j] * c[j]) * x  # noqa: E731
        return c + 0.01 * jax.lax.fori_loop(0, N, kick, jnp.zeros(N)), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(STEPS))[0] ** 2)


def forces(x):
    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
        return c + 0.05 * jax.lax.fori_loop(0, N, force, jnp.zeros(N)), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(STEPS))[0] ** 2)


def series(x):
    def body(c, xi):
        c = jnp.sin(c) * xi + c
        return c, c

    return jnp.sum(jax.lax.scan(body, 0.5, x)[1] ** 2)


def products(x):
    return jnp.sum(jnp.exp(x[2:]) * x[:-2] * x[1:-1])


X = np.linspace(0.1, 1.0, N)
CASES = {
    "columns": [("kicks", kicks, X, False), ("forces", forces, X, False)],
    "tensor": [
        ("rosenbrock", hf.rosenbrock, hf.point("rosenbrock", 50), True),
        ("minsurf", hf.minsurf, hf.point("minsurf", 6), True),
        ("products", products, np.linspace(0.1, 1, 20), False),
        ("series", series, np.linspace(0.1, 1, 6), False),
    ],
}  # fmt: skip

dgraph.make_function(lambda x: jnp.sum(jnp.sin(x)), "hessian", "python", point=(np.ones(3),))
seconds, texts = [], []
for _, f, x, sparse in CASES[which]:
    t = time.process_time()
    H = dgraph.make_function(f, "hessian", "python", point=(x,), sparse=sparse)
    seconds.append(time.process_time() - t)
    texts.append(hashlib.md5(H.gradient.generated.text.encode()).hexdigest()[:8])
names = [name for name, *_ in CASES[which]]
timed = " ".join(f"{n} {s:.3f}" for n, s in zip(names, seconds, strict=True))
print(timed, f"sum {sum(seconds):.3f}")
print("texts", *texts)
