"""CPU seconds and XLA compiles of tests/test_jax_without_x64.py's eight JAX builds of loops
(Hessians by columns and by the loops' sweeps, an hvp, a scan's Jacobian, dense and
sparse), each built with x64 off, called with it off (singles), then on (doubles), then
once more: dense array-level modules jitted whole (``jit_arguments.jitted_whole``), or
with ``--eager`` every body run operation by operation (``JIT_MOST = -1``: the modules
before jaxcheck32). One process per side: JAX's compiled kernels are kept per process.

    XLA_FLAGS="--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false" \\
        PYTHONPATH=. python benchmarks/jit_whole.py [--eager]

(the flags the test suite compiles with, tests/xla_compile.py).
"""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import dgraph
from dgraph.codegen.tensor import function as tensor_function
from dgraph.codegen.tensor import jit_arguments

jax.config.update("jax_enable_x64", True)
COMPILES = [0]


def _listen(event: str, seconds: float, **kwargs) -> None:
    if event.endswith("backend_compile_duration"):
        COMPILES[0] += 1


jax.monitoring.register_event_duration_secs_listener(_listen)
N = 6


def forces(x):
    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
        return c + 0.05 * lax.fori_loop(0, N, force, jnp.zeros(N)), None

    return jnp.sum(lax.scan(step, x, jnp.arange(5))[0] ** 2)


def rows(x):
    return lax.fori_loop(0, 4, lambda i, a: a * jnp.tanh(x[i] * x[i + 1]) + a, 1.0)


def series(x):
    def body(c, xi):
        c = jnp.sin(c) * xi + c
        return c, c

    return lax.scan(body, 0.5, x)[1]


CASES = {
    "forces_hessian_columns": (forces, "hessian", {}),
    "rows_hessian": (rows, "hessian", {}),
    "rows_hessian_sparse": (rows, "hessian", {"sparse": True}),
    "rows_hvp": (rows, "hvp", {}),
    "forces_value_gradient_hessian": (forces, "value_gradient_hessian", {}),
    "series_jacobian": (series, "jacobian", {}),
    "series_jacobian_sparse": (series, "jacobian", {"sparse": True}),
    "forces_hessian_sweeps": (forces, "hessian", {}),
}


def _call(F, kind):
    x, v = np.linspace(-0.4, 0.7, N), np.linspace(1.0, -0.5, N)
    return jax.block_until_ready(F(x, v) if kind == "hvp" else F(x))


def _timed(call) -> str:
    before, start = COMPILES[0], time.process_time()
    value = call()
    return value, f"{time.process_time() - start:5.2f} ({COMPILES[0] - before:3d} c)"


def _case(f, kind: str, options: dict) -> str:
    """One build, its call with x64 off, then two with it on: CPU-s and compiles each."""
    point = (np.linspace(0.1, 1.0, N),)
    with jax.enable_x64(False):
        F, made = _timed(lambda: dgraph.make_function(f, kind, "jax", point=point, **options))
        _, single = _timed(lambda: _call(F, kind))
    with jax.enable_x64(True):
        _, double = _timed(lambda: _call(F, kind))
        _, again = _timed(lambda: _call(F, kind))
    return f"build {made}  singles {single}  doubles {double}  again {again}"


def main(eager: bool) -> None:
    if eager:
        jit_arguments.JIT_MOST = -1
    columns = tensor_function.columns_choice
    start = time.process_time()
    for name, (f, kind, options) in CASES.items():
        sweeps = name == "forces_hessian_sweeps"  # by the loops' own sweeps, not columns
        tensor_function.columns_choice = (lambda graph: None) if sweeps else columns
        print(f"{name:30s} {_case(f, kind, options)}", flush=True)
    print(f"all {time.process_time() - start:.2f} CPU-s")


if __name__ == "__main__":
    main("--eager" in sys.argv[1:])
