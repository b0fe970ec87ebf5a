"""CPU seconds of eight small builds (the tests' kind: dense and sparse JAX and NumPy
Jacobians, a jvp, Hessians), each with its reference's share (``JaxJvp`` calls) and the
programs JAX lowered and compiled during it (``jax.monitoring``), one process, in turn.
The check's costs in question: generated JAX code run eagerly (one program per
operation and shape; running it as one program in the check alone, refcheck30's
``checked_call``, was reverted: an eager caller's first call then paid the compiles,
RESULTS.md; since jaxcheck32 a dense array-level module's functions are jitted whole in
the module itself, so the check and the caller run the one program) and small
references compiled (dgraph/frontends/jaxpr_arrays.py's ``_numpy_cheaper``).

    XLA_FLAGS="--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false" \\
        PYTHONPATH=. python benchmarks/check_builds.py [--call] [name ...]

(the flags the test suite compiles with, tests/xla_compile.py; without them, XLA's own).
``--call``: also the CPU seconds of the made function's first call at the build's point
(what a caller who does not jit it pays next).
"""

from __future__ import annotations

import collections
import functools
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dgraph import from_jax, make_function
from dgraph.frontends import jaxpr_arrays

EVENTS: collections.Counter = collections.Counter()


def _listen(event: str, seconds: float, **kwargs) -> None:
    EVENTS[event.rsplit("/", 1)[-1]] += 1


jax.monitoring.register_event_duration_secs_listener(_listen)
REFERENCE = [0.0]
_call = jaxpr_arrays.JaxJvp.__call__


@functools.wraps(_call)
def _timed(self, *args):
    start = time.process_time()
    try:
        return _call(self, *args)
    finally:
        REFERENCE[0] += time.process_time() - start


jaxpr_arrays.JaxJvp.__call__ = _timed

X0 = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])
W = jnp.arange(6.0)


def _start(x):
    return jnp.argmax(x) // 2


def _scattered(x):
    i = jnp.array([0, 2, 0])
    return jnp.sin(x.at[i].set(x[:3] ** 2)) * jnp.cos(x)


def _layer(x):
    w = jnp.arange(18.0).reshape(3, 6) / 10
    return jnp.tanh(w @ x) * jnp.exp(-x[:3])


def _soft(x):
    return jax.nn.softmax(x) * jnp.log1p(x**2)


def _rosenbrock(x):
    return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _arrays(f):
    return from_jax(f, X0, level="array")


BUILDS = {
    "hess-sort-jax": lambda: make_function(
        lambda x: jnp.sum(jnp.sort(x) * W) + jnp.sum(x**2),
        "hessian",
        "jax",
        point=[X0],
        sparse=True,
    ),
    "hess-window-py": lambda: make_function(
        lambda x: jnp.sum(lax.dynamic_slice(x, (_start(x),), (3,)) ** 3),
        "hessian",
        "python",
        point=[X0],
    ),
    "jac-scat-jax": lambda: make_function(_arrays(_scattered), "jacobian", "jax"),
    "jac-mlp-jax": lambda: make_function(_arrays(_layer), "jacobian", "jax"),
    "jac-soft-py": lambda: make_function(_arrays(_soft), "jacobian", "python"),
    "jvp-mlp-jax": lambda: make_function(_arrays(_layer), "jvp", "jax"),
    "hess-ros-jax": lambda: make_function(_rosenbrock, "hessian", "jax", point=[X0]),
    "vaj-soft-jax": lambda: make_function(_arrays(_soft), "value_and_jacobian", "jax", sparse=True),
}


def main(names: list[str]) -> None:
    call = "--call" in names
    names = [n for n in names if n != "--call"]
    total = time.process_time()
    for name in names or list(BUILDS):
        EVENTS.clear()
        REFERENCE[0] = 0.0
        start = time.process_time()
        made = BUILDS[name]()
        seconds = time.process_time() - start
        lowered, compiled = (
            EVENTS["jaxpr_to_mlir_module_duration"],
            EVENTS["backend_compile_duration"],
        )
        first = ""
        if call:
            start = time.process_time()
            with jax.enable_x64(True):
                args = (X0, X0) if name.startswith("jvp") else (X0,)
                jax.block_until_ready(made(*args))
            first = f"  first call {time.process_time() - start:6.3f}"
        print(
            f"{name:15s} build {seconds:6.3f} CPU-s  reference {REFERENCE[0]:6.3f}"
            f"  lowered {lowered:3d}  compiled {compiled:3d}  {made.generated.check.status}"
            f"{first}",
            flush=True,
        )
    print(f"all {time.process_time() - total:.3f} CPU-s")


if __name__ == "__main__":
    main(sys.argv[1:])
