"""An expression set with circular elimination dependencies, built by hand (the shape
Zhou 2020, §5 sketches), for the docs, the notebooks and the tests."""

from __future__ import annotations

import sympy

from ..core.expressions import ExpressionSet, make_expression_set
from ..core.graph import DGraph

__all__ = ["circular_example"]


def circular_example() -> ExpressionSet:
    """Inputs x1, x2 share s; along s -> u -> v -> t the entry for x1 multiplies
    ``d_v_u·d_u_s`` first (inside a parenthesis), the entry for x2 ``d_t_v·d_v_u`` first:
    each of the two faces waits for the other. It verifies, and costs 7.

    >>> es = circular_example()
    >>> es.verify().ok, es.mults
    (True, 7)
    """
    g = DGraph("circular")
    for v in ("x1", "x2"):
        g.add_vertex(v, "input")
    for v in ("s", "u", "v"):
        g.add_vertex(v)
    g.add_vertex("t", "output")
    for e in [("x1", "s"), ("x2", "s"), ("s", "u"), ("u", "v"), ("v", "t"), ("s", "v")]:
        g.add_edge(*e)
    g.validate()
    p, q = g.symbol("x1", "s"), g.symbol("x2", "s")
    c, b, a, d = g.symbol("s", "u"), g.symbol("u", "v"), g.symbol("v", "t"), g.symbol("s", "v")
    r1 = sympy.Symbol("r1", commutative=False)
    return make_expression_set(
        g,
        {r1: a * b},
        {("t", "x1"): a * (b * c + d) * p, ("t", "x2"): (r1 * c + a * d) * q},
        method="by hand",
    )
