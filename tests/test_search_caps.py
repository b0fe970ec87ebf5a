"""The exact searches held to a count of expanded states: refused beyond it (the same
refusal on every machine), unchanged within it; the codegen choice skips a search beyond
its limit, and a user's own ``accumulate`` has none."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph import from_function
from dgraph.codegen.selection import EXACT_EXPANSIONS, select_jacobian
from dgraph.elimination.metagraph import edge_optimal_search
from dgraph.elimination.vertex_optimal import vertex_optimal_search
from dgraph.errors import SearchTooLarge
from dgraph.frontends import bundled, from_sympy
from dgraph.frontends.random_graphs import random_dag
from dgraph.methods import accumulate


def lighthouse(nu, gamma, omega, t):
    """Graphax's Lighthouse (graphax/examples): 15 edges, 14 with an intermediate end;
    its metagraph search expands about 170,000 states before the optimum is proven."""
    y1 = nu * np.tan(omega * t) / (gamma - np.tan(omega * t))
    return y1, gamma * y1


def test_edge_optimal_refuses_beyond_its_expansions_and_is_unchanged_within():
    g = bundled("naumann_discrepancy.json")  # its optimum, 13, takes some 800 expansions
    full = edge_optimal_search(g)
    capped = edge_optimal_search(g, max_expansions=EXACT_EXPANSIONS["edge-optimal"])
    assert (
        (capped.cost, capped.moves, capped.proven)
        == (full.cost, full.moves, True)
        == (
            13,
            full.moves,
            True,
        )
    )
    messages = set()
    for _ in range(2):
        with pytest.raises(SearchTooLarge, match="more than 100 states") as refused:
            edge_optimal_search(g, max_expansions=100)
        messages.add(str(refused.value))
    assert len(messages) == 1 and next(iter(messages)).startswith("edge-optimal: 9 intermediate")


def test_vertex_optimal_refuses_beyond_its_expansions_and_is_unchanged_within():
    g = random_dag(0, 3, 12, 3, 0.35)
    full = vertex_optimal_search(g)
    assert full.states > 20
    within = vertex_optimal_search(g, max_expansions=EXACT_EXPANSIONS["vertex-optimal"])
    assert (within.cost, within.moves) == (full.cost, full.moves)
    with pytest.raises(SearchTooLarge, match="vertex-optimal: 12 intermediates, more than 5"):
        vertex_optimal_search(g, max_expansions=5)
    # the edge search's incumbent is held to the same count, never quietly replaced
    with pytest.raises(SearchTooLarge, match="edge-optimal: its incumbent, vertex-optimal"):
        edge_optimal_search(bundled("naumann_discrepancy.json"), max_expansions=0)


def test_codegen_skips_the_lighthouse_edge_search_and_ships_what_it_did():
    g = from_function(lighthouse)
    assert (g.n_edges, len(g.intermediates)) == (15, 7)
    chosen = select_jacobian(g)
    rows = {c.method: c for c in chosen.candidates}
    limit = EXACT_EXPANSIONS["edge-optimal"]
    assert rows["edge-optimal"].note == (
        f"not run: edge-optimal: 14 intermediate edges, more than {limit} states to expand"
        " before the optimum is proven; pass --budget SECONDS for the best found"
    )
    # what it shipped when edge-optimal searched in full (12 s), whose set did not rank
    # among the few cheapest estimates (12 multiplications, as zhou's and vertex-optimal's)
    assert chosen.method == "zhou"
    assert (chosen.program.mults, chosen.program.ops.adds, chosen.program.ops.divs) == (13, 4, 1)


def test_codegen_keeps_an_edge_search_within_its_limit_and_users_get_it_whole():
    g = from_sympy(["sin(x*y)*cos(x) + exp(x*y)", "sin(x*y)*y"], ["x", "y"])
    rows = {c.method: c for c in select_jacobian(g).candidates}
    assert not rows["edge-optimal"].note.startswith("not run")
    skipped = select_jacobian(g, max_expansions={"edge-optimal": 0}).candidates
    assert any(c.method == "edge-optimal" and "more than 0 states" in c.note for c in skipped)
    es = accumulate(g, "edge-optimal")  # no limit unless one is asked for
    assert es.verified and es.info["optimal"] is True


def test_the_default_choice_is_made_once_per_graph_and_again_after_a_change(choice_runs):
    import sympy

    from dgraph.codegen.function import make_function
    from dgraph.codegen.generate import generate
    from dgraph.codegen.python import load_python

    runs = choice_runs
    g = bundled("naumann_sin.trace")  # y = x0 sin(x1) sin(x1)
    code = generate(g, "python")
    first = list(runs)
    assert first and code.mults == 4
    J = make_function(g)  # the same graph: chosen once
    assert runs == first
    np.testing.assert_allclose(
        J(np.array([2.0, 0.5])),
        [[np.sin(0.5) ** 2, 2.0 * 2 * np.sin(0.5) * np.cos(0.5)]],
        rtol=1e-12,
    )
    assert select_jacobian(g, budget=None, build_all=True).method == code.method  # not kept
    assert len(runs) == 2 * len(first)
    g.set_expr("y", sympy.Symbol("v2") + sympy.Symbol("v1"))  # y = x0 sin(x1) + sin(x1)
    changed = load_python(generate(g, "python").text)
    assert len(runs) == 3 * len(first)
    np.testing.assert_allclose(
        changed.jacobian(np.array([2.0, 0.5])), [[np.sin(0.5), 3.0 * np.cos(0.5)]], rtol=1e-12
    )
