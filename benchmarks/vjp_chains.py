"""Per-call CPU time of the minimal surface's ``vjp`` in NumPy and C (session 42: gathers
and scatter-adds composed at generation, ``dgraph/codegen/tensor/gather_chains.py`` and
``scatter_chains.py``).

    python benchmarks/vjp_chains.py [UNKNOWNS] [--reps N]     (default 1e6, 15)

The array-level graph of :func:`hessian_functions.minsurf` read from JAX at the target
size, ``make_function(g, "vjp", lang)``, then the median CPU time of ``--reps`` calls
after the first, in ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str]) -> None:
    import jax
    import numpy as np
    from hessian_functions import PROBLEMS, point, size_for

    import dgraph

    jax.config.update("jax_enable_x64", True)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("unknowns", nargs="?", type=float, default=1e6)
    p.add_argument("--reps", type=int, default=15)
    args = p.parse_args(argv)
    n = size_for("minsurf", args.unknowns)
    x = point("minsurf", n)
    graph = dgraph.from_jax(PROBLEMS["minsurf"], x, level="array")
    for lang in ("python", "c"):
        vjp = dgraph.make_function(graph, "vjp", lang=lang)
        w = np.ones(())
        vjp(x, w)
        times = []
        for _ in range(args.reps):
            start = time.process_time()
            vjp(x, w)
            times.append(time.process_time() - start)
        print(f"{lang}: {x.size} unknowns, median {1e3 * np.median(times):.1f} CPU ms a call")


if __name__ == "__main__":
    main(sys.argv[1:])
