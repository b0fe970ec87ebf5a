"""The proven lower bound on edge elimination (dgraph.search.edge_bound) on the graphs of
benchmarks/best_alphagrad.py: AlphaGrad's six jaxpr graphs (``every_equation=True``) and
the six sympy graphs of dgraph.bench.realworld, in structural multiplications.

    python benchmarks/edge_bound.py [SECONDS] [BUDGET] [NAME ...]

SECONDS (default 30) is the bracketing program's work budget (its own units: nonzeros,
the same on every machine), BUDGET (default 30) ``best --objective structural``'s. Per
graph: the junction bound on the structure alone and its seconds, the edge bound with the
bracketing program and its seconds (cut at 5 × SECONDS of wall clock, reported as such),
the vertex A*'s bound that ``best`` proves, ``best``'s cheapest vertex or edge
elimination, the gap, and whether the edge optimum is proven. Prints one Markdown table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_functions import FUNCTIONS

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.elimination.metagraph import intermediate_edge_count
from dgraph.elimination.parts import independent_parts
from dgraph.search.best import best
from dgraph.search.edge_bound import edge_elimination_bound, structural
from dgraph.search.junction_bounds import elimination_lower_bound
from dgraph.search.timebox import timeboxed


def graphs():
    for name, (f, args) in FUNCTIONS.items():
        yield (
            f"{name} (jaxpr)",
            lambda f=f, args=args, name=name: dgraph.from_jax(
                f, *args, name=name, every_equation=True
            ),
        )
    for name, build in REAL_WORLD.items():
        yield f"{name} (sympy)", build


def row(label: str, graph, seconds: float, budget: float) -> str:
    parts = independent_parts(graph)
    largest = max(parts, key=lambda p: len(p.intermediates))
    t = time.perf_counter()
    junction = elimination_lower_bound(structural(graph))
    t_junction = time.perf_counter() - t
    t = time.perf_counter()
    found = timeboxed(lambda: edge_elimination_bound(graph, seconds), 5 * seconds)
    t_bound = time.perf_counter() - t
    bound = f"{found.lower_bound}" if found is not None else f"cut at {5 * seconds:g} s"
    t = time.perf_counter()
    es = best(graph, budget=budget, objective="structural")
    t_best = time.perf_counter() - t
    report = es.info["edge_elimination"]
    lower = max(report["lower_bound"], found.lower_bound if found else 0)
    cost = report["cost"]
    vertex = es.info["lower_bounds"].get("vertex elimination")
    proven = "**optimal**" if cost <= lower else f"gap {cost - lower}"
    print(f"  {label}: {lower} .. {cost} ({t_bound:.1f} s)", file=sys.stderr, flush=True)
    return (
        f"| {label} | {len(graph.intermediates)}, {graph.n_edges} | {len(parts)};"
        f" {len(largest.intermediates)}, {intermediate_edge_count(largest)} |"
        f" {junction} ({t_junction:.2f}) | {bound} ({t_bound:.1f}) | {vertex} |"
        f" {cost} ({t_best:.0f}) | {proven} |"
    )


def main(seconds: float, budget: float, names: list[str]) -> None:
    jax.config.update("jax_enable_x64", True)
    lines = [
        "| graph | intermediates, edges | parts; largest (intermediates, intermediate"
        " edges) | junction bound (s) | edge bound (s) | vertex A* bound | best vertex/edge"
        " elimination (s) | edge optimum |",
        "|" + "---|" * 8,
    ]
    for label, build in graphs():
        if names and not any(label.startswith(n) for n in names):
            continue
        print(f"{label} ...", file=sys.stderr, flush=True)
        lines.append(row(label, build(), seconds, budget))
    print("\n".join(lines))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(
        float(arguments[0]) if arguments else 30.0,
        float(arguments[1]) if len(arguments) > 1 else 30.0,
        arguments[2:],
    )
