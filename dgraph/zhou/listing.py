"""Listing every path: Bauer's formula written out (Zhou 2020, Fig. 4.1 (c)).

The baseline every factorization is measured against: each root-terminal path is its
own product, so the cost is L - N multiplications. Refused above
:data:`dgraph.core.verify.EXACT_PATH_LIMIT` paths.
"""

from __future__ import annotations

import sympy

from ..core.expressions import ExpressionSet, Step, make_expression_set
from ..core.graph import DGraph
from ..core.paths import count_paths
from ..core.verify import EXACT_PATH_LIMIT, path_words
from ..errors import SearchTooLarge

__all__ = ["list_paths"]


def list_paths(graph: DGraph) -> ExpressionSet:
    """Every Jacobian entry as the plain sum of its path products.

    >>> from dgraph.frontends import bundled
    >>> list_paths(bundled("zhou_two_blocks.json")).mults
    12
    """
    n = count_paths(graph)
    if n > EXACT_PATH_LIMIT:
        raise SearchTooLarge(f"paths: {n} paths exceed the listing limit of {EXACT_PATH_LIMIT}")
    words = path_words(graph)
    jacobian = {key: sympy.Add(*(sympy.Mul(*w) for w in ws)) for key, ws in words.items()}
    steps = [Step("paths", key, sum(len(w) - 1 for w in ws)) for key, ws in words.items()]
    return make_expression_set(graph, {}, jacobian, steps, "paths")
