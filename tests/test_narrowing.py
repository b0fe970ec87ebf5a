"""Methods narrow themselves on large graphs, or refuse at once, saying so: checked on
small graphs with the limits lowered (the limits themselves are set from measurements
on a 97,809-edge layered graph, in benchmarks/RESULTS.md)."""

from __future__ import annotations

import pytest

from dgraph.dominance import umbrella_method
from dgraph.errors import SearchTooLarge
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import accumulate, compare
from dgraph.zhou import factorize as zhou_module


@pytest.fixture(scope="module")
def layered():
    return random_layered(3, 6, 8, 3, 3)


def test_dstar_tries_one_organization_beyond_its_work_limit(layered):
    full = accumulate(layered, "dstar")
    assert "not_tried" not in full.info
    narrow = accumulate(layered, "dstar", organization_work_limit=10)
    assert narrow.verified and narrow.info["organization"] == "roots"
    assert narrow.info["not_tried"].startswith("leaves and pairs not tried")
    assert narrow.mults >= full.mults


def test_umbrella_tries_the_hierarchy_inside_out_beyond_its_edge_limit(layered):
    assert "not_tried" not in accumulate(layered, "umbrella").info  # under the default
    assert layered.n_edges < umbrella_method.NESTING_EDGE_LIMIT
    es = accumulate(layered, "umbrella", nesting_edge_limit=10)
    assert es.verified and es.info["nesting"] == "inside-out"
    assert es.info["not_tried"] == (
        f"maximal umbrellas not tried: {layered.n_edges} edges exceed 10"
    )


def test_zhou_picks_one_variant_by_the_cheaper_mode_beyond_its_edge_limit(layered):
    tried = accumulate(layered, "zhou").info["tried"]
    assert layered.n_edges < zhou_module.VARIANT_EDGE_LIMIT
    es = accumulate(layered, "zhou", variant_edge_limit=10)
    forward_mode, reverse_mode = (accumulate(layered, m).mults for m in ("forward", "reverse"))
    chosen = "backward" if forward_mode <= reverse_mode else "forward"
    assert es.verified and es.info["variant"] == chosen
    assert {key.split("/")[1] for key in es.info["tried"]} == {chosen}
    assert es.mults == min(n for key, n in tried.items() if key.endswith(chosen))
    assert f"forward mode {forward_mode:,} vs reverse mode {reverse_mode:,}" in es.info["not_tried"]


def test_compare_lists_a_refused_markowitz_as_skipped_with_its_reason(layered, monkeypatch):
    from dgraph.elimination import vertex

    monkeypatch.setattr(vertex.markowitz, "__defaults__", (5,))
    with pytest.raises(SearchTooLarge, match="more than 5 multiplications"):
        accumulate(layered, "markowitz")
    comparison = compare(layered, methods=["forward", "markowitz"])
    assert "markowitz" in comparison.skipped and "forward" in comparison.results
    assert "more than 5 multiplications" in comparison.skipped["markowitz"]


def test_the_command_line_refuses_an_outgrown_markowitz_with_one_line(monkeypatch, capsys):
    from pathlib import Path

    import dgraph
    from dgraph.cli import main
    from dgraph.elimination import vertex

    monkeypatch.setattr(vertex.markowitz, "__defaults__", (2,))
    sph = str(Path(dgraph.__file__).parent / "data" / "spherical_coordinates.trace")
    assert main(["accumulate", sph, "-m", "markowitz"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "more than 2 multiplications" in err
