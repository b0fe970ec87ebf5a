"""Second order: the Hessian methods, accumulations of the Hessian on Dixon's Hessian
graph (:func:`dgraph.core.hessian_graph.hessian_graph`), each an expression set of its Jacobian
(entries ``(x̄_i, x_j)``) verified like any other. Edge pushing and symmetric elimination
give the lower triangle ``i ≥ j`` by default (``info["triangle"] == "lower"``: the
consumer mirrors it); forward-over-reverse, like the tools, every column in full. Their
multiplications are counted as written (every product the set spells, which Bauer's
formula checks: ``mults``; the whole elimination: ``info["mults_written"]``) and with
each mirrored pair of products counted once (``info["mults_symmetric"]``), the count of
the papers, which share the values that the graph's symmetry makes equal.

The package is not called ``hessian``: ``dgraph.hessian`` is the function that returns a
generated Hessian (as ``jax.hessian`` does), and a subpackage of that name would take its
place as an attribute of ``dgraph`` once imported."""

from .bound import HESSIAN_BOUND_FOR, hessian_lower_bound
from .edge_pushing import edge_pushing
from .forward_over_reverse import forward_over_reverse
from .pairs import PairCount, pair_count, pair_units
from .symmetric import symmetric, symmetric_order
from .triangle import lower_triangle

HESSIAN_METHODS = {
    "forward-over-reverse": forward_over_reverse,
    "edge-pushing": edge_pushing,
    "symmetric": symmetric,
}

__all__ = [
    "HESSIAN_BOUND_FOR",
    "HESSIAN_METHODS",
    "PairCount",
    "edge_pushing",
    "forward_over_reverse",
    "hessian_lower_bound",
    "lower_triangle",
    "pair_count",
    "pair_units",
    "symmetric",
    "symmetric_order",
]
