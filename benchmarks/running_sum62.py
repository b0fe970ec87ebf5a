"""Session 62 (rksum62): a sum carried over an unrolled loop's steps (the fourth state
of ``benchmarks/unrolled58.py``'s Michaelis–Menten RK4, a running sum of the steps'
increments). One ``make_function(f, "jacobian", lang, point=...)`` build per length
in this process, with the block algebra's sums and scatters counted
(:class:`~dgraph.codegen.tensor.blockops.BlockOps`): the parts of the sums ``add``
builds, the parts ``materialize`` scatters (and of them the ones an earlier
``materialize`` scattered: the same values node), the largest sum scattered; then the
build's CPU-s, the generated program's statements, the error against ``jax.jacfwd``
(relative to the largest entry), and the generated function's CPU-s a call (median of
``calls``)::

    PYTHONPATH=. python benchmarks/running_sum62.py enzyme python 20,40,100 [calls]

Run it with PYTHONPATH at the tree to measure (the base tree for the base counts).
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from unrolled58 import PROGRAMS

import dgraph
from dgraph.codegen.tensor import blockops

COUNTS = {"built": 0, "scattered": 0, "again": 0, "largest": 0}
SEEN: set = set()


def _count() -> None:
    """Wrap ``BlockOps.add`` and ``BlockOps.materialize`` with the counters."""
    add, materialize = blockops.BlockOps.add, blockops.BlockOps.materialize

    def counted_add(self, first, second):
        out = add(self, first, second)
        if out is not None and isinstance(out[1], blockops.Terms):
            COUNTS["built"] += out[1].count
        return out

    def counted_materialize(self, valued, product=False):
        if valued is not None and isinstance(valued[1], blockops.Terms):
            terms = valued[1]
            if not (product and terms.kept is not None):
                parts = [d for _, d in terms.parts]
                COUNTS["scattered"] += len(parts)
                COUNTS["again"] += sum(d in SEEN for d in parts)
                COUNTS["largest"] = max(COUNTS["largest"], len(parts))
                SEEN.update(parts)
        return materialize(self, valued, product)

    blockops.BlockOps.add, blockops.BlockOps.materialize = counted_add, counted_materialize


def _reference(f, point, steps: int) -> np.ndarray:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    blocks = jax.jacfwd(lambda *a: f(*a, steps=steps, xp=jnp), (0, 1))(*point)
    return np.concatenate([np.asarray(b) for b in blocks], 1)


def main() -> None:
    """One build per length; a row each, then the exponents of the CPU-s and counts."""
    name, lang = sys.argv[1], sys.argv[2]
    lengths = [int(s) for s in sys.argv[3].split(",")]
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    f, point = PROGRAMS[name]
    _count()
    rows = []
    for steps in lengths:
        for key in COUNTS:
            COUNTS[key] = 0
        SEEN.clear()
        start = time.process_time()
        G = dgraph.make_function(
            lambda y0, p, s=steps: f(y0, p, steps=s), "jacobian", lang, point=point
        )
        cpu = time.process_time() - start
        got = np.concatenate([np.asarray(b).reshape(len(point[0]), -1) for b in G(*point)], 1)
        ref = _reference(f, point, steps)
        err = float(np.abs(got - ref).max() / np.abs(ref).max())
        per_call = []
        for _ in range(calls):
            t = time.process_time()
            for _ in range(20):
                G(*point)
            per_call.append((time.process_time() - t) / 20)
        call = float(np.median(per_call)) if per_call else float("nan")
        statements = len(G.generated.text.splitlines())
        rows.append((steps, cpu, dict(COUNTS)))
        print(
            f"{name} {lang} {steps}: build {cpu:.2f} CPU-s, lines {statements}, "
            f"built {COUNTS['built']}, scattered {COUNTS['scattered']} "
            f"(again {COUNTS['again']}), largest {COUNTS['largest']}, err {err:.1e}, "
            f"verified {G.generated.verified}, call {call * 1e3:.3f} ms",
            flush=True,
        )
    for key in ("cpu", "built", "scattered"):
        values = [r[1] if key == "cpu" else r[2][key] for r in rows]
        slopes = [
            math.log(values[k + 1] / values[k]) / math.log(lengths[k + 1] / lengths[k])
            for k in range(len(lengths) - 1)
            if values[k] and values[k + 1]
        ]
        print(f"exponents {key}", " ".join(f"{s:.2f}" for s in slopes))


if __name__ == "__main__":
    main()
