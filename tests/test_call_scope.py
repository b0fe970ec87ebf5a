"""Caches scoped to one call: what code generation remembers (block products, sums and
plans, folded and counted expressions) is forgotten when the outermost call returns."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph import blocks
from dgraph.blocks import scatter
from dgraph.codegen import counting
from dgraph.codegen.function import make_function
from dgraph.core import value_check
from dgraph.frontends import bundled, from_function


def _held() -> dict[str, int]:
    return {
        "recent": len(blocks.RECENT.entries),
        "small products": blocks._small_sparse_product.cache_info().currsize,
        "small sums": blocks._small_add.cache_info().currsize,
        "plans": blocks._plan.cache_info().currsize,
        "folded": counting._fold.cache_info().currsize,
        "counted": counting._count.cache_info().currsize,
        "checked J·v": len(value_check._APPLIED),
        "scatter positions": len(scatter._HELD),
    }


def test_nested_scopes_forget_on_the_outermost_exit() -> None:
    a = blocks.dense((3,), (4,))
    b = blocks.dense((4,), (2,))
    with blocks.scoped():
        with blocks.scoped():
            blocks.multiply(a, b)
        assert blocks._plan.cache_info().currsize > 0  # kept within
    assert blocks._plan.cache_info().currsize == 0


@pytest.mark.parametrize("level", ["element", "array"])
def test_make_function_leaves_no_cache_behind(level: str) -> None:
    def f(x):
        h = np.tanh(x * x)
        return np.sum(h * x), h[0] * x[1]

    graph = from_function(f, sizes=[(3,)], level=level) if level == "array" else None
    graph = graph or bundled("naumann_sin.trace")
    J = make_function(graph)
    assert J is not None
    assert _held() == dict.fromkeys(_held(), 0)


def test_the_code_check_reuses_the_verification_s_j_v_within_one_call(monkeypatch) -> None:
    """Within one call the expression set's J·v at a point and direction is formed once
    (by its verification; the generated code's check reads it again): half as often as
    when nothing is remembered (outside any call)."""

    def graph():  # a new graph each time: a graph keeps its verified choice
        return from_function(lambda x: np.sin(x) * x, sizes=[(4,)], level="array")

    formed = []
    original = value_check.jvp_and_scale
    monkeypatch.setattr(value_check, "jvp_and_scale", lambda *a: formed.append(1) or original(*a))
    make_function(graph())
    remembered = len(formed)
    monkeypatch.setattr(value_check, "in_scope", lambda: False)
    formed.clear()
    make_function(graph())
    assert remembered > 0 and len(formed) == 2 * remembered


def test_a_call_s_graph_keeps_its_points_while_other_graphs_are_checked(monkeypatch) -> None:
    """A loop body's own checks (a few small graphs each) run between an outer graph's
    expression check and its code check: within the call the outer graph's points are
    still found then, not searched again (they were dropped after eight other graphs)."""
    searched = []
    original = value_check.finite_point
    monkeypatch.setattr(
        value_check, "finite_point", lambda *a: searched.append(a[0]) or original(*a)
    )

    def graph():
        return from_function(lambda x: np.sin(x) * x, sizes=[(3,)], level="array")

    outer, others = graph(), [graph() for _ in range(12)]
    with blocks.scoped():
        first = value_check.check_points(outer)
        for other in others:
            value_check.check_points(other)
        again = value_check.check_points(outer)
    digests = [[value_check._digest(p.inputs) for p in c.points] for c in (first, again)]
    assert digests[0] == digests[1]
    assert [g for g in searched if g is outer] == [outer]
    assert len(value_check._POINTS) == 0  # forgotten when the call returns
