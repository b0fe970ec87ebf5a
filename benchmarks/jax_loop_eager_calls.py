"""CPU seconds and XLA compiles of each eager call of a generated JAX function with loops:
forces' Hessian by the loops' own sweeps (tests/test_jax_without_x64.py's ``forces``, the
by-columns choice off), x64 off, as most JAX users run.

    PYTHONPATH=. python benchmarks/jax_loop_eager_calls.py [calls]
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

N = 6
compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: (
        compiles.append(event) if event.endswith("backend_compile_duration") else None
    )
)


def forces(x):
    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
        return c + 0.05 * lax.fori_loop(0, N, force, jnp.zeros(N)), None

    return jnp.sum(lax.scan(step, x, jnp.arange(5))[0] ** 2)


def main(calls: int = 4) -> None:
    tensor_function.columns_choice = lambda graph: None
    x = np.linspace(0.3, 1.1, N).astype(np.float32)
    H = dgraph.make_function(forces, "hessian", "jax", point=(x,))
    want = np.asarray(jax.jit(jax.hessian(forces))(x))
    for call in range(calls):
        before, t = len(compiles), time.process_time()
        got = np.asarray(H(x))
        seconds = time.process_time() - t
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)
        print(f"call {call + 1}: {seconds:.2f} CPU-s, {len(compiles) - before} XLA compiles")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
