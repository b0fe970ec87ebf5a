"""A time-indexed integer program for optimal edge elimination, measured against the
metagraph's A*: the experiment behind dgraph.search.edge_bound's choice of a bound.

    python benchmarks/edge_milp_probe.py [SECONDS] [NAME ...]   (bundled graphs; default three)

The program (structural count, forward and backward eliminations, Naumann 2004): T steps,
T the cost of a known elimination (every elimination costs at least 1, so an optimal one
has at most T). Per step t and candidate edge (a, b) — a reaches b in the graph — a binary
e_t(a, b), the start fixed to the graph's edges, the last step free of intermediates; per
step at most one move F_t(i, j) (forward, i intermediate) or B_t(i, j) (backward, j
intermediate) on an edge present. Each product is a binary y: forward (i, j) with a
predecessor k of i, y >= F_t(i, j) + e_t(k, i) - 1, creates (k, j); backward (i, j) with
a successor l of j creates (i, l). A vertex whose last out-edge is eliminated forward
loses its in-edges (kF_t(v), linearized against its out-degree), one whose last in-edge
is eliminated backward its out-edges (kB_t(v)). An edge stays unless moved or its vertex
dies, is created by a product, or is absent. Minimize the products. Prints the optimum,
the metagraph's, and the seconds of each.
"""

from __future__ import annotations

import math
import sys
import time

import networkx as nx
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from dgraph.core.graph import DGraph
from dgraph.elimination.metagraph import edge_optimal_search, intermediate_edge_count
from dgraph.frontends import bundled


