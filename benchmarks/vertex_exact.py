"""Proven optimal vertex elimination orders on AlphaGrad's graphs, against its learned
orders (Lohoff & Neftci, NeurIPS 2024) and dgraph's ``best``.

    python benchmarks/vertex_exact.py [SECONDS [EFFECTIVE_SECONDS]] [NAME ...]
    (default 600 s a graph for each model)

The six jaxpr graphs of benchmarks/alphagrad_functions.py (read with
``every_equation=True``, as AlphaGrad counts) and dgraph's six sympy real-world graphs
(dgraph.bench.realworld); NAME picks some. For each: its intermediates (and the largest
independent part); ``best --budget 60 --objective structural``; then, from best's order
(where its winner is one), ``vertex_optimal_search`` with a budget of SECONDS (the A* on
parts of up to 18 intermediates, the CP-SAT model of dgraph.elimination.vertex_exact on
larger ones): the structural optimum proven, or the best order found with its lower
bound and gap; the same in effective multiplications (``effective_optimal_search``, with
a budget of EFFECTIVE_SECONDS, SECONDS when not given); and AlphaGrad's published best of
forward, reverse and Markowitz and its learned order's count. Prints one Markdown table,
a row as each graph finishes (progress on stderr).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_functions import FUNCTIONS, PUBLISHED

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.core.expressions import StepKind
from dgraph.elimination.parts import largest_part
from dgraph.elimination.vertex_exact import available
from dgraph.elimination.vertex_optimal import vertex_optimal_search
from dgraph.errors import SearchTooLarge
from dgraph.search.best import best
from dgraph.search.effective_optimal import effective_optimal_search

BEST_BUDGET = 60.0


def load_graphs(names: list[str] | None = None) -> dict:
    """The twelve graphs by name (jaxpr ones as AlphaGrad names them), or those named, in
    the order named."""
    import jax

    jax.config.update("jax_enable_x64", True)
    graphs = {}
    for name, (f, args) in FUNCTIONS.items():
        if not names or name in names:
            graphs[name] = dgraph.from_jax(f, *args, name=name, every_equation=True)
    for name, build in REAL_WORLD.items():
        if not names or name in names:
            graphs[name] = build()
    return {name: graphs[name] for name in names} if names else graphs


def _claim(result, seconds: float) -> tuple[str, str, str]:
    """(count, seconds, gap) cells of a search result."""
    if result.proven:
        return f"**{result.cost}** (optimal)", f"{seconds:.0f}", "0"
    gap = result.cost - result.lower_bound
    return (
        f"{result.cost} ≥ {result.lower_bound}",
        f"{seconds:.0f}",
        f"{gap} ({gap / result.cost:.0%})",
    )


def _row(name: str, graph, seconds: float, effective_seconds: float) -> str:
    p = len(graph.intermediates)
    print(f"{name}: {p} intermediates, largest part {largest_part(graph)}", file=sys.stderr)
    t0 = time.perf_counter()
    es = best(graph, budget=BEST_BUDGET, objective="structural")
    claim = "optimal" if es.info["proven_optimal"] else f"≥ {es.info['objective_lower_bound']}"
    best_cell = f"{es.mults} ({claim}, {time.perf_counter() - t0:.0f} s)"
    print(f"  best {best_cell}", file=sys.stderr, flush=True)
    # best's winner, where it is a vertex order, is the exact searches' incumbent
    vertex = all(s.op is StepKind.VERTEX for s in es.steps)
    incumbent = [s.target for s in es.steps] if vertex else None
    t0 = time.perf_counter()
    structural = vertex_optimal_search(graph, seconds, incumbent)
    s_cells = _claim(structural, time.perf_counter() - t0)
    print(f"  structural {s_cells}", file=sys.stderr, flush=True)
    order = [v for _, v in structural.moves]
    t0 = time.perf_counter()
    try:
        effective = effective_optimal_search(graph, effective_seconds, order)
        count, took, gap = _claim(effective, time.perf_counter() - t0)
        e_cell = f"{count}, gap {gap}"
    except SearchTooLarge as why:
        took, e_cell = f"{time.perf_counter() - t0:.0f}", f"— ({str(why)[:60]})"
    print(f"  effective {e_cell} {took} s", file=sys.stderr, flush=True)
    published = PUBLISHED.get(name)
    theirs = f"{published[1]} / {published[0]}" if published else "—"
    return (
        f"| {name} | {p} ({largest_part(graph)}) | {s_cells[0]} | {s_cells[1]} | {s_cells[2]}"
        f" | {e_cell} | {took} | {theirs} | {best_cell} |"
    )


def main(seconds: float, effective_seconds: float, names: list[str]) -> None:
    print(f"OR-Tools CP-SAT: {'used' if available() else 'absent (A* only)'}", file=sys.stderr)
    print(
        "| graph | intermediates (largest part) | structural optimum | s | gap"
        " | effective optimum | s | AlphaGrad learned / best of three"
        f" | best --budget {BEST_BUDGET:g} (structural) |"
    )
    print("|" + "---|" * 9, flush=True)
    for name, graph in load_graphs(names).items():
        print(_row(name, graph, seconds, effective_seconds), flush=True)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    numbers = []
    while arguments and arguments[0].replace(".", "", 1).isdigit() and len(numbers) < 2:
        numbers.append(float(arguments.pop(0)))
    seconds = numbers[0] if numbers else 600.0
    main(seconds, numbers[1] if len(numbers) > 1 else seconds, arguments)
