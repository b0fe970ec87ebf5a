"""The method registry's contract: every registered method, run on random graphs, gives a
verified expression set whose step costs add up to its counts; options come from the
method's signature and an unknown one is refused; a function can stand in for a name."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.cli import main
from dgraph.elimination.labeled import LabeledGraph
from dgraph.elimination.vertex import forward
from dgraph.errors import DGraphError
from dgraph.faces.elimination import FaceState
from dgraph.faces.sequence import eliminate_step
from dgraph.frontends.random_graphs import random_dag
from dgraph.methods import COMPARED, METHODS, accumulate, lookup, methods
from dgraph.methods.chain import ELIMINATION_METHODS
from dgraph.methods.registry import FAMILIES


def _options(name: str, graph: dgraph.DGraph, rng: random.Random) -> dict:
    if name == "vertex":
        order = list(graph.intermediates)
        rng.shuffle(order)
        return {"order": order}
    if name == "edges":  # every vertex, in order, by front eliminations of its out-edges
        state, sequence = LabeledGraph(graph), []
        for v in graph.intermediates:
            for k in list(state.succ[v]):
                sequence.append(("forward", (v, k)))
                state.apply(sequence[-1])
        return {"sequence": sequence}
    if name == "faces":  # the faces of a random vertex order, by the names they had
        state, faces = FaceState(graph), []
        order = list(graph.intermediates)
        rng.shuffle(order)
        for v in order:
            faces += eliminate_step(state, "vertex", v)
        return {"faces": faces}
    return {}


@pytest.mark.parametrize("name", sorted(METHODS))
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6))
def test_every_method_keeps_the_contract(name, seed, n):
    graph = random_dag(seed, 2, n, 2, 0.5)
    es = accumulate(graph, name, budget=0.5, **_options(name, graph, random.Random(seed)))
    assert es.verified, (name, es.verification)
    assert es.method == name
    assert sum(step.mults for step in es.steps) == es.mults
    assert 0 <= es.mults_effective <= es.mults
    assert isinstance(es.info["seconds"], float) and es.info["seconds"] >= 0
    assert es.jacobian and all(y in graph.outputs and x in graph.inputs for y, x in es.jacobian)


def test_roles_and_families_are_declared():
    assert COMPARED == [
        "forward",
        "reverse",
        "markowitz",
        "zhou",
        "layers",
        "dstar",
        "umbrella",
        "vertex-optimal",
        "edge-optimal",
        "best",
    ]
    assert methods(needs=()) == [m for m in METHODS if m not in ("vertex", "edges", "faces")]
    assert methods(exact=True) == ["vertex-optimal", "edge-optimal", "face-optimal"]
    assert methods(compared=True, deterministic=True) == COMPARED[:-1]
    assert ELIMINATION_METHODS == ("forward", "reverse", "markowitz", "layers")
    assert {m.family for m in METHODS.values()} <= set(FAMILIES)


def test_options_come_from_signatures():
    assert dict(METHODS["dstar"].options) == {
        "organization": "auto",
        "priority": "inner",
        "organization_work_limit": 400_000,
    }
    assert dict(METHODS["edge-optimal"].options) == {
        "metagraph": "full",
        "budget": None,
        "max_expansions": None,
    }
    assert set(METHODS["best"].options) == {
        "budget",
        "seed",
        "candidates",
        "objective",
        "ceiling",
        "skip",
        "price",
    }
    assert dict(METHODS["forward"].options) == {}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_an_unknown_option_is_refused(name, sin_graph):
    with pytest.raises(DGraphError, match=f"method '{name}' takes no option 'budgt'"):
        accumulate(sin_graph, name, budgt=3)


def test_a_needed_option_is_asked_for(sin_graph):
    with pytest.raises(DGraphError, match="needs an elimination order"):
        accumulate(sin_graph, "vertex")


def test_a_real_option_gets_through(two_blocks_graph):
    for organization in ("pairs", "roots", "leaves"):
        es = accumulate(two_blocks_graph, "dstar", organization=organization)
        assert es.verified and es.info["organization"] == organization


def test_a_callable_is_a_method(sin_graph):
    def by_hand(graph):
        """Forward vertex elimination, by hand."""
        return forward(graph)

    es = accumulate(sin_graph, by_hand)
    assert es.verified and es.mults == accumulate(sin_graph, "forward").mults
    assert lookup(by_hand).summary == "Forward vertex elimination, by hand."
    with pytest.raises(DGraphError, match="takes no option 'seed'"):
        accumulate(sin_graph, by_hand, seed=1)
    with pytest.raises(DGraphError, match="unknown method 'fastest'"):
        accumulate(sin_graph, "fastest")


def test_a_method_must_return_an_expression_set(sin_graph):
    with pytest.raises(DGraphError, match="returned dict"):
        accumulate(sin_graph, lambda graph: {})


def test_the_command_line_refuses_an_option_the_method_does_not_take(capsys):
    sin = str(Path(dgraph.__file__).parent / "data" / "naumann_sin.trace")
    code = main(["accumulate", sin, "-m", "forward", "--strategy", "pages"])
    assert code == 2
    assert "method 'forward' takes no option 'strategy'" in capsys.readouterr().err
