"""The cancellation pass's tiered bounds against per-entry bounds everywhere, per
``dgraph.hessian(f, x, sparse=True)`` call (the build, where the pass runs), in one
process: the modes alternate call by call; CPU seconds (``time.process_time``), the
median of ``--calls`` calls each, of the whole build and of the pass alone
(``drop_cancelled`` and ``none_cancel`` in ``dgraph.codegen.tensor.module``), and the
tiers that decided (``Writer.cancel_tiers``) in the last call.

"per-entry" is this code with each point evaluated with per-entry bounds
(:class:`~dgraph.codegen.bounds.Bounded`) and decided by them alone (what the pass did
before the tiers); "tiered" is the pass as it is; with ``--scalar-only`` also
"scalar-only", the tiers with no product's bound per entry at the first tier
(``bounds._SPREAD`` infinite: what the pass did before the spread rule).

    python benchmarks/cancel_tiers.py MODULE:NAME:N [...] [--calls=20] [--scalar-only]

e.g. ``python benchmarks/cancel_tiers.py real_programs5:silu_softplus_bce:1000``.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import statistics
import sys
import time
from collections import Counter
from typing import ClassVar

import numpy as np

import dgraph
from dgraph.codegen import bounds
from dgraph.codegen.tensor import cancel, module


@contextlib.contextmanager
def _per_entry():
    """The pass with per-entry bounds at every point, decided by them alone."""
    at_a_point, narrowed, decided = (
        cancel._at_a_point,
        cancel._narrowed_at_a_point,
        cancel._decided,
    )

    def point(*args, scalar=False, **kwargs):
        return at_a_point(*args, **kwargs)

    def narrowed_point(*args, scalar=False, **kwargs):
        return narrowed(*args, **kwargs)

    def by_own(w, parts, found, bounds, asked, entries, whole, may_defer=False):
        near = cancel._near_zero(parts, found, bounds, asked.size)
        return None if near is None else (near, None, True)

    cancel._at_a_point, cancel._narrowed_at_a_point, cancel._decided = (
        point,
        narrowed_point,
        by_own,
    )
    try:
        yield
    finally:
        cancel._at_a_point, cancel._narrowed_at_a_point, cancel._decided = (
            at_a_point,
            narrowed,
            decided,
        )


@contextlib.contextmanager
def _scalar_only():
    """The tiers with one bound a statement at the first tier everywhere (no product's
    bound per entry: :data:`~dgraph.codegen.bounds._SPREAD` infinite)."""
    spread = bounds._SPREAD
    bounds._SPREAD = math.inf
    try:
        yield
    finally:
        bounds._SPREAD = spread


_MODES = {"per-entry": _per_entry, "tiered": contextlib.nullcontext, "scalar-only": _scalar_only}


class _Timed:
    """The CPU seconds spent in the pass's two entry points of ``module``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        for name in ("drop_cancelled", "none_cancel"):
            setattr(module, name, self._timed(getattr(module, name)))

    def _timed(self, f):
        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return f(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - t0

        return timed


class _Writers(module.Writer):
    made: ClassVar[list] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        _Writers.made.append(self)


def main(argv: list[str]) -> None:
    calls = 20
    cases = []
    modes = ["per-entry", "tiered"]
    for a in argv:
        if a.startswith("--calls="):
            calls = int(a.split("=", 1)[1])
        elif a == "--scalar-only":
            modes.append("scalar-only")
        else:
            mod, name, n = a.split(":")
            cases.append((mod, name, int(n)))
    timer = _Timed()
    module.Writer = _Writers
    others = modes[1:]
    print("| program (n) | per-entry build | "
          + " | ".join(f"{m} build | ratio" for m in others) + " | per-entry pass | "
          + " | ".join(f"{m} pass | ratio" for m in others) + " | tiers |")  # fmt: skip
    print("|---" * (4 + 4 * len(others)) + "|")
    for mod, name, n in cases:
        build = importlib.import_module(mod).PROGRAMS[name][0]
        f, xs, _, _ = build(n)
        dgraph.hessian(f, *xs, sparse=True)  # warm-up: imports, JAX's tracing
        times: dict = {m: ([], []) for m in modes}
        patterns, tiers = {}, {}
        for _ in range(calls):
            for mode in times:
                _Writers.made.clear()
                timer.seconds = 0.0
                with _MODES[mode]():
                    t0 = time.process_time()
                    H = dgraph.hessian(f, *xs, sparse=True)
                    times[mode][0].append(time.process_time() - t0)
                times[mode][1].append(timer.seconds)
                patterns[mode] = H(*xs)
                tiers[mode] = dict(sum((w.cancel_tiers for w in _Writers.made), Counter()))
        a = patterns["per-entry"]
        same = all(
            a.nnz == b.nnz and np.array_equal(a.toarray(), b.toarray()) for b in patterns.values()
        )
        med = {m: (statistics.median(t[0]), statistics.median(t[1])) for m, t in times.items()}
        pb, pp = med["per-entry"]
        builds = " | ".join(f"{med[m][0]:.3f} | {med[m][0] / pb:.2f}" for m in others)
        passes = " | ".join(
            f"{med[m][1]:.3f} | {med[m][1] / pp if pp else float('nan'):.2f}" for m in others
        )
        said = "; ".join(f"{m}: {tiers[m]}" for m in others)
        print(
            f"| {mod} {name} ({n:,}) | {pb:.3f} | {builds} | {pp:.3f} | {passes} | {said}"
            f"{'' if same else ' PATTERNS DIFFER'} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    main(sys.argv[1:])
