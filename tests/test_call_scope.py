"""Caches scoped to one call: what code generation remembers (block products, sums and
plans, folded and counted expressions) is forgotten when the outermost call returns."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph import blocks
from dgraph.codegen import counting
from dgraph.codegen.function import make_function
from dgraph.frontends import bundled, from_function


def _held() -> dict[str, int]:
    return {
        "recent": len(blocks.RECENT.entries),
        "small products": blocks._small_sparse_product.cache_info().currsize,
        "small sums": blocks._small_add.cache_info().currsize,
        "plans": blocks._plan.cache_info().currsize,
        "folded": counting._fold.cache_info().currsize,
        "counted": counting._count.cache_info().currsize,
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
