"""The gradient of ``benchmarks/real_programs3.py``'s ``gp_solve_triangular`` (a GP's
negative log marginal likelihood through ``cholesky`` and ``solve_triangular``) at n
points (2n inputs): ``make_function(f, "jacobian")``'s build in process CPU seconds, one
call's CPU and wall time (medians of many), the module's size and its largest index
array, against ``jax.jit(jax.grad(f))``'s call, and the largest difference from JAX's
gradient (relative to its largest entry). Run with one BLAS thread for both
(``OPENBLAS_NUM_THREADS=1``, ``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false
intra_op_parallelism_threads=1``) on a shared machine. ``--lang=jax``: the JAX module,
called under ``jax.jit`` (its linear algebra by ``jax.scipy.linalg.solve_triangular``).

    python benchmarks/linalg_gradient.py 20 40 60 120 240
    python benchmarks/linalg_gradient.py --lang=jax 60 120 240
"""

from __future__ import annotations

import math
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import real_programs3

import dgraph

jax.config.update("jax_enable_x64", True)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _call(fn: Callable[[], object], reps: int) -> tuple[float, float]:
    """The median wall time of one call and the mean CPU time, over ``reps`` calls."""
    fn()
    walls = []
    start = _cpu()
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
    return statistics.median(walls), (_cpu() - start) / reps


def _largest_index_array(text: str) -> int:
    sizes = [
        math.prod(int(t) for t in m.group(1).split(",") if t.strip())
        for m in re.finditer(r"_array\('[^']*', numpy\.int\d+, \(([\d, ]+)\)", text)
    ]
    return max(sizes, default=0)


def measure(n: int, lang: str = "python") -> str:
    f, xs, _, ref = real_programs3.PROGRAMS["gp_solve_triangular"][0](n)
    start = _cpu()
    made = dgraph.make_function(f, "jacobian", point=list(xs), lang=lang)
    build = _cpu() - start
    reps = 200 if n <= 60 else 40
    x = jnp.asarray(xs[0])
    if lang == "jax":
        jitted = jax.jit(made)
        wall, cpu = _call(lambda: jitted(x).block_until_ready(), reps)
    else:
        wall, cpu = _call(lambda: made(*xs), reps)
    grad = jax.jit(jax.grad(ref))
    want = np.asarray(grad(x))
    jax_wall, jax_cpu = _call(lambda: grad(x).block_until_ready(), reps)
    error = np.abs(np.asarray(made(*xs)) - want).max() / np.abs(want).max()
    return (
        f"{lang} n={n} build={build:.2f} CPU-s call={cpu * 1e3:.3f} ms CPU ({wall * 1e3:.3f} wall)"
        f" jax={jax_cpu * 1e3:.3f} ms CPU ({jax_wall * 1e3:.3f} wall) ratio={cpu / jax_cpu:.1f}"
        f" module={len(made.source)} chars largest index array={_largest_index_array(made.source)}"
        f" mults={made.generated.mults} error={error:.1e}"
    )


if __name__ == "__main__":
    chosen = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--lang=")]
    for size in (a for a in sys.argv[1:] if not a.startswith("--")):
        print(measure(int(size), *chosen), flush=True)
