"""The C values of a sparse Jacobian (:mod:`dgraph.codegen.tensor.c_values`) against the
NumPy module's per call, in one process (issue 42).

    python benchmarks/c_values.py [UNKNOWNS ...]     (default 1e5)

For each residual of :mod:`sparse_functions` at the target size: the array-level graph,
the NumPy sparse ``jacobian`` (``make_function(..., lang="python", sparse=True)``) and the
C one from the same expression set (``lang="c"``); the median of ``--reps`` calls of each
after the first, and max |J_C - J_NumPy| / max |J_NumPy|.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sparse_functions import FUNCTIONS, grid, point, unknowns


def _median(fn, arg, reps: int) -> float:
    import numpy as np

    fn(arg)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(argv: list[str]) -> None:
    import numpy as np

    import dgraph
    from dgraph.frontends import from_jax

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sizes", nargs="*", type=float, default=[1e5])
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.reps}")
    print("| function | unknowns | nnz | NumPy J ms | C J ms | NumPy / C | max rel. diff. |")
    print("|---|---|---|---|---|---|---|")
    for name in FUNCTIONS:
        for target in args.sizes:
            side = grid(name, int(target))
            x = np.asarray(point(name, side))
            g = from_jax(FUNCTIONS[name][0], x, level="array")
            J_np = dgraph.make_function(g, "jacobian", lang="python", sparse=True)
            es = J_np.generated.expression_set
            J_c = dgraph.make_function(es, "jacobian", lang="c", sparse=True)
            a, b = J_np(x), J_c(x)
            diff = abs(a - b).max() / abs(a).max()
            t_np, t_c = _median(J_np, x, args.reps), _median(J_c, x, args.reps)
            print(
                f"| {name} | {unknowns(name, side)} | {a.nnz} | {t_np * 1e3:.2f} |"
                f" {t_c * 1e3:.2f} | {t_np / t_c:.1f} | {diff:.1e} |",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main(sys.argv[1:])
