"""From a differentiation graph cut into stages to a Jacobian chain problem (Naumann, matrix-free
chaining, §6).

Cuts are vertex sets through the graph: by default Zhou's depth levels, or the sets a
user gives from the outputs down (as ``dgraph accumulate --method layers --cuts``).
Stage i, between cut i-1 and cut i counted from the inputs, is one factor F_i: n_i is the
size of the cut below, m_i of the cut above, |E_i| the edges inside the stage. A value
that skips a cut is passed through it by a copy (a label-1 edge), as Zhou's segmentation
does, so every cut holds the whole state z_i. :func:`dgraph.methods.chain.compare_with_elimination`
sets the chain's optimum beside the elimination methods run on the same graph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.cuts import cut_members, cut_positions
from ..core.graph import DGraph
from .problem import ChainProblem

__all__ = ["Stages", "stages"]


@dataclass(frozen=True)
class Stages:
    """A graph's cuts from the inputs up (``cuts[0]`` the inputs, ``cuts[q]`` the outputs;
    copies named ``vertex@cut``), the edges per stage (factor 1 first) and the copies."""

    cuts: list[list[str]]
    edges: list[int]
    copies: int
    problem: ChainProblem


def stages(graph: DGraph, cuts: Sequence[Sequence[str]] | None = None) -> Stages:
    """The chain problem of ``graph`` cut at its depth levels or at ``cuts`` (outputs down).

    >>> from dgraph.frontends import bundled
    >>> st = stages(bundled("naumann_sin.trace"))
    >>> st.problem.factors, st.copies
    ([(2, 2, 2), (2, 2, 3), (1, 2, 2)], 2)
    """
    position = cut_positions(graph, cuts)
    members = cut_members(graph, position)
    last = len(members) - 1
    inside = [0] * last
    copies: set[tuple[str, int]] = set()
    for u, v in graph.edges():  # data flow: u below v
        stage = math.floor(position[v])
        for c in range(math.ceil(position[u]) - 1, stage, -1):  # cuts the edge jumps
            if (u, c) not in copies:
                copies.add((u, c))
                members[c].append(f"{u}@{last - c}")  # named by its cut from the inputs
                inside[c] += 1
        inside[stage] += 1
    up = members[::-1]  # from the inputs up
    edges = inside[::-1]
    problem = ChainProblem.from_factors(
        [(len(up[i + 1]), len(up[i]), edges[i]) for i in range(last)],
        name=graph.name or "graph",
    )
    return Stages(up, edges, len(copies), problem)
