"""A lower bound on the multiplications of any Hessian accumulation, symmetric ones included.

Let ``H`` be Dixon's Hessian graph, its labels independent indeterminates (structural
multiplications: every label a general value), mirrored edges sharing one label (an
edge ``u -> w`` and its mirror ``w̄ -> ū`` carry the same ``c_wu``). The entry
``(x̄_i, x_j)`` is Bauer's sum of its paths' label products. Any program that computes
the lower triangle ``i ≥ j`` by additions, multiplications by constants and
multiplications of two computed values (every method here: each elimination, edge
pushing, symmetric pair elimination with mirrored products shared, forward-over-reverse)
makes each entry a linear combination, with constant coefficients, of 1, the labels and
the products it formed. Modulo ``span(1, labels)`` the entries therefore lie in the span
of the products, so the products number at least the dimension of the entries' span
there (the rank argument of :mod:`dgraph.search.rank_bound`; S. Winograd, On the number of
multiplications necessary to compute certain functions, Comm. Pure Appl. Math. 23, 1970,
pp. 165-179).

That dimension is counted exactly here: it is the number of lower-triangle entries with a
path of two edges or more. Each path monomial has degree its length, with coefficient +1
(no label is a number in this model), so such an entry is nonzero modulo
``span(1, labels)``. And two entries share no monomial, even with mirrored labels
identified. A path of two edges or more from ``x_j`` to ``x̄_i`` has exactly one edge
leaving an input, its first (inputs have no predecessors), and exactly one entering an
input's adjoint, its last (those have no successors). Under the identification the first
edge's label is shared only with its mirror, which enters ``x̄_j``; the last edge's only
with its mirror, which leaves ``x_i``; the edges between touch neither inputs nor their
adjoints, nor do their mirrors. So the labels of a monomial that touch inputs name
``{i, j}``; within ``i ≥ j`` that is one entry. Disjoint nonzero
supports are linearly independent. An entry that is one edge (a single path of length one)
needs nothing. The upper triangle is the lower one mirrored, so the bound is the
symmetric halving made exact: a method that computes every entry (forward-over-reverse,
any Jacobian method on ``H``) needs at least as many.

The bound is for structural multiplications; with constant labels ±1 free (effective
multiplications) an entry may need none (``(x + y)²``), and the bound does not apply.
"""

from __future__ import annotations

from ..core.graph import DGraph
from ..core.paths import path_counts

__all__ = ["HESSIAN_BOUND_FOR", "hessian_lower_bound"]

HESSIAN_BOUND_FOR = "any accumulation of the lower triangle (structural mults)"


def hessian_lower_bound(H: DGraph) -> int:
    """The lower-triangle entries of ``H``'s Jacobian (``H = hessian_graph(g)``: rows
    ``x̄_i``, columns ``x_j``, ``i ≥ j``) with a path of two edges or more: a lower bound
    on the structural multiplications of any accumulation of them (module docstring)."""
    row = {y: i for i, y in enumerate(H.outputs)}
    col = {x: j for j, x in enumerate(H.inputs)}
    return sum(
        1
        for (y, x), paths in path_counts(H).items()
        if row[y] >= col[x] and (paths > 1 or not H.nx.has_edge(x, y))
    )
