"""`best` on the real-world functions against the best of forward, reverse and Markowitz.

Run: python benchmarks/best.py [BUDGET]  (prints two Markdown tables; default budget 20 s).
Ratios are best / min(forward, reverse, Markowitz), in structural multiplications (every
label a general value) and in effective ones (±1 labels free, what generated code does);
`best` minimizes the effective count first. "vertex elimination (structural; effective)"
is what the exact vertex search (A* over eliminated sets, within its share of the budget,
one independent part of the intermediates at a time) found and proved: when it is
proven, no vertex elimination order is structurally cheaper; "effective: best is optimal"
when the effective search (graphs whose parts have at most 14 intermediates) proves the
same of best's effective count.
"any elimination ≥" bounds what any vertex, edge or face elimination pays, indeed every
expression set that forms each path's product once — every dgraph method: the larger of
best's own bounds and the fewest multiplications through which every path can be
bracketed, an integer program HiGHS solves or bounds within BRACKETING_SECONDS
(dgraph.search.junction_bounds, dgraph.search.bracketing_bound); where it equals best,
best is optimal among them, and
"lowest ratio possible" divides it by min(forward, reverse, Markowitz): no elimination
has a lower effective ratio, so above 0.80 the goal is out of reach. "any
accumulation ≥" is the rank bound (dgraph.search.rank_bound): no program of sums and
products of the local partials has fewer effective multiplications.

The second table repeats the run on the same functions built with binary granularity
(every n-ary sum and product a chain of two-operand vertices, as an operator-overloading
tape or a jaxpr records them): the graphs of the published elimination-order work.
"""

from __future__ import annotations

import sys
import time

from dgraph.bench.realworld import REAL_WORLD
from dgraph.methods import accumulate
from dgraph.search.best import ANY_ELIMINATION, EFFECTIVE_VERTEX
from dgraph.search.bracketing_bound import bracketing_lower_bound
from dgraph.search.rank_bound import ANY_ACCUMULATION

BRACKETING_SECONDS = 240.0  # for the bracketing program, beyond best's own budget


def _versus(found: int, bound: int | None) -> str:
    if bound is None:
        return f"{found} found"
    return f"optimum {found} (proven)" if bound == found else f"{found} found, ≥ {bound}"


def main(budget: float, binary: bool = False) -> None:
    print(
        "| function | inputs | intermediates | outputs | forward | reverse | markowitz "
        "| best | found by | ratio (structural) | ratio (effective) "
        "| vertex elimination (structural; effective) | any elimination ≥ (effective) "
        "| lowest ratio possible (any elimination) | any accumulation ≥ (effective) | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, build in REAL_WORLD.items():
        g = build(binary=binary)
        base = {m: accumulate(g, m) for m in ("forward", "reverse", "markowitz")}
        t0 = time.perf_counter()
        es = accumulate(g, "best", budget=budget)
        seconds = time.perf_counter() - t0
        structural = es.mults / min(b.mults for b in base.values())
        baseline = min(b.mults_effective for b in base.values())
        effective = es.mults_effective / baseline
        cells = " | ".join(f"{b.mults} / {b.mults_effective}" for b in base.values())
        candidates, bounds = es.info["candidates"], es.info["lower_bounds"]
        vertex = _versus(candidates["vertex-optimal"][0], bounds.get("vertex elimination"))
        if bounds.get(EFFECTIVE_VERTEX) == es.mults_effective:
            vertex += "; effective: best is optimal"
        elif bounds.get(EFFECTIVE_VERTEX, 0) > bounds.get(ANY_ELIMINATION, 0):
            vertex += f"; effective ≥ {bounds[EFFECTIVE_VERTEX]}"
        floor = bounds.get(ANY_ELIMINATION, 0)
        if floor < es.mults_effective:  # not yet optimal: the program may prove more, given time
            floor = max(floor, bracketing_lower_bound(g, BRACKETING_SECONDS))
        eliminations = f"{floor} (best is optimal)" if floor == es.mults_effective else floor
        lowest = f"{floor / baseline:.2f}"
        if floor > 0.8 * baseline:
            lowest += " (0.80 out of reach)"
        print(
            f"| {name} | {len(g.inputs)} | {len(g.intermediates)} | {len(g.outputs)} | {cells} "
            f"| {es.mults} / {es.mults_effective} | {es.info['found_by']} | {structural:.2f} "
            f"| {effective:.2f} | {vertex} | {eliminations} | {lowest} "
            f"| {bounds.get(ANY_ACCUMULATION, '-')} "
            f"| {seconds:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    main(seconds)
    print("\nThe same functions with binary granularity (two operands per vertex):\n")
    main(seconds, binary=True)
