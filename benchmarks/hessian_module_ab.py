"""Generated Hessian modules timed against each other and asdex in one process, calls
interleaved by round (issue 55's per-call A/B: main's module text against a branch's).

    python benchmarks/hessian_module_ab.py PROBLEM SIZE REPS ROUNDS SPEC [SPEC ...]

SPEC: ``asdex`` (``jax.jit(asdex.hessian(f, x))``) or the path of a JAX module's text (the
``.text`` of ``make_function(g, "hessian", "jax", point=[x], weights=w,
sparse=True).gradient.generated``, as ``benchmarks/hessian.py`` builds it), optionally
``PATH:function`` (default ``jacobian``; ``jacobian_tril``: the lower triangle). Each
round calls every candidate REPS times in turn; per round it prints the median and least
wall time of a call and the median CPU time (``time.process_time``: every thread's).
Before timing, every result is compared with the first module's (nnz, largest
difference).
"""

from __future__ import annotations

import os
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _matrix(r):
    import numpy as np
    import scipy.sparse as sp

    i = np.asarray(r.indices)
    return sp.coo_matrix((np.asarray(r.data), (i[:, 0], i[:, 1])), shape=r.shape).tocsr()


def main(argv: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np
    from hessian import _flat
    from hessian_functions import size_for

    name, n, reps, rounds = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    side = size_for(name, n)
    _, flat, x, w, _ = _flat(name, side)
    args = (jnp.asarray(x),) if w is None else (jnp.asarray(x), jnp.asarray(w))
    calls = {}
    for spec in argv[4:]:
        if spec == "asdex":
            import asdex

            calls[spec] = jax.jit(asdex.hessian(flat, *args))
            continue
        path, _, function = spec.partition(":")
        module = types.ModuleType("generated")
        exec(compile(Path(path).read_text(), path, "exec"), module.__dict__)
        calls[spec] = getattr(module, function or "jacobian")
    first = None
    for spec, fn in calls.items():
        m = _matrix(jax.block_until_ready(fn(*args)))
        if first is None:
            first = (spec, m)
        elif m.shape == first[1].shape:
            print(f"# {spec} against {first[0]}: nnz {m.nnz} / {first[1].nnz},"
                  f" largest difference {abs(m - first[1]).max()}")  # fmt: skip
    found: dict[str, list] = {k: [] for k in calls}
    for _ in range(rounds):
        for spec, fn in calls.items():
            wall, cpu = [], []
            for _ in range(reps):
                c, t = time.process_time(), time.perf_counter()
                jax.block_until_ready(fn(*args))
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            found[spec].append((np.median(wall), min(wall), np.median(cpu)))
    print("load", os.getloadavg())
    for spec, rows in found.items():
        cells = "  ".join(f"{m * 1e3:.3f} ({q * 1e3:.3f}; cpu {c * 1e3:.3f})" for m, q, c in rows)
        print(f"{spec:50s} {cells}")


if __name__ == "__main__":
    main(sys.argv[1:])
