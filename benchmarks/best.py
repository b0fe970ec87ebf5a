"""`best` on the real-world functions against the best of forward, reverse and Markowitz.

Run: python benchmarks/best.py [BUDGET]  (prints two Markdown tables; default budget 20 s).
Ratios are best / min(forward, reverse, Markowitz), in structural multiplications (every
label a general value) and in effective ones (±1 labels free, what generated code does);
`best` minimizes the effective count first. "vertex elimination, structural" is what the
exact vertex search (A* over eliminated sets, within its share of the budget) found and
proved: when it is proven, no vertex elimination order is structurally cheaper.
"vertex elimination, effective" is the cheapest vertex order any of best's searches
found against the sum of what every vertex costs in any order
(dgraph.search.effective_optimal.effective_vertex_bounds). "any accumulation ≥" is the
rank bound (dgraph.search.rank_bound): no vertex, edge or face elimination — no
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
from dgraph.search.best import EFFECTIVE_VERTEX
from dgraph.search.rank_bound import ANY_ACCUMULATION

# best's candidates that are not vertex orders
NOT_ORDERS = {"layers", "umbrella", "dstar", "zhou", "edge-optimal", "greedy edges", "greedy faces"}


def _versus(found: int, bound: int | None) -> str:
    if bound is None:
        return f"{found} found"
    return f"optimum {found} (proven)" if bound == found else f"{found} found, ≥ {bound}"


def main(budget: float, binary: bool = False) -> None:
    print(
        "| function | inputs | intermediates | outputs | forward | reverse | markowitz "
        "| best | found by | ratio (structural) | ratio (effective) "
        "| vertex elimination, structural | vertex elimination, effective "
        "| any accumulation ≥ (effective) | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, build in REAL_WORLD.items():
        g = build(binary=binary)
        base = {m: accumulate(g, m) for m in ("forward", "reverse", "markowitz")}
        t0 = time.perf_counter()
        es = accumulate(g, "best", budget=budget)
        seconds = time.perf_counter() - t0
        structural = es.mults / min(b.mults for b in base.values())
        effective = es.mults_effective / min(b.mults_effective for b in base.values())
        cells = " | ".join(f"{b.mults} / {b.mults_effective}" for b in base.values())
        candidates, bounds = es.info["candidates"], es.info["lower_bounds"]
        vertex = _versus(candidates["vertex-optimal"][0], bounds.get("vertex elimination"))
        orders = min(e for by, (_, e) in candidates.items() if by not in NOT_ORDERS)
        effective_vertex = _versus(orders, bounds.get(EFFECTIVE_VERTEX))
        print(
            f"| {name} | {len(g.inputs)} | {len(g.intermediates)} | {len(g.outputs)} | {cells} "
            f"| {es.mults} / {es.mults_effective} | {es.info['found_by']} | {structural:.2f} "
            f"| {effective:.2f} | {vertex} | {effective_vertex} "
            f"| {bounds.get(ANY_ACCUMULATION, '-')} "
            f"| {seconds:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    main(seconds)
    print("\nThe same functions with binary granularity (two operands per vertex):\n")
    main(seconds, binary=True)
