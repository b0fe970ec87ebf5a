"""How structure analysis and D* grow with graph size, and whether ``best`` keeps its
budget as graphs grow, on random layered graphs.

Run: python benchmarks/scale.py  (prints Markdown tables; benchmarks/run.sh records them).
Layered graphs have 3 edges into every vertex; the structure runs use a whole level of
inputs and outputs, the D* runs 4 inputs and 4 outputs (16 root-leaf pairs) or, at 1k
edges, a whole level (900 pairs).
"""

from __future__ import annotations

import time

from dgraph.core.random_graphs import random_layered
from dgraph.dominance.dstar import dstar
from dgraph.methods.structure import structure
from dgraph.search.best import best

CASES = [
    ("structure", 11, 30, 3, None),
    ("structure", 34, 100, 3, None),
    ("structure", 100, 340, 3, None),
    ("dstar", 11, 30, 3, 4),
    ("dstar", 11, 30, 3, None),
    ("dstar", 34, 100, 3, 4),
]

BEST_BUDGET = 2.0  # seconds
BEST_CASES = [(5, 10), (10, 10), (20, 20), (30, 30)]  # layers x width, one level in and out


def main() -> None:
    print(
        "| task | edges | inputs x outputs | seconds | microseconds per edge |"
    )  # dstar: + verify
    print("|---|---|---|---|---|")
    for task, layers, width, degree, ends in CASES:
        g = random_layered(0, layers, width, degree, ends)
        t0 = time.perf_counter()
        if task == "structure":
            structure(g)
        else:
            es = dstar(g)
            es.verify()  # the result is checked too, as every result is
            task = f"dstar ({es.info['organization']})"
        seconds = time.perf_counter() - t0
        shape = f"{len(g.inputs)} x {len(g.outputs)}"
        per_edge = 1e6 * seconds / g.n_edges
        print(f"| {task} | {g.n_edges} | {shape} | {seconds:.2f} | {per_edge:.0f} |", flush=True)
    budget_table()


def budget_table() -> None:
    """``best`` with a fixed budget: its wall time, the winner built and verified."""
    print()
    print(f"| best, budget {BEST_BUDGET:g} s | intermediates | edges | seconds | found by | note |")
    print("|---|---|---|---|---|---|")
    for layers, width in BEST_CASES:
        g = random_layered(1, layers, width)
        t0 = time.perf_counter()
        es = best(g, BEST_BUDGET)
        seconds = time.perf_counter() - t0
        assert es.verified
        note = es.info.get("budget_note", "")
        print(
            f"| {layers} x {width} | {len(g.intermediates)} | {g.n_edges} | {seconds:.2f} "
            f"| {es.info['found_by']} | {note} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
