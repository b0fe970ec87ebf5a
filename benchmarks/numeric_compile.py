"""How the numeric evaluator of a graph grows: dgraph.core.numeric's compile and one
evaluation against one ``lambdify`` per vertex and per edge (what it did before).

    python benchmarks/numeric_compile.py [--sizes 1000,2000,4000,8000,16000]
                                         [--baseline-limit 4000] [--pendulums 4,6]

Graphs: traces of n statements, each reading the two before it through ``*``, ``sin``,
``exp`` or ``-`` (seeded), about 2.2 vertices and 3.2 edges per statement. The partials
are computed first (sympy's ``diff``, the same for both), so the columns time compiling
the values and labels and evaluating them at 4 points. Prints a Markdown table and the
growth exponents (least-squares slope of log seconds over log edges). First, the graphs of
``kane.rhs()`` for ``--pendulums`` links (parameters symbolic): larger expressions per
vertex.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import sympy

from dgraph.bench.pendulum import n_link_pendulum
from dgraph.core.graph import vertex_symbol
from dgraph.core.numeric import edge_values, vertex_values
from dgraph.frontends import from_sympy, from_trace

MODULES = ["scipy", "numpy"]


def trace(n: int) -> str:
    rng = random.Random(0)
    lines, names = ["inputs: x0, x1, x2", "outputs: y"], ["x0", "x1", "x2"]
    shapes = ("{a}*{b}", "sin({a})+{b}", "{a}-{b}*0.5", "exp(-{a}*{a})+{b}")
    for i in range(n):
        lines.append(f"t{i} = " + rng.choice(shapes).format(a=names[-1], b=names[-2]))
        names.append(f"t{i}")
    return "\n".join([*lines, f"y = {names[-1]} + {names[-2]}"])


def per_element(graph, point: np.ndarray, params: np.ndarray | None) -> None:
    """The former evaluator: one ``lambdify`` per vertex and per edge, then one pass."""
    values = {x: point[..., i] for i, x in enumerate(graph.inputs)}
    values.update({q: params[..., k] for k, q in enumerate(graph.parameters)})
    labels = {}
    for v in graph.order():
        preds = [*graph.predecessors(v), *graph.parameters]
        symbols = [vertex_symbol(u) for u in preds]
        if v not in values:
            f = sympy.lambdify(symbols, graph.expr(v), MODULES)
            values[v] = f(*(values[u] for u in preds))
        for u in graph.predecessors(v):
            f = sympy.lambdify(symbols, graph.partial(u, v), MODULES)
            labels[u, v] = f(*(values[w] for w in preds))


def timings(graph, baseline: bool) -> tuple[float, float | None]:
    """Seconds to compile and evaluate now, and one lambdify each (when ``baseline``)."""
    params = np.full((4, len(graph.parameters)), 1.1) if graph.parameters else None
    point = np.random.default_rng(0).uniform(0.1, 0.5, (4, len(graph.inputs)))
    for u, v in graph.edges():
        graph.partial(u, v)  # sympy's diff, outside both timings
    with np.errstate(all="ignore"):
        t0 = time.perf_counter()
        edge_values(graph, vertex_values(graph, point, params))
        now = time.perf_counter() - t0
        if not baseline:
            return now, None
        t0 = time.perf_counter()
        per_element(graph, point, params)
        return now, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    parser.add_argument("--baseline-limit", type=int, default=4000)
    parser.add_argument("--pendulums", default="4,6")
    args = parser.parse_args()
    rows = []
    print("| statements | vertices | edges | now s | one lambdify each s | ratio |")
    print("|---|---|---|---|---|---|")
    for links in (int(t) for t in args.pendulums.split(",") if t):
        p = n_link_pendulum(links)
        graph = from_sympy(p.rhs, p.states, params=p.params)
        now, before = timings(graph, True)
        row = f"{len(graph)} | {graph.n_edges} | {now:.2f} | {before:.2f} | {before / now:.1f}"
        print(f"| {links}-link pendulum | {row} |")
    for n in (int(t) for t in args.sizes.split(",")):
        graph = from_trace(trace(n))
        now, before = timings(graph, n <= args.baseline_limit)
        rows.append((graph.n_edges, now, before))
        cells = [f"{before:.2f}", f"{before / now:.1f}"] if before else ["–", "–"]
        print(f"| {n} | {len(graph)} | {graph.n_edges} | {now:.2f} | {' | '.join(cells)} |")
    for name, k in (("now", 1), ("one lambdify each", 2)):
        points = [(r[0], r[k]) for r in rows if r[k]]
        if len(points) > 1:
            x, y = np.log([e for e, _ in points]), np.log([s for _, s in points])
            print(f"\ngrowth exponent, {name}: {np.polyfit(x, y, 1)[0]:.2f}", end="")
    print()


if __name__ == "__main__":
    main()
