"""Per call of two generated Hessian modules, interleaved in one process (A/B).

    python benchmarks/module_ab.py A.py B.py PROBLEM SIZE [--reps N]

Loads two module texts (``hessian_phases.py --write``) of the same problem and size,
checks that their ``jacobian`` (the sparse Hessian) returns equal values at the
problem's point, and calls them alternately (A B, then B A, ...) ``--reps`` times each,
printing the median and least CPU (:func:`time.process_time`, all threads) and wall
milliseconds of each: both see the same machine at the same moments; and the minor page
faults a call (``ru_minflt``, both modules' calls together).

``--freed-mb N``: first an array of N MB is made, touched and freed. glibc's malloc then
serves blocks up to that size from its heap and keeps up to twice it when freed (its
dynamic mmap and trim thresholds, raised by the free of an mmapped block under 32 MiB:
N = 16 does it, N = 32 is past it), as in a process that built the module
(``make_function``): without it a fresh process returns a call's temporaries to the
kernel and faults them in again the next call (the minimal surface at 10⁴: some 500
faults, 2 MB, a call, about half its CPU time).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

if "hessian_functions" not in sys.modules:
    sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("problem")
    parser.add_argument("size", type=int)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--freed-mb", type=float, default=0.0, help="see the docstring")
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np
    from hessian_functions import point, size_for, weights

    from dgraph.codegen.python import load_python

    side = size_for(args.problem, args.size)
    x = jnp.asarray(point(args.problem, side).ravel())
    w = weights(args.problem, side)
    call = (x,) if w is None else (x, jnp.asarray(w))
    modules = {k: load_python(Path(f).read_text()) for k, f in (("A", args.a), ("B", args.b))}
    first = {
        k: np.asarray(jax.block_until_ready(m.jacobian(*call)).data) for k, m in modules.items()
    }
    print("values equal:", np.array_equal(first["A"], first["B"]))
    if args.freed_mb:
        block = np.empty(int(args.freed_mb * 2**20) // 8)
        block[::512] = 0.0
        del block
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    cpu: dict[str, list[float]] = {"A": [], "B": []}
    wall: dict[str, list[float]] = {"A": [], "B": []}
    for i in range(args.reps):
        for k in ("A", "B") if i % 2 == 0 else ("B", "A"):
            t, w0 = time.process_time(), time.perf_counter()
            jax.block_until_ready(modules[k].jacobian(*call))
            cpu[k].append(time.process_time() - t)
            wall[k].append(time.perf_counter() - w0)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    print(f"minor page faults a call: {faults / (2 * args.reps):.1f}")
    for k in ("A", "B"):
        print(
            f"{k}: CPU ms median {1e3 * np.median(cpu[k]):.3f} least {1e3 * min(cpu[k]):.3f},"
            f" wall ms median {1e3 * np.median(wall[k]):.3f} least {1e3 * min(wall[k]):.3f}"
        )
    print(
        f"B / A, medians: CPU {np.median(cpu['B']) / np.median(cpu['A']):.3f},"
        f" wall {np.median(wall['B']) / np.median(wall['A']):.3f}"
    )


if __name__ == "__main__":
    main()
