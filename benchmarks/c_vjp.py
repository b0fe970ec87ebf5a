"""The gradient of an objective as a tensor graph's ``vjp`` in C against the NumPy ``vjp``
and ``jax.jit(jax.grad)``, per call, in one process (session 41).

    python benchmarks/c_vjp.py [UNKNOWNS ...] [--reps N]     (default 1e4 1e5 1e6)

For each objective of :mod:`hessian_functions` (the Lagrangian with its weights as the
cotangent) at the target size: the array-level graph read from JAX, ``make_function(g,
"vjp", lang)`` in python and c (build: wall seconds of generation, compilation and the
check, the reference expression set already made by the NumPy one), and
JAX's jitted gradient; the median of ``--reps`` calls after the first, the ratios, and
max |g_C - g_JAX| / max |g_JAX|.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hessian_functions import PROBLEMS, point, size_for, weights


def _median(fn, reps: int) -> float:
    import numpy as np

    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(argv: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sizes", nargs="*", type=float, default=[1e4, 1e5, 1e6])
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.reps}")
    print(
        "| function | unknowns | C build s (wall) | NumPy vjp ms | C vjp ms | JAX grad ms"
        " | NumPy / C | JAX / C | max rel. diff. |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, f in PROBLEMS.items():
        for target in args.sizes:
            print(_row(name, f, int(target), args.reps))


def _row(name: str, f, target: int, reps: int) -> str:
    import jax
    import numpy as np

    import dgraph
    from dgraph.frontends import from_jax

    side = size_for(name, target)
    x = point(name, side)
    w = weights(name, side)
    w = np.asarray(1.0) if w is None else w
    g = from_jax(f, x, level="array")
    numpy = dgraph.make_function(g, "vjp", "python")
    start = time.perf_counter()
    c = dgraph.make_function(g, "vjp", "c")
    build = time.perf_counter() - start
    grad = jax.jit(lambda x: jax.vjp(f, x)[1](w)[0])
    expected = np.asarray(grad(x))
    diff = float(np.max(np.abs(c(x, w) - expected)) / np.max(np.abs(expected)))
    t_np = _median(lambda: numpy(x, w), reps)
    t_c = _median(lambda: c(x, w), reps)
    t_jax = _median(lambda: grad(x).block_until_ready(), reps)
    return (
        f"| {name} | {x.size:,} | {build:.1f} | {1e3 * t_np:.2f} | {1e3 * t_c:.2f}"
        f" | {1e3 * t_jax:.2f} | {t_np / t_c:.2f} | {t_jax / t_c:.2f} | {diff:.1e} |"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
