"""The default codegen choice kept per process by its graph's content (session 33): a graph
built again is chosen for once, with the same method, program and candidates as a fresh
choice; a graph of other content (one label, one Float's precision, one limit changed)
never gets another graph's choice."""

from __future__ import annotations

import pytest
import sympy

import dgraph.codegen.selection as selection
from dgraph.codegen.selection import select_jacobian
from dgraph.core.graph import DGraph, vertex_symbol
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_program


@pytest.fixture
def runs(choice_runs) -> list[tuple[str, object]]:
    """The methods the choice accumulates, from an empty cache of choices."""
    return choice_runs


def _seen(chosen: selection.Selection) -> tuple:
    return chosen.method, chosen.program, chosen.candidates, chosen.expression_set.jacobian


@pytest.mark.parametrize(
    "build",
    [
        lambda: bundled("naumann_sin.trace"),
        lambda: bundled("spherical_coordinates.trace"),
        *(lambda seed=seed: random_program(seed, 3, 8, 2) for seed in (1, 2, 3)),
    ],
)
def test_a_graph_built_again_gets_the_fresh_choice_without_a_method_run(build, runs):
    first = select_jacobian(build())
    fresh = len(runs)
    assert fresh > 0
    again = build()  # another object of the same content: its own version, no derived
    kept = select_jacobian(again)
    assert len(runs) == fresh  # nothing accumulated
    assert "codegen_labels" not in again.derived  # nor its labels made (session 51)
    assert _seen(kept) == _seen(first)
    assert kept.expression_set.graph is again and kept.expression_set.verified
    selection._CHOICES.clear()
    assert _seen(select_jacobian(build())) == _seen(first)  # what a fresh choice makes
    assert len(runs) == 2 * fresh


def _graph(label: sympy.Expr) -> DGraph:
    """v = x0 x1, y = label * v + x0, given as labels only: ``label`` is free."""
    g = DGraph("one-label")
    for x in ("x0", "x1"):
        g.add_vertex(x, "input")
    g.add_vertex("v", "intermediate")
    g.add_vertex("y", "output")
    g.add_edge("x0", "v", vertex_symbol("x1"))
    g.add_edge("x1", "v", vertex_symbol("x0"))
    g.add_edge("v", "y", label)
    g.add_edge("x0", "y", sympy.Integer(1))
    return g


def test_graphs_differing_in_one_label_get_their_own_choices(runs):
    one, other = _graph(sympy.Integer(2)), _graph(sympy.Integer(3))
    assert one.to_json() != other.to_json()
    first = select_jacobian(one)
    second = select_jacobian(other)
    assert len(runs) == 2 * len(set(runs))  # both chosen in full
    numbers = [{e for _, e in c.program.results} for c in (first, second)]
    assert numbers[0] != numbers[1]
    assert second.expression_set.graph is other


def test_a_float_of_another_precision_is_another_graph():
    a, b = _graph(sympy.Float("0.5", 15)), _graph(sympy.Float("0.5", 30))
    assert a.content_key() != b.content_key()
    assert _graph(sympy.Float("0.5", 15)).content_key() == a.content_key()
    # a label's symbol of other assumptions is the vertex's own (the graph makes it so)
    assert _graph(sympy.Symbol("x1")).content_key() == _graph(vertex_symbol("x1")).content_key()


def test_a_limit_changed_is_another_choice(runs, monkeypatch):
    select_jacobian(bundled("spherical_coordinates.trace"))
    fresh = len(runs)
    monkeypatch.setattr(selection, "ESTIMATED", 1)
    select_jacobian(bundled("spherical_coordinates.trace"))
    assert len(runs) == 2 * fresh
