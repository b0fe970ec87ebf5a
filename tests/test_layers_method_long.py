"""The ``layers`` method on long chains of local Jacobians (issue 40, item 0): beyond
``SEARCH_LIMIT`` local Jacobians the bracketing is the cheaper end-to-end product (the
matrix-chain program is cubic in the chain's length), built and titled without recursion."""

from __future__ import annotations

import pytest

from dgraph.frontends import bundled, from_trace
from dgraph.frontends.random_graphs import random_layered
from dgraph.zhou.layers import layers


def _chain(n: int):
    lines = ["inputs: x", "outputs: y", "v1 = sin(x)"]
    lines += [f"v{k} = sin(v{k - 1})" for k in range(2, n)]
    return from_trace("\n".join([*lines, f"y = sin(v{n - 1})"]))


def _product_mults(es) -> int:
    return sum(s.mults for s in es.steps if s.op.value == "product")


@pytest.mark.parametrize("seed", range(4))
def test_end_to_end_bracketing_prices_what_it_builds(seed):
    """Forced past the limit, the price of the chosen end-to-end product is what the
    built products count, never below the searched optimum, and the set verifies."""
    graph = random_layered(seed, 6, 5, 3)
    searched = layers(graph)
    ends = layers(graph, search_limit=0)
    assert ends.info["chain_mults"] == _product_mults(ends) >= searched.info["chain_mults"]
    assert ends.info["bracketing"].startswith(("left to right", "right to left"))
    assert ends.verify().ok


def test_zhou_two_blocks_end_to_end_is_the_left_to_right_product():
    """Zhou's two blocks: the search finds ((J1 J2) (J3 J4)) at 5; left to right costs 6."""
    graph = bundled("zhou_two_blocks.json")
    assert layers(graph).info["chain_mults"] == 5
    es = layers(graph, search_limit=0)
    assert es.info["chain_mults"] == 6 and es.info["bracketing"].startswith("left to right")


def test_a_long_chain_is_linear_and_needs_no_recursion():
    """1,500 levels: one product per level (1,499 mults), titles of bounded length, under
    the default recursion limit (the recursive evaluation went one frame per level)."""
    es = layers(_chain(1500))
    assert es.mults == 1499 and es.info["layers"] == 1500
    assert max(len(str(s.target)) for s in es.steps) < 100
    assert es.info["bracketing"] == "left to right: ((J1 J2) … J1500)"


def test_best_on_a_long_chain_is_proven_by_the_junction_bound(monkeypatch):
    """A 320-step loop: the junction bound proves 319 at once (it meets the cheapest
    candidate before the bracketing program would start), so best neither starts the
    program, nor waits for it, nor builds it (one path's 51,040 segments exceed its limit,
    SEGMENT_LIMIT = 50,000; at 400 steps, 79,800, building them took minutes)."""
    from dgraph.search import best as best_module
    from dgraph.search.best import best
    from dgraph.search.bracketing_bound import SEGMENT_LIMIT, _part_bound

    def started(*args, **kwargs):
        raise AssertionError("the bracketing program was started")

    monkeypatch.setattr(best_module, "Background", started)
    monkeypatch.setattr(best_module, "Deferred", started)
    graph = _chain(320)
    assert SEGMENT_LIMIT < 320 * 319 // 2 and _part_bound(graph, None) == 0
    es = best(graph, budget=0.5, ceiling=600.0)  # counted work decides, not a loaded clock
    assert es.mults == 319 and es.info["proven_optimal"] and not es.info["cut_by_time"]
