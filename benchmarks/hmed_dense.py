"""A survey program's sparse Hessian at one size (real_programs5's ``hmed`` cell):
``dgraph.hessian(f, x, sparse=True)`` built and called once, CPU seconds
(``time.process_time``, after a warm-up at the program's small size), peak RSS, nnz and
the largest error against ``jax.hessian``; ``--phases``: the build's CPU seconds by phase
from a cProfile (process_time timer; phases overlap where one calls another).

    python benchmarks/hmed_dense.py NAME N [--phases]
"""

from __future__ import annotations

import cProfile
import os
import pstats
import resource
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import real_programs5 as rp

import dgraph

PHASES = {  # (file under dgraph/, function): the phase it is
    "graph (hessian.checked_source)": ("codegen/hessian.py", "checked_source"),
    "choice + accumulation (function._cheapest)": ("codegen/tensor/function.py", "_cheapest"),
    "expression set's value check (expressions.verify)": ("core/expressions.py", "verify"),
    "codegen (module.tensor_program)": ("codegen/tensor/module.py", "tensor_program"),
    "  cancellation pass (cancel.drop_cancelled)": ("codegen/tensor/cancel.py", "drop_cancelled"),
    "  block products (blockops.multiply)": ("codegen/tensor/blockops.py", "multiply"),
    "code check (check.check_tensor)": ("codegen/tensor/check.py", "check_tensor"),
    "one call H(x)": ("codegen/function.py", "__call__"),
}


def main() -> None:
    name, n = sys.argv[1], int(sys.argv[2])
    build, small, _ = rp.PROGRAMS[name]
    f, xs, _, ref = build(n)
    fs, xss, _, _ = build(small)
    dgraph.hessian(fs, *xss, sparse=True)(xss[0])  # warm-up: imports, JAX's tracing
    profile = cProfile.Profile(time.process_time) if "--phases" in sys.argv else None
    t0 = time.process_time()
    if profile:
        profile.enable()
    H = dgraph.hessian(f, *xs, sparse=True)
    t1 = time.process_time()
    got = H(xs[0])
    t2 = time.process_time()
    if profile:
        profile.disable()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    want = np.asarray(jax.hessian(ref)(jnp.asarray(xs[0])))
    err = np.abs(got.toarray() - want).max() / np.abs(want).max()
    print(
        f"{name} n={n} build={t1 - t0:.2f} call={t2 - t1:.2f} total={t2 - t0:.2f} CPU-s"
        f" rss={rss:.2f}GB nnz={got.nnz} relerr={err:.2e}"
    )
    if profile:
        root = os.path.dirname(dgraph.__file__)
        cumulative: dict = {}
        for (path, _, func), (*_, ct, _) in pstats.Stats(profile).stats.items():
            key = (os.path.relpath(path, root), func)
            cumulative[key] = cumulative.get(key, 0.0) + ct
        for label, key in PHASES.items():
            print(f"  {label:52s} {cumulative.get(key, 0.0):7.2f}")


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    main()
