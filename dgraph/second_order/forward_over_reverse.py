"""Forward-over-reverse: the second-order adjoint every AD tool offers, as the baseline.

A tangent sweep over the adjoint computation, once per Hessian column (Griewank &
Walther, *Evaluating Derivatives*, 2nd ed., ch. 5): on Dixon's Hessian graph, a forward
sweep seeded with one input. A tool's sweep multiplies every edge label by its tail's
tangent, one multiplication per edge (those leaving an input multiply the seed, 1 or 0,
and are free here as in forward elimination): ``info["mults_dense"]`` for ``n`` sweeps,
``info["mults_colored"]`` for one sweep per color, the columns grouped so that no two of
a group share a row of the Hessian's structural pattern (each entry read off directly;
networkx's ``greedy_color``, largest first, on the column intersection graph; a star
coloring, which also uses the symmetry, needs at most as many colors: Gebremedhin, Manne
& Pothen, SIAM Review 47(4), 2005). Skipping the tangents that are structurally zero
leaves, per column ``j``, one multiplication per edge leaving a vertex that ``x_j``
reaches (``info["mults_per_column"]``); summed over the columns that is forward vertex
elimination's count on the graph, whose expression set this method returns.
"""

from __future__ import annotations

import dataclasses

import networkx as nx

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.paths import path_counts
from ..elimination.vertex import vertex_elimination

__all__ = ["coloring", "dense_sweep_cost", "forward_over_reverse", "sweep_cost"]


def sweep_cost(H: DGraph, seeds: set[str]) -> int:
    """Multiplications of one tangent sweep of ``H`` seeded with the inputs ``seeds``,
    structurally zero tangents skipped: one per edge leaving a vertex they reach."""
    reached: set[str] = set()
    for x in seeds:
        reached |= nx.descendants(H.nx, x)
    return sum(H.nx.out_degree(v) for v in reached)


def dense_sweep_cost(H: DGraph) -> int:
    """Multiplications of one tangent sweep of ``H`` as a tool runs it: one per edge that
    does not leave an input."""
    inputs = set(H.inputs)
    return sum(1 for u, _ in H.nx.edges if u not in inputs)


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
    """The Hessian of the graph ``H`` is built from by one tangent sweep per column,
    structurally zero tangents skipped; ``info`` holds the counts of a tool's sweeps,
    one per column and one per color."""
    es = vertex_elimination(H, H.intermediates, "forward-over-reverse")
    colors = coloring(H)
    groups: dict[int, set[str]] = {}
    for x, c in colors.items():
        groups.setdefault(c, set()).add(x)
    sweep = dense_sweep_cost(H)
    info = {
        **es.info,
        "sweeps": len(H.inputs),
        "mults_sweep": sweep,
        "mults_dense": len(H.inputs) * sweep,
        "colors": len(groups),
        "mults_colored": len(groups) * sweep,
        "coloring": "structurally orthogonal columns (networkx greedy_color, largest_first)",
        "mults_per_column": [sweep_cost(H, {x}) for x in H.inputs],
    }
    return dataclasses.replace(es, info=info)
