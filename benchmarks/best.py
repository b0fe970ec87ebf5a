"""`best` on the real-world functions against the best of forward, reverse and Markowitz.

Run: python benchmarks/best.py [BUDGET]  (prints two Markdown tables; default budget 20 s).
Ratios are best / min(forward, reverse, Markowitz), in structural multiplications (every
label a general value) and in effective ones (±1 labels free, what generated code does);
`best` minimizes the effective count first. The last column but one is what the exact
vertex search (A* over eliminated sets, within its share of the budget) found and proved:
when it is proven, no vertex elimination order is structurally cheaper. "any accumulation
≥" is the rank bound (dgraph.search.rank_bound): no vertex, edge or face elimination — no
program of sums and products of the local partials — has fewer effective multiplications.

The second table repeats the run on the same functions built with binary granularity
(every n-ary sum and product a chain of two-operand vertices, as an operator-overloading
tape or a jaxpr records them): the graphs of the published elimination-order work.
"""

from __future__ import annotations

import sys
import time

from dgraph.bench.realworld import REAL_WORLD
from dgraph.methods import accumulate
from dgraph.search.rank_bound import ANY_ACCUMULATION


def main(budget: float, binary: bool = False) -> None:
    print(
        "| function | inputs | intermediates | outputs | forward | reverse | markowitz "
        "| best | found by | ratio (structural) | ratio (effective) "
        "| vertex elimination, structural | any accumulation ≥ (effective) | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, build in REAL_WORLD.items():
        g = build(binary=binary)
        base = {m: accumulate(g, m) for m in ("forward", "reverse", "markowitz")}
        t0 = time.perf_counter()
        es = accumulate(g, "best", budget=budget)
        seconds = time.perf_counter() - t0
        structural = es.mults / min(b.mults for b in base.values())
        effective = es.mults_effective / min(b.mults_effective for b in base.values())
        cells = " | ".join(f"{b.mults} / {b.mults_effective}" for b in base.values())
        vertex_best = es.info["candidates"]["vertex-optimal"][0]
        vertex_bound = es.info["lower_bounds"]["vertex elimination"]
        vertex = (
            f"optimum {vertex_best} (proven)"
            if vertex_bound == vertex_best
            else f"{vertex_best} found, ≥ {vertex_bound}"
        )
        print(
            f"| {name} | {len(g.inputs)} | {len(g.intermediates)} | {len(g.outputs)} | {cells} "
            f"| {es.mults} / {es.mults_effective} | {es.info['found_by']} | {structural:.2f} "
            f"| {effective:.2f} | {vertex} | {es.info['lower_bounds'].get(ANY_ACCUMULATION, '-')} "
            f"| {seconds:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    main(seconds)
    print("\nThe same functions with binary granularity (two operands per vertex):\n")
    main(seconds, binary=True)
