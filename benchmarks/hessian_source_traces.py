"""Session 60 (lib60b): the traces of ``f`` the Hessian's gradient graph makes, and its
CPU time. ``gradient_graph`` traced the same function at the same arguments once for
its output shape, once for its jaxpr, and once more in each rewrite that finds nothing
to rewrite (unrolled sums, stacked determinants, complex pairs); now one trace is read
by all of them. Run with ``PYTHONPATH=<tree> python benchmarks/hessian_source_traces.py``
for the tree under test; prints per function the ``make_jaxpr``/``eval_shape`` calls,
the CPU-s of the first call and the median CPU-s of
:func:`~dgraph.codegen.hessian.hessian_source` again (7 repeats, JAX's caches cleared
before each), and a digest of the gradient graphs' vertices, ops and outputs (equal
across trees: the same graphs)."""

from __future__ import annotations

import hashlib
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

from dgraph.codegen.hessian import hessian_source


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logsum(x):
    return jnp.log(jnp.sum(jnp.exp(jnp.sin(x) * x)))


def rosenbrock_np(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def energy_np(u):  # a small FEM-like assembly: products, sums and a quartic term
    d = u[1:] - u[:-1]
    return np.sum(d**2 + 0.1 * d**4) + np.sum(np.cos(u))


CASES = {
    "rosenbrock (jax, n=50)": (rosenbrock, [np.linspace(0.5, 1.5, 50)]),
    "logsum (jax, n=40)": (logsum, [np.linspace(0.5, 1.5, 40)]),
    "rosenbrock (numpy, n=50)": (rosenbrock_np, [np.linspace(0.5, 1.5, 50)]),
    "energy (numpy, n=60)": (energy_np, [np.linspace(0.5, 1.5, 60)]),
}


def _counted():
    counts = {"make_jaxpr": 0, "eval_shape": 0}
    real_make, real_eval = jax.make_jaxpr, jax.eval_shape

    def make_jaxpr(*a, **k):
        counts["make_jaxpr"] += 1
        return real_make(*a, **k)

    def eval_shape(*a, **k):
        counts["eval_shape"] += 1
        return real_eval(*a, **k)

    jax.make_jaxpr, jax.eval_shape = make_jaxpr, eval_shape
    return counts, (real_make, real_eval)


def main() -> None:
    digest = hashlib.sha256()
    for name, (f, point) in CASES.items():
        counts, real = _counted()
        t = time.process_time()
        src = hessian_source(f, point=point)  # the first call: nothing of f cached
        first = time.process_time() - t
        jax.make_jaxpr, jax.eval_shape = real
        g = src.graph
        for v in g.order():
            digest.update(f"{v}:{g.shape(v)}:{g.op(v)}".encode())
        digest.update(repr(g.outputs).encode())
        times = []
        for _ in range(7):
            jax.clear_caches()  # each a first call: JAX's caches hold the traces otherwise
            t = time.process_time()
            hessian_source(f, point=point)
            times.append(time.process_time() - t)
        print(
            f"{name:28s} make_jaxpr {counts['make_jaxpr']:3d}  eval_shape"
            f" {counts['eval_shape']:2d}  first CPU-s {first:.3f}  again (median)"
            f" {statistics.median(times):.4f}"
        )
    print("graphs", digest.hexdigest()[:16])


if __name__ == "__main__":
    main()
