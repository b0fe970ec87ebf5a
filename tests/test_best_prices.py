"""One ``best`` for every price model (:mod:`dgraph.search.prices`): the same winners as the
two portfolios it replaces on known graphs, the searches and bounds not valid for a model
not run (and said so), and an unknown or inapplicable model refused in one line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dgraph.elimination.vertex_optimal import uses_exact_model
from dgraph.errors import InputError
from dgraph.frontends import bundled
from dgraph.search import best as best_module
from dgraph.search.best import best
from dgraph.search.prices import PRICES, SOLVERS, not_run, price_model

from .test_blocks import _chain_graph, _op

ROOT = Path(__file__).resolve().parents[1]


def _layer_and_chain():
    """test_blocks' graph whose block optimum (224 + 10) Markowitz misses (232 + 10)."""
    from dgraph.core.graph import DGraph

    g = DGraph("layer and chain")
    g.add_array_vertex("x", "input", (5, 3))
    g.add_array_vertex("W", "input", (3, 4))
    g.add_array_vertex("z", "input", (5,))
    numbers = (((1,), (0,)), ((), ()))
    dot = _op("dot_general", ["x", "W"], (5, 4), dimension_numbers=numbers)
    g.add_array_vertex("h", "intermediate", (5, 4), dot)
    g.add_array_vertex("e", "intermediate", (5, 4), _op("tanh", ["h"], (5, 4)))
    g.add_array_vertex("m", "intermediate", (5, 4), _op("mul", ["e", "h"], (5, 4)))
    g.add_array_vertex("s", "intermediate", (5,), _op("reduce_sum", ["m"], (5,), axes=(1,)))
    cut = _op("slice", ["s"], (3,), start_indices=(1,), limit_indices=(4,), strides=None)
    g.add_array_vertex("y", "output", (3,), cut)
    g.add_array_vertex("w", "output", (5, 4), _op("exp", ["e"], (5, 4)))
    g.add_array_vertex("a", "intermediate", (5,), _op("sin", ["z"], (5,)))
    g.add_array_vertex("b", "intermediate", (5,), _op("exp", ["a"], (5,)))
    g.add_array_vertex("c", "output", (5,), _op("cos", ["b"], (5,)))
    return g.validate()


def _chain():
    return _chain_graph(6, ["sin", "exp", "tanh", "cos", "exp"])


# (graph, price model, cost in the model, found_by, optimal among) as the two portfolios
# gave them (budget 1, seed 0): Naumann's sin example (3) and vertex-edge discrepancy (13,
# below every vertex order's 14), Zhou's two chained simple blocks (5); over blocks the
# elementwise chain (4 diagonal products of 6) and the layer beside a chain (224 + 10)
KNOWN = [
    ("naumann_sin", "effective", 3, "reverse", "any elimination"),
    ("discrepancy", "effective", 13, "dstar", "any elimination"),
    ("discrepancy", "structural", 13, "dstar", "any elimination"),
    ("two_blocks", "effective", 5, None, "any elimination"),
    ("chain", "blocks", 24, "forward", "vertex elimination"),
    ("layer", "blocks", 234, "reverse", "vertex elimination"),
]
GRAPHS = {
    "naumann_sin": lambda: bundled("naumann_sin.trace"),
    "discrepancy": lambda: bundled("naumann_discrepancy.json"),
    "two_blocks": lambda: bundled("zhou_two_blocks.json"),
    "chain": _chain,
    "layer": _layer_and_chain,
}


@pytest.mark.parametrize(("name", "model", "cost", "by", "among"), KNOWN)
def test_one_portfolio_gives_the_winners_of_the_two_it_replaces(name, model, cost, by, among):
    g = GRAPHS[name]()
    es = best(g, 1, price=model)
    assert es.verified and es.info["objective"] == model
    mults = es.mults if model != "effective" else es.mults_effective
    assert mults == cost and es.info["proven_optimal"] and es.info["optimal_among"] == among
    assert by is None or es.info["found_by"] == by
    assert es.info["objective_lower_bound"] >= cost
    # the older spelling, objective=, runs the same model
    if model != "blocks":
        assert best(g, 1, objective=model).mults == es.mults


def test_effective_on_a_tensor_graph_is_its_block_price():
    """A tensor set's effective count is its block count: ``objective="effective"`` (the
    default compare passes) runs the block model."""
    es = best(_chain(), 1, objective="effective")
    assert es.info["objective"] == "blocks" and es.mults == 24


