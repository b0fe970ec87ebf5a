"""Given labels are compared with the derivatives of their targets' expressions at the
user's point first (the graph's point with its parameters' values), then at drawn points:
a label wrong only where the user evaluates is caught."""

import json

import pytest
import sympy as sp

import dgraph
from dgraph.core.graph import DGraph
from dgraph.errors import GraphError

A, X = sp.symbols("a x")
WRONG_ABOVE_3 = A + sp.Max(A - 3, 0)  # dt/dx for t = a*x only where a <= 3


def graph(label: sp.Expr) -> DGraph:
    g = DGraph()
    g.add_parameter("a")
    g.add_vertex("x", "input")
    g.add_vertex("t", "intermediate", A * X)
    g.add_vertex("y", "output", sp.sin(sp.Symbol("t")))
    g.add_edge("x", "t", label)
    g.add_edge("t", "y")
    return g


@pytest.mark.parametrize(("a", "ok"), [(10.0, False), (2.0, True)])
def test_a_label_wrong_only_at_the_users_parameters_is_caught(a, ok):
    g = graph(WRONG_ABOVE_3)
    g.set_point({"x": 1.3})
    g.set_parameter_point({"a": a})
    check = dgraph.accumulate(g, "forward").verify()
    assert check.ok is ok
    if not ok:
        assert check.mode == "labels" and "17 against 10" in check.detail
        assert "at the user's point" in check.detail


def test_the_right_label_passes_at_the_users_point():
    g = graph(A)
    g.set_point({"x": 1.3})
    g.set_parameter_point({"a": 10.0})
    assert dgraph.accumulate(g, "forward").verify().ok


def test_a_json_graph_s_point_gives_scalar_parameters():
    data = {
        "format": "dgraph/1",
        "inputs": ["x"],
        "outputs": ["y"],
        "parameters": ["a"],
        "vertices": [{"id": "t", "expr": "a*x"}, {"id": "y", "expr": "sin(t)"}],
        "edges": [
            {"source": "x", "target": "t", "label": "a + Max(a - 3, 0)"},
            {"source": "t", "target": "y"},
        ],
        "point": {"x": 1.3, "a": 2.0},
    }
    g = dgraph.from_json(json.dumps(data))
    assert float(g.parameter_point["a"]) == 2.0
    data["point"]["a"] = 10.0
    with pytest.raises(GraphError, match="at the user's point"):
        dgraph.from_json(json.dumps(data))
