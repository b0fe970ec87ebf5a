"""A jaxpr as Graphax's graph: one tensor vertex per equation, every equation kept.

AlphaGrad's vertex game (Lohoff & Neftci, NeurIPS 2024) makes every top-level equation of
a jaxpr a vertex — also one no output uses (a ``reduce_max`` feeding ``stop_gradient``)
and one with no input behind it (the ``stop_gradient`` itself) — numbered by its 1-based
index; those numbers are the orders it publishes. :func:`equation_graph` builds that
graph as a tensor :class:`DGraph`: inputs ``x1, x2, ...``, the equations ``v1, v2, ...``,
each computing its :class:`~dgraph.blocks.arrays.ArrayOp`, and each edge carrying Graphax's
sparsity type and 2-D shapes (:mod:`dgraph.blocks.graphax_types`; read by
:func:`dgraph.elimination.graphax_model.graphax_edge`). Such a graph is for counting:
:func:`dgraph.core.activity.live_part` is the valid graph dgraph accumulates and verifies
(the vertices between inputs and outputs; the others folded into the operations that read
them, where no derivative flows).
"""

from __future__ import annotations

from typing import Any

from ..blocks.arrays import ArrayOp, Const
from ..blocks.graphax_types import edge_types
from ..core.graph import DGraph
from ..errors import InputError

__all__ = ["equation_graph"]

# the parameters of an equation an ArrayOp reads (not dtypes, shardings, precisions)
_PARAMS = {
    "dimension_numbers", "axes", "broadcast_dimensions", "new_sizes", "dimensions",
    "start_indices", "limit_indices", "strides", "dimension", "permutation", "y",
}  # fmt: skip


def _param(value: Any) -> Any:
    return tuple(_param(x) for x in value) if isinstance(value, (list, tuple)) else value


def equation_graph(closed: Any, name: str = "") -> DGraph:
    """Graphax's graph of a closed jaxpr (module docstring). An output that another
    equation also reads (Graphax adds a copy vertex for it) and calls are refused."""
    from jax.extend.core import Literal

    jaxpr = closed.jaxpr
    graph = DGraph(name)
    names: dict[Any, str] = {}
    for k, var in enumerate(jaxpr.invars, start=1):
        names[var] = f"x{k}"
        graph.add_array_vertex(f"x{k}", "input", var.aval.shape)
    outputs = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    read = {a for eqn in jaxpr.eqns for a in eqn.invars if not isinstance(a, Literal)}
    for k, eqn in enumerate(jaxpr.eqns, start=1):
        prim, (out,) = eqn.primitive.name, eqn.outvars
        if out in outputs and out in read:
            raise InputError(f"equation {k}: an output that is also read is not supported")
        is_var = [not isinstance(a, Literal) for a in eqn.invars]
        operands = [
            names[a] if v else Const.of(a.val) for a, v in zip(eqn.invars, is_var, strict=True)
        ]
        params = tuple((p, _param(x)) for p, x in eqn.params.items() if p in _PARAMS)
        shape = tuple(out.aval.shape)
        v = names[out] = f"v{k}"
        role = "output" if out in outputs else "intermediate"
        graph.add_array_vertex(v, role, shape, ArrayOp(prim, tuple(operands), params, shape))
        shapes = [tuple(a.aval.shape) for a in eqn.invars]
        edges = {
            operands[p]: e for p, e in edge_types(prim, eqn.params, shapes, is_var, shape).items()
        }
        if set(edges) != set(graph.predecessors(v)):
            raise InputError(f"equation {k} ({prim}): Graphax's edges are not its operands'")
        for u, edge in edges.items():
            graph.nx.edges[u, v]["graphax"] = edge
    return graph