@pytest.mark.parametrize(
    ("model", "poisoned"),
    [
        (
            "blocks",
            [
                "rank_lower_bound",
                "elimination_lower_bound",
                "bracketing_lower_bound",
                "edge_elimination_bound",
                "edge_optimal_search",
                "effective_optimal_search",
                "greedy_order",
                "beam_order",
                "anneal_windows",
                "greedy_faces",
                "_structure_methods",
            ],
        ),
        ("graphax", ["vertex_optimal_search", "rank_lower_bound", "greedy_order"]),
    ],
)
def test_a_search_or_bound_not_valid_for_the_model_is_not_run(model, poisoned, monkeypatch):
    """Each of them raises if called: best over blocks (or in Graphax's model, on a graph
    given Graphax types) still finds its winner, and names what it left out, and why."""
    g = _chain() if model == "blocks" else _graphax_mlp()

    def refuse(*args, **kwargs):
        raise AssertionError("run for a model it is not valid for")

    for name in poisoned:
        monkeypatch.setattr(best_module, name, refuse)
    es = best(g, 0.3, price=model)
    assert es.verified
    left_out = es.info["not_run"]
    assert set(left_out) == set(not_run(PRICES[model])) - {"given candidates"}  # none given
    for phase in ("rank bound", "junction bound", "bracketing bound", "edge bound"):
        assert left_out[phase].startswith("not valid: a bound on scalar products")
    assert "vertex-optimal" not in left_out if model == "blocks" else "vertex-optimal" in left_out


def _graphax_mlp():
    jax = pytest.importorskip("jax")
    from dgraph.frontends.jaxpr_equations import equation_graph

    spec = importlib.util.spec_from_file_location(
        "alphagrad_tensor_functions", ROOT / "benchmarks" / "alphagrad_tensor_functions.py"
    )
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    f, args = tasks.TASKS["MLP"]
    return equation_graph(jax.make_jaxpr(f)(*args), "MLP")


def test_graphax_model_gives_the_winner_it_gave_before():
    """AlphaGrad's MLP in Graphax's model: 392, reverse's count, at budget 1 and seed 0,
    as best_blocks gave it; the winner built on the live part and verified."""
    from dgraph.elimination.graphax_model import graphax_cost

    g = _graphax_mlp()
    es = best(g, 1, price="graphax")
    assert es.verified and es.info["graphax_mults"] == 392 == graphax_cost(g, es.info["order"])
    assert es.info["found_by"] == "reverse" and es.mults == 199
    assert es.info["proven_optimal"] is False  # no bound holds in the model


def test_a_scalar_model_leaves_out_what_is_not_valid_for_it(monkeypatch):
    """Structural: the effective A* (it minimizes effective mults) is not run."""
    monkeypatch.setattr(best_module, "effective_optimal_search", _refuse)
    es = best(bundled("naumann_discrepancy.json"), 1, price="structural")
    assert es.mults == 13 and "effective-optimal" in es.info["not_run"]
    assert "order annealing" in es.info["not_run"] and "rank bound" not in es.info["not_run"]


def _refuse(*args, **kwargs):
    raise AssertionError("run for a model it is not valid for")


@pytest.mark.parametrize(
    ("graph", "options", "said"),
    [
        ("sin", {"price": "cheap"}, "best: unknown price model 'cheap': one of effective, "),
        ("sin", {"objective": "cheap"}, "best: unknown objective 'cheap'"),
        ("sin", {"price": "blocks"}, "'blocks' prices tensor graphs; this is a scalar graph"),
        ("chain", {"price": "effective"}, "prices scalar graphs; this is a tensor graph"),
        ("chain", {"price": "graphax"}, "every jaxpr equation a vertex"),
        ("sin", {"price": "effective", "objective": "structural"}, "differ: give one"),
    ],
)
def test_an_unknown_or_inapplicable_price_model_is_refused_in_one_line(graph, options, said):
    g = bundled("naumann_sin.trace") if graph == "sin" else _chain()
    with pytest.raises(InputError) as caught:
        best(g, 0.1, **options)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_the_table_covers_every_model_and_cp_sat_is_scalar_only():
    """Every model's valid searches include the baselines; what a solver runs for it is
    valid for; CP-SAT (inside vertex-optimal) never takes a tensor part."""
    for solver in SOLVERS.values():
        assert solver.valid_for <= set(PRICES)
        assert solver.runs_for is None or solver.runs_for <= solver.valid_for
    assert all(SOLVERS["baselines"].runs(m) for m in PRICES)
    assert not uses_exact_model(_chain(), budget=10.0)
    assert price_model(_chain(), None).name == "blocks"
    assert price_model(bundled("naumann_sin.trace"), None).name == "effective"
