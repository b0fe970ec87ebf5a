"""Forward-over-reverse: the second-order adjoint every AD tool offers, as the baseline.

A tangent sweep over the adjoint computation, once per Hessian column (Griewank &
Walther, *Evaluating Derivatives*, 2nd ed., ch. 5): on Dixon's Hessian graph, a forward
sweep seeded with one input. Its cost in dgraph's model is, per column ``j``, one
multiplication per edge leaving a vertex that ``x_j`` reaches (the edges leaving ``x_j``
itself multiply by 1); summed over the columns this is forward vertex elimination's count
on the graph, whose expression set this method returns. With the columns grouped by a
coloring of the Hessian's pattern, one sweep per color suffices; ``info`` gives that
count for structurally orthogonal groups (no two columns of a group share a row, so each
entry is read off directly): networkx's ``greedy_color``, largest first, on the column
intersection graph of the structural pattern. A star coloring, which also uses the
symmetry, needs at most as many colors (Gebremedhin, Manne & Pothen, SIAM Review 47(4),
2005), so this colored count is an upper bound on star coloring's.
"""

from __future__ import annotations

import dataclasses

import networkx as nx

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.paths import path_counts
from ..elimination.vertex import vertex_elimination

__all__ = ["coloring", "forward_over_reverse", "sweep_cost"]


def sweep_cost(H: DGraph, seeds: set[str]) -> int:
    """Multiplications of one tangent sweep of ``H`` seeded with the inputs ``seeds``."""
    reached = nx.descendants(H.nx, next(iter(seeds))) if len(seeds) == 1 else set()
    for x in seeds if len(seeds) > 1 else ():
        reached |= nx.descendants(H.nx, x)
    return sum(H.nx.out_degree(v) for v in reached)


def coloring(H: DGraph) -> dict[str, int]:
    """A greedy coloring of the inputs by the Hessian's structural pattern: inputs of one
    color share no row of it."""
    adjacency = nx.Graph()
    adjacency.add_nodes_from(H.inputs)
    rows: dict[str, list[str]] = {}
    for y, x in path_counts(H):
        rows.setdefault(y, []).append(x)
    for columns in rows.values():
        adjacency.add_edges_from((a, b) for k, a in enumerate(columns) for b in columns[k + 1 :])
    return nx.greedy_color(adjacency, strategy="largest_first")


def forward_over_reverse(H: DGraph) -> ExpressionSet:
    """The Hessian of the graph ``H`` is built from by one tangent sweep per column;
    ``info`` holds the sweeps and the count with colored columns."""
    es = vertex_elimination(H, H.intermediates, "forward-over-reverse")
    colors = coloring(H)
    groups: dict[int, set[str]] = {}
    for x, c in colors.items():
        groups.setdefault(c, set()).add(x)
    info = {
        **es.info,
        "sweeps": len(H.inputs),
        "mults_per_sweep": [sweep_cost(H, {x}) for x in H.inputs],
        "colors": len(groups),
        "mults_colored": sum(sweep_cost(H, group) for group in groups.values()),
        "coloring": "structurally orthogonal columns (networkx greedy_color, largest_first)",
    }
    return dataclasses.replace(es, info=info)
