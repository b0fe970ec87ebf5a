"""Typed results: step kinds are a type (with the region an umbrella or layer step is in),
not strings read back by prefix; where a result comes from is typed provenance with
bounds as value, family and unit."""

from __future__ import annotations

import json

import pytest

import dgraph
from dgraph.core.expressions import Step, StepKind
from dgraph.core.provenance import Bound, Provenance


def test_step_kinds_are_a_type(two_blocks_graph):
    es = dgraph.accumulate(two_blocks_graph, "umbrella")
    assert {s.op for s in es.steps} == {StepKind.UMBRELLA}
    assert [s.region for s in es.steps] == ["v", "v", "r", "r", "r"]
    assert str(es.steps[0]) == "umbrella v c (1)"
    assert es.steps[0].to_dict() == {
        "op": "umbrella v",
        "target": "c",
        "region": "v",
        "mults": 1,
    }
    with pytest.raises(ValueError, match="unknown step kind 'umbrella v'"):
        Step("umbrella v", "c", 1)


def test_layers_steps_carry_their_layer(sin_graph):
    es = dgraph.accumulate(sin_graph, "layers")
    assert all(isinstance(s.op, StepKind) for s in es.steps)


def test_exact_searches_type_their_bounds(discrepancy_graph):
    edge = dgraph.accumulate(discrepancy_graph, "edge-optimal").provenance
    assert edge.optimal is True and edge.found_by == "edge-optimal"
    assert edge.bounds == (Bound(13, "edge elimination", "mults"),)
    vertex = dgraph.accumulate(discrepancy_graph, "vertex-optimal").provenance
    assert vertex.bound("vertex elimination") == Bound(14, "vertex elimination")
    assert isinstance(vertex.seconds, float) and vertex.budget_note is None
    forward = dgraph.accumulate(discrepancy_graph, "forward").provenance
    assert forward.optimal is None and forward.bounds == ()


def test_best_types_every_bound_it_knows(discrepancy_graph):
    es = dgraph.accumulate(discrepancy_graph, "best", budget=3)
    p = es.provenance
    assert p.found_by in es.info["candidates"] and p.method == "best"
    assert p.bound("any accumulation", "effective mults").value == 10
    assert p.bound("edge elimination").value == 13
    for b in p.bounds:  # the typed bounds and the JSON keys say the same
        assert es.info["lower_bounds"][b.key] == b.value
    out = json.loads(json.dumps(es.to_dict()))
    assert {"value": 13, "family": "edge elimination", "unit": "mults"} in out["bounds"]


def test_a_bound_is_checked():
    with pytest.raises(ValueError, match="unknown family"):
        Bound(3, "vertex eliminations")
    with pytest.raises(ValueError, match="unknown unit"):
        Bound(3, "any elimination", "flops")
    with pytest.raises(ValueError, match="count of multiplications"):
        Bound(-1, "any elimination")
    assert str(Bound(13, "edge elimination")) == "edge elimination >= 13 mults"


def test_provenance_reads_only_what_is_there():
    p = Provenance.of("custom", {"optimal": "yes", "seconds": 1})
    assert p.optimal is None and p.seconds == 1.0 and p.found_by == "custom"
