"""A drawing of more than a thousand boxes is refused with a reason (no page shows it,
and graphviz's layout takes minutes), unless forced."""

from __future__ import annotations

import pytest

from dgraph.cli import main
from dgraph.errors import DGraphError
from dgraph.frontends.random_graphs import random_layered
from dgraph.render import draw, steps
from dgraph.render.drawing import DRAWN_LIMIT, check_drawable


@pytest.fixture(scope="module")
def big():
    g = random_layered(0, layers=30, width=40)
    assert len(g.nx) > DRAWN_LIMIT
    return g


def test_a_graph_beyond_the_limit_is_refused(big):
    with pytest.raises(DGraphError, match=r"has 1200 vertices: a drawing of more than 1000"):
        draw(big)
    with pytest.raises(DGraphError, match="force"):
        steps(big, "forward")


def test_the_line_view_counts_edges(sin_graph, big):
    check_drawable(sin_graph, "line")
    with pytest.raises(DGraphError, match="edges \\(the line graph's vertices\\)"):
        check_drawable(big, "line")


def test_the_command_refuses_in_one_line(tmp_path, big, capsys):
    source = tmp_path / "big.json"
    source.write_text(big.to_json())
    out = tmp_path / "big.svg"
    assert main(["render", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err and not out.exists()
