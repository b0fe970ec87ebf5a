"""CPU seconds and XLA lowerings of element-level JAX modules (``make_function(...,
"jax")`` of a graph of scalars): the build (generation and the value check, which runs
the module), the first call at the user's point and a later call (median of 20), with
the module's functions jitted whole (:data:`dgraph.codegen.jaxcode.JIT_MOST`) or, with
``--eager``, run operation by operation (``JIT_MOST = -1``: the modules before suite33).
One process per side and case: JAX keeps its compiled kernels per process.

    PYTHONPATH=. python benchmarks/element_jit.py CASE [--eager]
    XLA_FLAGS="--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false" \\
        PYTHONPATH=. python benchmarks/element_jit.py CASE [--eager]

(the second with the flags the test suite compiles with, tests/xla_compile.py). CASE:
``spherical`` (the bundled spherical_coordinates.trace), ``sigmoid`` (JAX's
``sigmoid(-x)``, 3 inputs), ``chain`` (a NumPy function of 8 inputs, 6 layers of 10
operations; ``chain2``, ``chain1``: 2 layers, 1).
"""

from __future__ import annotations

import statistics
import sys
import time

import jax
import numpy as np

import dgraph
from dgraph.codegen import jaxcode
from dgraph.frontends import bundled

LOWERED = [0]


def _listen(event: str, seconds: float, **kwargs) -> None:
    if event.endswith("jaxpr_to_mlir_module_duration"):
        LOWERED[0] += 1


def _chain(x, layers=6):
    y = x
    for k in range(layers):
        y = np.sin(y) * np.roll(y, 1) + np.cos(y * (k + 1))
    return y


CASES = {
    "spherical": lambda: (bundled("spherical_coordinates.trace"), None),
    "sigmoid": lambda: (lambda x: jax.nn.sigmoid(-x), [np.array([720.0, 1.0, -800.0])]),
    "chain": lambda: (_chain, [np.linspace(0.1, 0.8, 8)]),
    "chain2": lambda: (lambda x: _chain(x, 2), [np.linspace(0.1, 0.8, 8)]),
    "chain1": lambda: (lambda x: _chain(x, 1), [np.linspace(0.1, 0.8, 8)]),
}


def main() -> None:
    case, eager = sys.argv[1], "--eager" in sys.argv
    if eager:
        jaxcode.JIT_MOST = -1
    jax.monitoring.register_event_duration_secs_listener(_listen)
    source, point = CASES[case]()
    start = time.process_time()
    f = dgraph.make_function(source, "jacobian", "jax", point=point)
    build, built = time.process_time() - start, LOWERED[0]
    x = np.asarray(point[0] if point else np.linspace(0.3, 0.9, len(source.inputs)))
    args = [x] if point is None else [x + 0.125]
    start = time.process_time()
    jax.block_until_ready(f(*args))
    first, called = time.process_time() - start, LOWERED[0] - built
    later = []
    for _ in range(20):
        start = time.process_time()
        jax.block_until_ready(f(*args))
        later.append(time.process_time() - start)
    print(
        f"{case} {'eager' if eager else 'jitted'}: build {build:.3f} ({built} lowered),"
        f" first call {first:.3f} ({called} lowered), later call {statistics.median(later):.5f}"
        f" CPU-s; verified {f.generated.verified}"
    )


if __name__ == "__main__":
    main()
