"""The bracketing bound: never above what any elimination pays, exact where it is tight."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from dgraph.bench.realworld import REAL_WORLD
from dgraph.core.paths import count_paths
from dgraph.elimination.kernel import effective_cost
from dgraph.elimination.parts import independent_parts
from dgraph.frontends import from_trace
from dgraph.frontends.random_graphs import random_program
from dgraph.methods import accumulate
from dgraph.search import bracketing_bound as bracketing
from dgraph.search.best import ANY_ELIMINATION, EFFECTIVE_VERTEX, best
from dgraph.search.bracketing_bound import (
    _paths,
    _Program,
    bracketing_lower_bound,
    unit_contracted,
)
from dgraph.search.effective_optimal import effective_optimal_search
from dgraph.search.junction_bounds import (
    bound_kinds,
    effective_vertex_bounds,
    elimination_lower_bound,
)
from dgraph.search.windows import anneal_windows

from .strategies import programs
from .test_best import ELIMINATIONS, NO_CEILING, _effective_edge_optimum, _grouped_program

BASELINES = ("forward", "reverse", "markowitz")
# t1 = x0*x1 reaches both outputs through t2; four entries each need their own last product
FOUR_ENTRIES = "inputs: x0, x1\noutputs: y0, y1\nt1 = x0*x1\nt2 = cos(t1)\ny0 = t2\ny1 = t2*x0"


def test_every_entry_owes_its_own_last_product():
    """The four entries through t1 each need a multiplication (s, r, t) of their own;
    the junction bound sees three (y0's paths leave t2 by a unit edge)."""
    g = from_trace(FOUR_ENTRIES)
    assert elimination_lower_bound(g) == 3
    assert bracketing_lower_bound(g) == 4 == effective_optimal_search(g).cost
    assert min(accumulate(g, m, verify=False).mults_effective for m in ELIMINATIONS) == 4


@settings(max_examples=40, deadline=None)
@given(programs(max_inputs=3, max_statements=9))
def test_at_most_the_effective_vertex_optimum_and_at_least_the_junction_bound(g):
    """On random programs (unit, constant and general labels) the bounds never exceed
    the proven effective vertex optimum, whose A* uses them and prices its order as the
    built set counts."""
    result = effective_optimal_search(g)
    assert result.proven
    assert elimination_lower_bound(g) <= bracketing_lower_bound(g) <= result.cost
    order = [v for _, v in result.moves]
    assert result.cost == accumulate(g, "vertex", order=order, verify=False).mults_effective


# of the 9 grouped programs of tests/test_best.py, those whose runs reach code the others do
# not (branch coverage, 2026-12)
@pytest.mark.parametrize("seed", [7, 35, 53, 57, 58, 65, 69])
def test_at_most_every_edge_elimination(seed):
    """Exact against the exhaustive effective edge-elimination search (every front and
    back sequence) on the grouped programs where the junction bound is exact too. Edge
    elimination reaches products a vertex order cannot; on 7, 35, 53, 58 and 65 no edge
    sequence beats the junction bound either, which is exact there (groups raise it
    above the per-vertex sum; these were tests/test_best.py's, of its 9 grouped
    programs by coverage)."""
    g = _grouped_program(seed)
    edge_optimum = _effective_edge_optimum(g)
    assert bracketing_lower_bound(g) == edge_optimum
    if seed in (7, 35, 53, 58, 65):
        bound = elimination_lower_bound(g)
        assert bound > sum(effective_vertex_bounds(g).values())
        assert bound == edge_optimum == effective_optimal_search(g).cost


# of the seeds 1, 4, …, 37, those whose runs reach code the others do not (coverage, 2026-12)
@pytest.mark.parametrize("seed", [1, 4, 7, 10, 13, 16, 19, 22, 25, 31])
def test_at_most_every_method(seed):
    """No method, edge and face eliminations included, pays less (12 statements)."""
    g = random_program(seed, n_inputs=3, n_statements=12, n_outputs=3)
    floor = bracketing_lower_bound(g)
    methods = [*ELIMINATIONS, "face-greedy"]
    if len(g.intermediates) <= 10:
        methods += ["edge-optimal", "face-optimal"]
    paid = {m: accumulate(g, m, verify=False, budget=2).mults_effective for m in methods}
    assert min(paid.values()) >= floor, paid


def test_the_heart_dipole_is_optimal_in_reverse_mode():
    """Each 14-vertex part of the heart dipole owes 12, its effective vertex optimum
    (the junction bound: 8): no elimination beats reverse mode's 24, the elemental graph's
    0.80 goal (19) is out of reach, and best stops as soon as it has 24: a small budget
    (2) buys the proof, the parts' programs being small (the same result as 20)."""
    g = REAL_WORLD["heart-dipole"]()
    parts = [p for p in independent_parts(g) if len(p.intermediates) == 14]
    assert [bracketing_lower_bound(p) for p in parts] == [12, 12]
    assert [elimination_lower_bound(p) for p in parts] == [8, 8]
    assert bracketing_lower_bound(g) == 24 == accumulate(g, "reverse", verify=False).mults_effective
    es = best(g, budget=2, ceiling=NO_CEILING)
    assert es.mults_effective == es.info["lower_bounds"][ANY_ELIMINATION] == 24
    # the proven effective vertex optimum, reported (the parts searched one by one)
    assert es.info["lower_bounds"][EFFECTIVE_VERTEX] == 24
    assert es.info["proven_optimal"] and es.info["optimal_among"] == "any elimination"
    assert es.info["cut_by_time"] is False  # counted work decided it, not the clock


@pytest.mark.parametrize(
    "name, binary, bound, junction, baseline",
    [
        ("heart-dipole", True, 48, 40, 48),
        ("robot-arm", False, 61, 49, 67),
        ("robot-arm", True, 73, 65, 75),
        ("reaction-rates", True, 55, 49, 55),
    ],
)
def test_the_goal_is_out_of_reach_where_the_bracketings_say_so(
    name, binary, bound, junction, baseline
):
    """Solved to optimality: no elimination gets below 0.80 of the best baseline. On
    the binary graphs the junction bound proves it too (tests/test_best.py::
    test_the_goal_is_out_of_reach_where_the_bound_says_so, the other functions)."""
    g = REAL_WORLD[name](binary=binary)
    assert bracketing_lower_bound(g) == bound > elimination_lower_bound(g) == junction
    assert min(accumulate(g, m, verify=False).mults_effective for m in BASELINES) == baseline
    assert bound > 0.8 * baseline
    assert (junction > 0.8 * baseline) == binary


def test_annealing_reaches_the_optimum_on_black_scholes():
    """Annealing from reverse mode (54 effective multiplications on the elemental
    Black–Scholes graph) finds an order that pays 50; the cuts prove 41 (45 before
    the constants that share a path, which a product folds, were read as one per path)."""
    g = REAL_WORLD["black-scholes"]()
    assert elimination_lower_bound(g) == 41
    reverse = list(reversed(g.intermediates))
    assert effective_cost(g, reverse) == 54
    cost, order = anneal_windows(g, reverse, "effective", 400 * len(reverse), seed=0)
    assert cost == effective_cost(g, order) == 50


@pytest.mark.parametrize("binary", [False, True])
def test_the_mlps_weights_fold(binary):
    """The MLP's 36 constant weights lie on common paths (x1 -3/10-> ... tanh' ... -4/5->):
    a product folds them (3/10·tanh'·4/5 is one multiplication), so the bounds keep one
    per path (every weight is below 1 in size: no product of them is ±1) and prove 53;
    reading every one as a junction product claimed 100 > 0.8 * 124 (not a bound for the
    sets dgraph prices), reading every shared one as a unit 29."""
    g = REAL_WORLD["mlp"](binary=binary)
    baseline = min(accumulate(g, m, verify=False).mults_effective for m in BASELINES)
    assert baseline == 124
    assert bracketing_lower_bound(g, seconds=10) == 53 < 0.8 * baseline


def test_a_time_limit_still_gives_a_bound(monkeypatch):
    """Stopped early, HiGHS's proven bound (or the junction bound) is returned: a second
    of budget is a count of work (nonzeros the relaxation may have, branch-and-bound
    nodes), never the clock. The MLP's program outgrows a second's nonzeros while it is
    built (35,172 of 10,000): it is neither finished nor solved."""
    g = REAL_WORLD["mlp"]()
    given, built = [], []
    solve, require = bracketing._Program.solve, bracketing._Program.require

    def counted(self, seconds):
        given.append(seconds)
        return solve(self, seconds)

    def required(self, path):
        require(self, path)
        built.append(self.cells)

    monkeypatch.setattr(bracketing._Program, "solve", counted)
    monkeypatch.setattr(bracketing._Program, "require", required)
    floor = bracketing_lower_bound(g, seconds=1.0)
    assert floor == elimination_lower_bound(g) == 42  # what best finds: 110
    assert not given and built[-2] <= bracketing.CELLS_PER_SECOND < built[-1]
    assert len(built) < sum(1 for _ in _paths(unit_contracted(g)))


@pytest.mark.parametrize(("seconds", "bound"), [(0.02, 8), (0.03, 12)])
def test_a_program_past_its_budget_stops_with_the_bound_it_would_give(seconds, bound):
    """Building stops once the rows' nonzeros pass what ``seconds`` buys: the bound is the
    one the whole program, built and then refused by :meth:`_Program.solve`, gives (a
    heart dipole part's: 268 nonzeros, 12 where the junction bound proves 8)."""
    part = max(independent_parts(REAL_WORLD["heart-dipole"]()), key=lambda p: p.n_edges)
    g = unit_contracted(part)
    whole = _Program(bound_kinds(g))
    for path in _paths(g):
        whole.require(path)
    whole.add_cuts(g)
    assert whole.cells == sum(len(row) for row, _ in whole.rows) == 268
    assert bracketing_lower_bound(part, seconds) == bound
    assert bound == max(elimination_lower_bound(part), whole.solve(seconds))


def _program_optimum(g) -> int:
    """The bracketing program on ``g`` itself, solved to the end, without the cuts."""
    program = _Program(bound_kinds(g))
    for path in _paths(g):
        program.require(path)
    return program.solve(None)


# of the seeds 0, 4, …, 56, those whose runs reach code the others do not (coverage, 2026-12)
@pytest.mark.parametrize("seed", [0, 12, 44])
def test_contracting_unit_edges_changes_no_optimum(seed):
    """Merging a vertex into its only ±1 edge's other end keeps every path and kind, so
    the program has the same optimum (on fewer vertices, where there was such an edge)."""
    g = random_program(seed, n_inputs=3, n_statements=12, n_outputs=3)
    for part in independent_parts(g):
        contracted = unit_contracted(part)
        assert set(contracted.intermediates) <= set(part.intermediates)
        assert count_paths(contracted) == count_paths(part)
        assert _program_optimum(contracted) == _program_optimum(part)


def test_contraction_shortens_the_binary_graphs():
    g = REAL_WORLD["roe-flux"](binary=True)
    assert (len(g.intermediates), len(unit_contracted(g).intermediates)) == (100, 51)
