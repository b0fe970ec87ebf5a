"""The value check of generated JAX code (session 63): how many programs XLA compiles and
the CPU-s of ``make_function(..., lang="jax")`` for three element-level functions of
special functions, with the report the check gives (the same before and after a change
to how the check calls the code: its digest is printed).

The check calls the module's functions at batches of many sizes (its points, each
difference quotient's steps, the domain's ladders), and ``jax.jit`` compiles once per
shape; ``dgraph.codegen.check`` now calls them in batches of one size.

Run from a checkout (``PYTHONPATH=.``) and compare two checkouts' output:

    PYTHONPATH=. python benchmarks/jax_check_batches.py
"""

from __future__ import annotations

import hashlib
import os
import time

os.environ.setdefault(  # the test suite's XLA flags (tests/xla_compile.py)
    "XLA_FLAGS",
    "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"
    " --xla_cpu_parallel_codegen_split_count=1",
)

import jax
import numpy as np
import scipy.special as sps

import dgraph
from dgraph.frontends import bundled


def quantiles(p):
    return 2.0 * sps.ndtri(p) + sps.erfcinv(p)


def three(x):
    return sps.exp1(x) + sps.expi(x) + sps.dawsn(x)


CASES = {  # name: (function, kind, point, options)
    "naumann_sin": (bundled("naumann_sin.trace"), "jacobian", None, {}),
    "quantiles": (
        quantiles,
        "value_and_jacobian",
        np.array([1e-12, 1e-20, 1e-100, 0.3, 0.6, 1 - 1e-10]),
        {},
    ),
    "exp1_expi_dawsn": (
        three,
        "value_and_jacobian",
        np.array([0.3, 1.7, 4.0, 0.05]),
        {"method": "paths"},
    ),
}


def main() -> None:
    compiles: list[str] = []

    def listener(name: str, seconds: float, **kwargs) -> None:
        if name.endswith("backend_compile_duration"):
            compiles.append(name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    print(f"{'case':18} {'XLA compiles':>12} {'CPU-s':>7}  check digest")
    for name, (f, kind, point, options) in CASES.items():
        compiles.clear()
        start = time.process_time()
        with jax.enable_x64(True):
            at = {} if point is None else {"point": [point]}
            made = dgraph.make_function(f, kind, lang="jax", **at, **options)
        seconds = time.process_time() - start
        digest = hashlib.sha256(repr(made.generated.check).encode()).hexdigest()[:16]
        print(f"{name:18} {len(compiles):12d} {seconds:7.2f}  {digest}")


if __name__ == "__main__":
    main()
