"""The programs JAX lowers while dgraph reads and checks small programs with constants and
loops, by where (the reader's folds of constants, a loop's counter part, the value
check's reference, the rest), and the build's CPU seconds: one case per process, so that
no cache of an earlier case counts (prefold31: constants and counters folded by NumPy,
small loops of the reference stepped by NumPy).

    XLA_FLAGS="--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false" \\
        PYTHONPATH=. python benchmarks/prefold_lowerings.py CASE

CASE: weights (a gradient read at the array level: weights from counters, masks and
arithmetic on constants), fori (``make_function`` of a ``fori_loop`` over ``x[i]``'s
Hessian, JAX code, checked), cond (the same with a ``cond`` in the body), rosenbrock.
Prints ``case lowerings fold scan reference other cpu_s``.
"""

from __future__ import annotations

import collections
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

from dgraph import make_function  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402

WHERE: collections.Counter = collections.Counter()


def _listen(event: str, seconds: float, **kwargs) -> None:
    if not event.endswith("jaxpr_to_mlir_module_duration"):
        return
    names = [f.name for f in traceback.extract_stack() if "/dgraph/" in f.filename]
    if any(n in ("prefold", "fold") for n in names):
        WHERE["fold"] += 1
    elif "_constant_scan" in names:
        WHERE["scan"] += 1
    elif "__call__" in names and any(n in ("_compiled", "run", "_eager") for n in names):
        WHERE["reference"] += 1
    else:
        WHERE["other"] += 1


def weights(x):
    k = jnp.arange(x.size)
    w = jnp.where(k % 3 == 0, 2.0, (k + 1) / 7.0) ** 3 - jnp.sqrt(k * 0.5 + 1.0)
    w = jnp.clip(w, -0.5, None) * (k < 5)
    return jnp.sum(w * x**3) + jnp.sum(x[1:] * x[:-1])


def fori(x):
    return lax.fori_loop(0, x.size, lambda i, a: a + jnp.sin(x[i]) * a * x[i], 1.0)


def cond(x):
    def body(i, a):
        return lax.cond(i % 2 == 0, lambda a: a * jnp.tanh(x[i]), lambda a: a + x[i] ** 2, a)

    return lax.fori_loop(0, x.size, body, 0.5)


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def main(case: str) -> None:
    x = np.linspace(-0.9, 1.1, 8)
    jax.monitoring.register_event_duration_secs_listener(_listen)
    start = time.process_time()
    if case == "weights":
        from_jax(jax.grad(weights), x, level="array")
    else:
        f = {"fori": fori, "cond": cond, "rosenbrock": rosenbrock}[case]
        make_function(f, "hessian", "jax", point=[x])
    cpu = time.process_time() - start
    total = sum(WHERE.values())
    parts = " ".join(str(WHERE[k]) for k in ("fold", "scan", "reference", "other"))
    print(f"{case} {total} {parts} {cpu:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