def edge_milp(graph: DGraph, steps: int, time_limit: float = 600.0) -> tuple[str, float, int]:
    """The optimal edge elimination's cost among sequences of at most ``steps`` moves
    (or what HiGHS proved within ``time_limit``), its seconds, and the variables."""
    g = graph.nx
    inner = set(graph.intermediates)
    pairs = [
        (a, b)
        for a in g
        if graph.role(a) != "output"
        for b in nx.descendants(g, a)
        if graph.role(b) != "input"
    ]
    pair_set = set(pairs)
    succ = {v: [b for a, b in pairs if a == v] for v in g}
    pred = {v: [a for a, b in pairs if b == v] for v in g}
    index: dict[tuple, int] = {}
    rows: list[tuple[dict[int, float], float, float]] = []
    cost: dict[int, float] = {}

    def var(*key) -> int:
        return index.setdefault(key, len(index))

    fixed: dict[int, float] = {}
    for a, b in pairs:
        fixed[var("e", 0, a, b)] = 1.0 if g.has_edge(a, b) else 0.0
        if a in inner or b in inner:
            fixed[var("e", steps, a, b)] = 0.0
    for t in range(steps):
        moves = {}
        for i, j in pairs:
            if i in inner:
                moves[var("F", t, i, j)] = None
                rows.append(({var("F", t, i, j): 1, var("e", t, i, j): -1}, -np.inf, 0))
            if j in inner:
                moves[var("B", t, i, j)] = None
                rows.append(({var("B", t, i, j): 1, var("e", t, i, j): -1}, -np.inf, 0))
        rows.append(({m: 1 for m in moves}, -np.inf, 1))
        created: dict[tuple, list[int]] = {p: [] for p in pairs}
        for v in inner:
            forward = {var("F", t, v, j): 1 for j in succ[v]}
            backward = {var("B", t, i, v): 1 for i in pred[v]}
            outdeg = {var("e", t, v, j): 1 for j in succ[v]}
            indeg = {var("e", t, i, v): 1 for i in pred[v]}
            for kill, moved, degree in (("kF", forward, outdeg), ("kB", backward, indeg)):
                k = var(kill, t, v)
                big = len(degree) + 2
                # k <= moved; k >= 2 moved - degree; k <= 2 - degree + big (1 - moved)
                rows.append(({k: 1, **{m: -1 for m in moved}}, -np.inf, 0))
                rows.append(({k: 1, **{m: -2 for m in moved}, **{e: 1 for e in degree}}, 0, np.inf))
                rows.append(
                    (
                        {k: 1, **{e: 1 for e in degree}, **{m: big for m in moved}},
                        -np.inf,
                        2 + big,
                    )
                )
            for j in succ[v]:  # forward (v, j): each predecessor k of v gains (k, j)
                for k in pred[v]:
                    if (k, j) in pair_set:
                        y = var("y", t, "F", k, v, j)
                        _product(rows, y, var("F", t, v, j), var("e", t, k, v))
                        cost[y] = 1.0
                        created[(k, j)].append(y)
            for i in pred[v]:  # backward (i, v): i gains every successor l of v
                for m in succ[v]:
                    if (i, m) in pair_set:
                        y = var("y", t, "B", i, v, m)
                        _product(rows, y, var("B", t, i, v), var("e", t, v, m))
                        cost[y] = 1.0
                        created[(i, m)].append(y)
        for a, b in pairs:
            now, after = var("e", t, a, b), var("e", t + 1, a, b)
            gone = [
                var(x, t, a, b)
                for x in ("F", "B")
                if (x == "F" and a in inner) or (x == "B" and b in inner)
            ]
            dies = ([var("kF", t, b)] if b in inner else []) + (
                [var("kB", t, a)] if a in inner else []
            )
            # after >= now - moved - dies; after <= now + created; after >= each creation
            rows.append(({after: 1, now: -1, **{x: 1 for x in gone + dies}}, 0, np.inf))
            rows.append(({after: 1, now: -1, **{y: -1 for y in created[(a, b)]}}, -np.inf, 0))
            for x in gone + dies:  # removed this step: not kept (creation never re-adds it)
                rows.append(({after: 1, x: 1}, -np.inf, 1))
            for y in created[(a, b)]:
                rows.append(({after: 1, y: -1}, 0, np.inf))
    n = len(index)
    c = np.zeros(n)
    for i, w in cost.items():
        c[i] = w
    low, high = np.zeros(n), np.ones(n)
    for i, value in fixed.items():
        low[i] = high[i] = value
    cells = [(r, i, a) for r, (row, _, _) in enumerate(rows) for i, a in row.items()]
    r, col, val = zip(*cells, strict=True)
    matrix = coo_matrix((val, (r, col)), shape=(len(rows), n)).tocsr()
    lo = np.array([x for _, x, _ in rows], dtype=float)
    hi = np.array([x for _, _, x in rows], dtype=float)
    t0 = time.perf_counter()
    result = milp(
        c,
        constraints=LinearConstraint(matrix, lo, hi),
        integrality=np.ones(n),
        bounds=Bounds(low, high),
        options={"time_limit": time_limit},
    )
    seconds = time.perf_counter() - t0
    if result.status == 0:
        return str(round(result.fun)), seconds, n
    found = "none" if result.fun is None else round(result.fun)
    bound = getattr(result, "mip_dual_bound", None)
    bound = "?" if bound is None else math.ceil(bound - 1e-6)
    return f"not proven in {time_limit:g} s: {bound} … {found}", seconds, n


def _product(rows: list, y: int, move: int, edge: int) -> None:
    """y = move AND edge."""
    rows.append(({y: 1, move: -1, edge: -1}, -1, np.inf))
    rows.append(({y: 1, move: -1}, -np.inf, 0))
    rows.append(({y: 1, edge: -1}, -np.inf, 0))


def main(limit: float, names: list[str]) -> None:
    print(
        "| graph | intermediate edges | metagraph A* (s) | program: steps, variables"
        " | program's optimum (s) |"
    )
    print("|---|---|---|---|---|")
    for name in names:
        graph = bundled(name)
        t0 = time.perf_counter()
        exact = edge_optimal_search(graph, "full", budget=limit)
        seconds = time.perf_counter() - t0
        found, solve, n = edge_milp(graph, exact.cost, limit)
        proven = "proven" if exact.proven else f"unproven, ≥ {exact.lower_bound}"
        print(
            f"| {name} | {intermediate_edge_count(graph)} | {exact.cost} {proven}"
            f" ({seconds:.1f}) | {exact.cost}, {n} | {found} ({solve:.1f}) |",
            flush=True,
        )


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(
        float(arguments[0]) if arguments else 120.0,
        arguments[1:]
        or ["naumann_sin.trace", "naumann_discrepancy.json", "spherical_coordinates.trace"],
    )
