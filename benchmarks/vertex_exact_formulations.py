"""The formulations tried for the exact vertex elimination order (structural model), on
the same graphs and the same per-part limit: the CP-SAT model of
:mod:`dgraph.elimination.vertex_exact` against a mixed-integer program solved by HiGHS
(``scipy.optimize.milp``): a linear ordering (one variable per pair of intermediates,
transitivity on every triple), the filled edges, and one product variable per triple
``(i, v, k)`` (``y >= pred(i, v) + succ(v, k) - 1``, ``fill(i, k) >= y``), the cost their
sum; each part warm-started nowhere (HiGHS' milp takes no start), each pred/succ count at
least its min-cut bound.

    python benchmarks/vertex_exact_formulations.py [SECONDS] [NAME ...]

Prints one Markdown table: per graph and formulation, the cost found, the lower bound,
and seconds (the largest independent part only).
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vertex_exact import load_graphs

from dgraph.elimination.parts import independent_parts
from dgraph.elimination.structure import BitGraph
from dgraph.elimination.vertex import markowitz_order
from dgraph.elimination.vertex_exact import _Paths, exact_vertex_search


def milp_search(graph, seconds: float) -> tuple[int | None, int, float]:
    """(cost found or None, lower bound, seconds) of the HiGHS program on ``graph``."""
    t0 = time.perf_counter()
    paths = _Paths(graph, structural=True)
    names = paths.names
    index = {v: i for i, v in enumerate(names)}
    inner = [index[v] for v in graph.intermediates]
    position = {v: k for k, v in enumerate(inner)}
    columns: dict[tuple, int] = {}

    def col(key: tuple) -> int:
        return columns.setdefault(key, len(columns))

    rows: list[tuple[dict[int, float], float, float]] = []
    edges = {(index[u], index[v]) for u, v in graph.edges()}
    fixed_one = set()
    for pair in paths.general:
        col(("h", *pair))
        if pair in edges:
            fixed_one.add(col(("h", *pair)))

    def before(v: int, u: int) -> tuple[int, float] | None:
        """(column, sign) for 'v before u' (None: always true)."""
        if u not in position:
            return None
        a, b = sorted((v, u), key=position.__getitem__)
        c = col(("b", a, b))  # 1: a before b
        return (c, 1.0) if a == v else (c, -1.0)

    preds = {v: [i for (i, k) in paths.general if k == v] for v in inner}
    succs = {v: [k for (i, k) in paths.general if i == v] for v in inner}

    def at(fill: tuple, v: int, other: int) -> int:
        """A column bounded below by fill and 'v before other'."""
        c = col(("at", *fill, v))
        order = before(v, other)
        coefficients = {c: 1.0, col(("h", *fill)): -1.0}
        low = 0.0
        if order is not None:
            oc, sign = order
            coefficients[oc] = coefficients.get(oc, 0.0) - sign
            low = -1.0 if sign > 0 else 0.0  # at >= h + b - 1, or h + (1 - b) - 1
        rows.append((coefficients, low, np.inf))
        return c

    cuts_in, cuts_out = BitGraph(graph).cuts()
    cost = []
    for v in inner:
        pin = {i: at((i, v), v, i) for i in preds[v]}
        pout = {k: at((v, k), v, k) for k in succs[v]}
        rows.append(({c: 1.0 for c in pin.values()}, float(cuts_in[v]), np.inf))
        rows.append(({c: 1.0 for c in pout.values()}, float(cuts_out[v]), np.inf))
        for i, ci in pin.items():
            for k, ck in pout.items():
                y = col(("y", i, v, k))
                cost.append(y)
                rows.append(({y: 1.0, ci: -1.0, ck: -1.0}, -1.0, np.inf))
                rows.append(({col(("h", i, k)): 1.0, y: -1.0}, 0.0, np.inf))
    for a, b, c in itertools.combinations(inner, 3):  # a linear order: no 3-cycle
        ab, bc, ac = col(("b", a, b)), col(("b", b, c)), col(("b", a, c))
        rows.append(({ab: 1.0, bc: 1.0, ac: -1.0}, -np.inf, 1.0))
        rows.append(({ab: -1.0, bc: -1.0, ac: 1.0}, -np.inf, 0.0))
    n = len(columns)
    data, ri, ci, lo, hi = [], [], [], [], []
    for r, (coefficients, low, high) in enumerate(rows):
        for c, x in coefficients.items():
            ri.append(r)
            ci.append(c)
            data.append(x)
        lo.append(low)
        hi.append(high)
    matrix = coo_matrix((data, (ri, ci)), shape=(len(rows), n)).tocsr()
    objective = np.zeros(n)
    objective[cost] = 1.0
    lower = np.zeros(n)
    lower[list(fixed_one)] = 1.0
    result = milp(
        objective,
        constraints=LinearConstraint(matrix, lo, hi),
        integrality=np.ones(n),
        bounds=Bounds(lower, np.ones(n)),
        options={"time_limit": seconds, "disp": False},
    )
    found = round(result.fun) if result.x is not None else None
    bound = getattr(result, "mip_dual_bound", None)
    bound = int(np.ceil(bound - 1e-6)) if bound is not None else 0
    return found, bound, time.perf_counter() - t0


def main(seconds: float, names: list[str]) -> None:
    graphs = load_graphs(names)
    print(
        "| graph (largest part) | intermediates | CP-SAT: cost, bound, s"
        " | HiGHS MILP: cost, bound, s |"
    )
    print("|---|---|---|---|")
    for name, graph in graphs.items():
        part = independent_parts(graph)[-1]
        p = len(part.intermediates)
        t0 = time.perf_counter()
        r = exact_vertex_search(part, "structural", seconds, markowitz_order(part))
        cp = f"{r.cost}, {r.lower_bound}, {time.perf_counter() - t0:.1f}"
        if p <= 60:
            found, bound, s = milp_search(part, seconds)
            mi = f"{found}, {bound}, {s:.1f}"
        else:
            mi = "— (too large: the ordering's triples)"
        print(f"| {name} | {p} | {cp} | {mi} |", flush=True)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(float(arguments[0]) if arguments else 60.0, arguments[1:])
