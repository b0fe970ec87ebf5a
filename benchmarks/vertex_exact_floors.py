"""The CP-SAT vertex model's certificate on the largest independent part of a graph at a
few budgets, from ``best``'s order: how its lower bound rises with deterministic time.

    python benchmarks/vertex_exact_floors.py SECONDS[,SECONDS...] [NAME ...]
    (default 50,200: 5 and 20 units of deterministic time)

The graphs of benchmarks/vertex_exact.py (NAME picks some; default the five whose optimum
the floors of issue 43 were built for). For each: ``best --budget 60 --objective
structural``, its order (a vertex order on these graphs) restricted to the largest part,
then ``exact_vertex_search`` on that part with each budget. Prints one Markdown row a
graph: its intermediates, the start's cost, and ``cost ≥ bound (seconds)`` per budget.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vertex_exact import load_graphs

from dgraph.core.expressions import StepKind
from dgraph.elimination.parts import independent_parts
from dgraph.elimination.vertex_exact import exact_vertex_search, structural_cost
from dgraph.search.best import best

OPEN = ["mlp", "roe-flux", "RoeFlux_1d", "BlackScholes_Jacobian", "g"]


def main(budgets: list[float], names: list[str]) -> None:
    print("| graph | largest part | start | " + " | ".join(f"{b:g} s" for b in budgets) + " |")
    print("|" + "---|" * (3 + len(budgets)), flush=True)
    for name, graph in load_graphs(names or OPEN).items():
        part = max(independent_parts(graph), key=lambda p: len(p.intermediates))
        found = best(graph, budget=60.0, objective="structural")
        inside = set(part.intermediates)
        if all(s.op is StepKind.VERTEX for s in found.steps):
            start = [s.target for s in found.steps if s.target in inside]
        else:
            start = None
        cells = []
        for budget in budgets:
            t0 = time.perf_counter()
            result = exact_vertex_search(part, budget=budget, incumbent=start)
            claim = "optimal" if result.proven else f"≥ {result.lower_bound}"
            cells.append(f"{result.cost} {claim} ({time.perf_counter() - t0:.0f} s)")
        first = structural_cost(part, start) if start else "—"
        print(f"| {name} | {len(inside)} | {first} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    budgets = [50.0, 200.0]
    if arguments and arguments[0].replace(".", "").replace(",", "").isdigit():
        budgets = [float(b) for b in arguments.pop(0).split(",")]
    main(budgets, arguments)
