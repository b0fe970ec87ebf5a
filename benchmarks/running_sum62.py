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

(``enzyme:jax``: the same program traced in ``jax.numpy``.)

``texts OUT``: a JSON line per build of a set of programs (the Hessian functions of
``hessian_path61.py`` in its Python/JAX variants; NumPy composites' gradients; the two
RK4 programs at 3 and 10 steps in python, jax and c): the text's digest, the main
program's operation counts and the values at the point. ``compare BASE NEW``: how many
digests changed, and for those, the operation counts and the largest value difference
(relative to the largest value)::

    PYTHONPATH=/tmp/base python benchmarks/running_sum62.py texts /tmp/base.jsonl
    PYTHONPATH=. python benchmarks/running_sum62.py texts /tmp/new.jsonl
    python benchmarks/running_sum62.py compare /tmp/base.jsonl /tmp/new.jsonl

Run it with PYTHONPATH at the tree to measure (the base tree for the base counts).
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
from pathlib import Path

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


def _cases():
    """(name, f, point, mode, lang, keywords) of the ``texts`` set."""
    import hessian_path61

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.append(here)
    from tests import test_numpy_composites as nc

    for name, f, point, extra in hessian_path61._functions():
        for mode, lang, sparse, tril in hessian_path61.VARIANTS:
            keywords = dict(extra)
            if mode != "hvp":
                keywords.update(sparse=sparse, tril=tril)
            yield f"{name} {mode} {lang} {sparse:d}{tril:d}", f, point, mode, lang, keywords
    x9 = np.linspace(-0.8, 1.1, 9)
    for name, (f, _) in nc.PAIRS.items():
        yield f"composite {name}", f, [x9], "jacobian", "python", {}
    for name, (f, point) in PROGRAMS.items():
        for steps in (3, 10):
            for lang in ("python", "jax", "c"):
                g = functools.partial(_stepped, f, steps)
                yield f"{name} {steps} {lang}", g, point, "jacobian", lang, {}


def _stepped(f, steps, y0, p):
    return f(y0, p, steps=steps)


def _flat(value) -> list[float]:
    """A build's output at the point as one list of numbers."""
    if isinstance(value, (tuple, list)):
        return [v for x in value for v in _flat(x)]
    if hasattr(value, "toarray"):
        value = value.toarray()
    elif hasattr(value, "todense"):  # JAX's BCOO
        value = value.todense()
    return [float(v) for v in np.ravel(np.asarray(value, dtype=float))]


def _ops(g) -> list[int] | None:
    """The main program's mults, adds, divs and calls (a tensor program's array count)."""
    count = getattr(g, "ops", None)
    if count is None and hasattr(g, "main"):
        count = g.main.ops
    count = getattr(count, "ops", count)
    return None if count is None else [count.mults, count.adds, count.divs, count.calls]


def texts(out: str) -> None:
    """The ``texts`` set built, a JSON line each into ``out``."""
    import hashlib
    import json
    import warnings

    with open(out, "w") as sink:
        for name, f, point, mode, lang, keywords in _cases():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    G = dgraph.make_function(f, mode, lang, point=point, **keywords)
                except Exception as error:  # a refusal is a result too
                    sink.write(json.dumps({"name": name, "refused": str(error)}) + "\n")
                    continue
                args = list(point)
                if mode == "hvp":
                    args.append(np.ones_like(point[0]))
                g = G.generated
                row = {
                    "name": name,
                    "digest": hashlib.sha256(g.text.encode()).hexdigest()[:16],
                    "ops": _ops(g),
                    "lines": len(g.text.splitlines()),
                    "verified": g.verified,
                }
                try:
                    row["values"] = _flat(G(*args))
                except (TypeError, ValueError) as error:  # an output this does not flatten
                    row["values"] = None
                    row["unflattened"] = str(error)
            sink.write(json.dumps(row) + "\n")
            sink.flush()


def compare(base: str, new: str) -> None:
    """Digests changed between two ``texts`` runs; for those, ops and values."""
    import json

    rows = [
        {r["name"]: r for r in map(json.loads, Path(p).read_text().splitlines())}
        for p in (base, new)
    ]
    changed = 0
    for name, b in rows[0].items():
        n = rows[1].get(name)
        if n is None:  # not built by the second run
            continue
        if b.get("digest") == n.get("digest"):
            continue
        changed += 1
        if "refused" in b or "refused" in n:
            print(f"{name}: refused base {'refused' in b} new {'refused' in n}")
            continue
        err = float("nan")
        if b["values"] is not None and n["values"] is not None:
            vb, vn = np.array(b["values"]), np.array(n["values"])
            err = float(np.abs(vb - vn).max() / max(np.abs(vb).max(), 1e-300))
        print(
            f"{name}: ops {b['ops']} -> {n['ops']}, lines {b['lines']} -> {n['lines']}, "
            f"verified {b['verified']} -> {n['verified']}, values differ {err:.1e}"
        )
    print(f"{changed} of {len(rows[0].keys() & rows[1].keys())} texts changed")


def main() -> None:
    """One build per length; a row each, then the exponents of the CPU-s and counts."""
    if sys.argv[1] == "texts":
        return texts(sys.argv[2])
    if sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3])
    name, lang = sys.argv[1], sys.argv[2]
    lengths = [int(s) for s in sys.argv[3].split(",")]
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    f, point = PROGRAMS[name.removesuffix(":jax")]
    xp = np
    if name.endswith(":jax"):  # the same loop traced in JAX (jax.numpy), unrolled
        import jax.numpy as xp
    _count()
    rows = []
    for steps in lengths:
        for key in COUNTS:
            COUNTS[key] = 0
        SEEN.clear()
        start = time.process_time()
        G = dgraph.make_function(
            lambda y0, p, s=steps: f(y0, p, steps=s, xp=xp), "jacobian", lang, point=point
        )
        cpu = time.process_time() - start
        got = np.concatenate([np.asarray(b).reshape(len(point[0]), -1) for b in G(*point)], 1)
        ref = _reference(f, point, steps)  # jax.jacfwd of the jax.numpy version
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
