"""Proofs that hold: an order that skips or repeats vertices is no incumbent, a lower bound
above a known cost raises, HiGHS's lower bounds are its dual bounds rounded soundly, and
``best`` over blocks returns only a candidate that verified. Each test first reproduces the
false proof the fix removes (issue 52, root cause 6)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from dgraph.blocks.arrays import ArrayOp
from dgraph.core.graph import DGraph
from dgraph.core.verify import Verification
from dgraph.elimination import search as search_module
from dgraph.elimination.vertex_exact import available, exact_vertex_search
from dgraph.elimination.vertex_optimal import vertex_optimal_search
from dgraph.errors import InputError, ProofError
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_dag
from dgraph.search import best as best_module
from dgraph.search import edge_bound
from dgraph.search.best import best
from dgraph.search.bracketing_bound import _ceil, _Program
from dgraph.search.edge_bound import EdgeBound, edge_elimination_bound
from dgraph.search.effective_optimal import effective_optimal_search

# the issue's graph: 8 intermediates, vertex optimum 46
ISSUE_DAG = (11, 3, 8, 3, 0.3)


def test_the_issue_graphs_optimum_with_a_complete_incumbent():
    g = random_dag(*ISSUE_DAG)
    free = vertex_optimal_search(g)
    assert (free.cost, free.proven, free.lower_bound) == (46, True, 46)
    given = vertex_optimal_search(g, incumbent=list(reversed(g.intermediates)))
    assert (given.cost, given.proven) == (46, True)
    assert sorted(v for _, v in given.moves) == sorted(g.intermediates)


@pytest.mark.parametrize(
    "incumbent, said",
    [
        (["v1", "v2"], "missing: v3, v4, v5, v6, v7 and 1 more"),  # the issue's: 17, "proven"
        (["v1", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"], "repeated: v1"),
        (["x0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"], "not intermediates: x0"),
        ([], "missing: v1, v2"),
    ],
)
def test_an_incumbent_that_is_not_an_order_of_every_vertex_is_refused(incumbent, said):
    """Priced as an upper bound, the issue's two vertices cost 17 and were "proven"
    optimal; the optimum is 46."""
    g = random_dag(*ISSUE_DAG)
    with pytest.raises(InputError, match=f"exactly once \\({said}") as caught:
        vertex_optimal_search(g, incumbent=incumbent)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("vertex-optimal: the incumbent: ")


def test_effective_optimal_refuses_a_partial_incumbent_too():
    g = bundled("naumann_discrepancy.json")
    assert effective_optimal_search(g, incumbent=["i", "k"]).cost == 14
    with pytest.raises(InputError, match=r"effective-optimal: the incumbent.*missing: k"):
        effective_optimal_search(g, incumbent=["i"])


def test_the_subset_search_refuses_a_partial_starting_order():
    """The A* itself (every search's starting orders) checks them: a safety net under
    every caller."""
    g = bundled("naumann_discrepancy.json")
    with pytest.raises(InputError, match="missing: k"):
        search_module.subset_search(g, lambda done: iter(()), lambda done: 0, [["i"]], None)


@pytest.mark.skipif(not available(), reason="OR-Tools is not installed")
def test_vertex_exact_refuses_a_partial_incumbent():
    """The CP-SAT search priced the incumbent as its start and kept it when nothing
    cheaper turned up: two vertices of 20, "proven" below the optimum."""
    g = random_dag(3, 3, 20, 3, 0.2)
    whole = exact_vertex_search(g, budget=2, incumbent=list(g.intermediates))
    assert whole.cost >= whole.lower_bound > 0
    with pytest.raises(InputError, match=r"vertex-exact: the incumbent: .*missing: "):
        exact_vertex_search(g, budget=2, incumbent=g.intermediates[:2])


def test_a_partial_incumbent_no_longer_feeds_a_false_edge_proof(monkeypatch):
    """The chain the issue saw: a vertex "optimum" of 5 from the incumbent ['i'] on the
    discrepancy graph (every order costs 14), given to the edge bound as its upper bound,
    made a bound of 12 "proven". Both steps now refuse."""
    g = bundled("naumann_discrepancy.json")
    with pytest.raises(InputError):
        vertex_optimal_search(g, incumbent=["i"])
    junctions_only = {"edge_limit": -1}  # no exact part: the junction bound, 12
    with pytest.raises(ProofError, match="lower bound 12 exceeds the upper bound given, 5"):
        edge_elimination_bound(g, upper=5, **junctions_only)
    found = edge_elimination_bound(g, upper=14, **junctions_only)
    assert (found.lower_bound, found.cost, found.proven) == (12, 14, False)
    assert edge_elimination_bound(g, upper=12, **junctions_only).proven


def test_an_edge_bound_above_its_cost_raises():
    with pytest.raises(ProofError, match="lower bound 12 exceeds"):
        EdgeBound(None, 5, 12, True)
    assert EdgeBound(None, 12, 12, True).gap == 0
    assert EdgeBound(None, None, 12, False).gap is None


def test_an_exact_part_below_the_junction_bound_raises(monkeypatch):
    """Where the metagraph's optimum of a part is below what the junctions prove, one of
    them is wrong: nothing is claimed."""
    g = bundled("naumann_discrepancy.json")
    assert edge_elimination_bound(g).cost == 13
    monkeypatch.setattr(edge_bound, "elimination_lower_bound", lambda general: 20)
    with pytest.raises(ProofError, match="lower bound 20 exceeds"):
        edge_elimination_bound(g)


# A 16-item covering knapsack (seeded draw): minimize c·x subject to a·x >= b, x binary.
# HiGHS's default relative gap of 1e-4 stops it at 5,007,094, 159 above the optimum.
KNAPSACK_A = [950414, 662585, 715761, 907492, 620463, 798117, 850285, 302686]
KNAPSACK_A += [149978, 370149, 356560, 886198, 921360, 104738, 549808, 839105]
KNAPSACK_C = [951071, 666570, 716356, 909831, 624545, 799632, 851993, 304078]
KNAPSACK_C += [153575, 371423, 361512, 888423, 923750, 107260, 552720, 841872]
KNAPSACK_B = 4992849


def test_the_integer_programs_bound_is_highs_dual_bound():
    a, c = np.array(KNAPSACK_A, float), np.array(KNAPSACK_C, float)
    every = np.array(list(itertools.product([0.0, 1.0], repeat=len(a))))
    optimum = int((every[every @ a >= KNAPSACK_B] @ c).min())
    assert optimum == 5_006_935
    matrix = csr_matrix(-a[None, :])
    bound = _Program._solve(c, matrix, np.array([-KNAPSACK_B], float), np.zeros(len(a)), None)
    assert bound == optimum  # the gap closed: not 5,007,094, the solution HiGHS stopped at
    cut = _Program._solve(c, matrix, np.array([-KNAPSACK_B], float), np.zeros(len(a)), 1)
    assert 0 < cut <= optimum  # one node: whatever it proved, never above


@pytest.mark.parametrize(
    "value, rounded",
    [
        (12.0, 12),
        (11.9999999, 12),
        (12.0000004, 12),  # a hair above the integer optimum: not 13
        (12.2, 13),
        (5_006_935.000_000_4, 5_006_935),
        (5_006_935.3, 5_006_936),
        (None, 0),
        (float("nan"), 0),
        (float("-inf"), 0),
    ],
)
def test_a_solvers_bound_rounds_up_within_its_tolerance(value, rounded):
    assert _ceil(value) == rounded


def _chain(n: int, ops: list[str]) -> DGraph:
    """x -> v0 -> ... -> y, elementwise on n values."""
    g = DGraph("chain")
    g.add_array_vertex("x", "input", (n,))
    prev = "x"
    for k, name in enumerate(ops):
        v = f"v{k}" if k < len(ops) - 1 else "y"
        role = "output" if v == "y" else "intermediate"
        g.add_array_vertex(v, role, (n,), ArrayOp(name, (prev,), (), (n,)))
        prev = v
    return g.validate()


def _failing_first(monkeypatch, failures: int) -> list[str]:
    """best's sets over blocks, the first ``failures`` built made to fail their check;
    the orders built, in turn."""
    built: list[str] = []
    real = best_module.vertex_elimination

    def build(graph, order, method):
        es = real(graph, order, method)
        built.append(order)
        if len(built) <= failures:
            object.__setattr__(es, "verify", lambda mode="auto": Verification(False, "test", "x"))
        return es

    monkeypatch.setattr(best_module, "vertex_elimination", build)
    return built


def test_best_over_blocks_passes_over_a_candidate_that_fails_its_check(monkeypatch):
    """The cheapest candidate's failed check was dropped and it was returned (and claimed
    optimal among vertex elimination); now the next cheapest that verifies wins."""
    g = _chain(6, ["sin", "exp", "tanh", "cos", "exp"])
    assert best(g, 1).mults == 24
    built = _failing_first(monkeypatch, 1)
    es = best(g, 1)
    assert len(built) == 2 and es.verified and es.mults == 24
    assert es.info["optimal_among"] == "vertex elimination"
    assert list(es.info["order"]) == built[1]


def test_best_over_blocks_claims_nothing_where_no_candidate_verifies(monkeypatch):
    g = _chain(6, ["sin", "exp", "tanh", "cos", "exp"])
    built = _failing_first(monkeypatch, 10**6)
    es = best(g, 1)
    assert not es.verified and es.info["optimal_among"] is None
    assert es.info["proven_optimal"] is False
    assert list(es.info["order"]) == built[0] and len(built) == len(es.info["candidates"])
