"""The count of entries held at once (dgraph/codegen/tensor/footprint.py) with and without
its memo per program: CPU seconds of ``tensor_program``'s counts (``_refuse_large``, one
per block) and of the whole ``tensor_program``, for modules of several blocks sharing
their vertex values' statements. The two variants alternate in one process (the memo
dropped by a wrapper that passes none), medians of ``--rounds`` rounds.

    PYTHONPATH=. python benchmarks/footprint_memo.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

from dgraph.codegen.tensor import footprint
from dgraph.codegen.tensor import module as tensor
from dgraph.frontends.jaxpr import from_jax
from dgraph.methods import accumulate


def two_by_two(x, y):
    v = jnp.sin(x * y)
    return v * jnp.exp(x), jnp.cumsum(v + y)


def three_inputs(x, y, z):
    a = jnp.tanh(x * y + z)
    b = jnp.log1p(a**2) * z
    return jnp.sum(a * b), b - x, jnp.cumsum(a * z)


CASES = {
    "2 in, 2 out (n=8)": (two_by_two, 8, 2),
    "2 in, 2 out (n=256)": (two_by_two, 256, 2),
    "3 in, 3 out (n=8)": (three_inputs, 8, 3),
    "3 in, 3 out (n=256)": (three_inputs, 256, 3),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    inner_peak = footprint.peak_entries
    inner_refuse = tensor._refuse_large
    spent = {"refuse": 0.0}

    def refuse(w, valued, *rest):
        t = time.process_time()
        try:
            return inner_refuse(w, valued, *rest)
        finally:
            spent["refuse"] += time.process_time() - t

    tensor._refuse_large = refuse
    with jax.enable_x64(True):
        sets = {}
        for label, (f, n, k) in CASES.items():
            points = [np.linspace(0.2, 0.8, n) + 0.1 * j for j in range(k)]
            sets[label] = accumulate(from_jax(f, *points, level="array"), "forward")
        rows: dict[str, dict[str, list]] = {label: {"memo": [], "none": []} for label in CASES}
        for _ in range(args.rounds):
            for variant in ("none", "memo"):
                footprint.peak_entries = (
                    inner_peak
                    if variant == "memo"
                    else lambda s, shapes, memo=None: inner_peak(s, shapes)
                )
                for label, es in sets.items():
                    spent["refuse"] = 0.0
                    t = time.process_time()
                    tensor.tensor_program(es, "python", sparse=True)
                    whole = time.process_time() - t
                    rows[label][variant].append((spent["refuse"], whole))
    footprint.peak_entries = inner_peak
    print("| module | counts, no memo | counts, memo | ratio | tensor_program, no memo | memo |")
    print("|---|---|---|---|---|---|")
    for label, row in rows.items():
        a = statistics.median(r for r, _ in row["none"])
        b = statistics.median(r for r, _ in row["memo"])
        wa = statistics.median(w for _, w in row["none"])
        wb = statistics.median(w for _, w in row["memo"])
        print(f"| {label} | {a:.4f} | {b:.4f} | {b / a:.2f} | {wa:.3f} | {wb:.3f} |")


if __name__ == "__main__":
    main()
