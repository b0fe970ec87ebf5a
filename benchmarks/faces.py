"""Which methods' expression sets face elimination realizes, on the full benchmark suite.

Run: python benchmarks/faces.py  (prints a Markdown table; benchmarks/run.sh records it).
Each cell: "= m" realized with exactly the method's m multiplications; "< s (m)" realized
by face elimination with s < m (the method repeats a product); "> s (m)" acyclic but the
simulation needs more; "cycle" circular elimination dependencies. The check follows no
paths (dgraph.faces.pathfree), so every function of the suite is checked; "-" marks a
method that refused the graph. ``best`` runs with a 2 s budget.
"""

from __future__ import annotations

from dgraph.bench.suite import suite
from dgraph.core.paths import count_paths
from dgraph.errors import SearchTooLarge
from dgraph.faces.realize import check_faces
from dgraph.methods import accumulate

METHODS = ["forward", "reverse", "markowitz", "zhou", "layers", "dstar", "umbrella", "best"]


def cell(graph, method: str) -> str:
    try:
        es = accumulate(graph, method, budget=2)
    except SearchTooLarge:
        return "-"
    check = check_faces(es)
    if not check.acyclic:
        return "cycle"
    if check.simulated_mults == es.mults:
        return f"= {es.mults}"
    sign = "<" if check.simulated_mults < es.mults else ">"
    return f"{sign} {check.simulated_mults} ({es.mults})"


def main() -> None:
    print("| function | paths | " + " | ".join(METHODS) + " |")
    print("|---|---|" + "---|" * len(METHODS))
    for name, build in suite("full").items():
        graph = build()
        n = count_paths(graph)
        cells = [cell(graph, m) for m in METHODS]
        print(f"| {name} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
