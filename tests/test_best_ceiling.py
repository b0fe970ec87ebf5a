"""``best`` under its time ceiling (CPU time, with a wall-clock backstop): every phase run
in-process checks it (the rank bound at every edge, the annealing before every move and
while it prices its start), the searches stop a counted reserve before it to build and
verify the winner, and once it has passed the winner is a candidate built already. A
ceiling that has passed before the call cuts every phase on any machine, and says which
clock cut it: no test here depends on the clock's speed."""

from __future__ import annotations

import random

import pytest

from dgraph.core.budget import BACKSTOP_FACTOR, CPU, WALL, Deadline
from dgraph.frontends import bundled, from_trace
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import accumulate
from dgraph.search.best import (
    WINNER_SECONDS,
    WINNER_SECONDS_PER_EDGE,
    Ceiling,
    best,
    winner_seconds,
)
from dgraph.search.rank_bound import rank_lower_bound
from dgraph.search.windows import anneal_windows, improve_windows, order_cost

NO_CEILING = 600.0  # seconds: a ceiling no test run reaches
BASELINES = ("forward", "reverse", "markowitz")


def _chain(n: int) -> str:
    steps = [f"v{k} = sin({'x' if k == 1 else f'v{k - 1}'}) * x" for k in range(1, n)]
    return "\n".join(["inputs: x", "outputs: y", *steps, f"y = sin(v{n - 1})"]) + "\n"


@pytest.fixture(scope="module")
def layered():
    return random_layered(1, 10, 10)  # 80 intermediates: beyond the exact searches


@pytest.fixture(scope="module")
def spherical():
    return bundled("spherical_coordinates.trace")  # 14 intermediates: every search runs


@pytest.fixture(scope="module")
def chain():
    return from_trace(_chain(40))  # one path: the rank bound runs; annealed first


def _gone() -> Deadline:
    """A deadline that has passed, whatever the machine."""
    return Deadline(0.0)


def _far() -> Deadline:
    """A deadline no test run reaches, on either clock."""
    return Deadline(NO_CEILING)


def test_the_rank_bound_stops_at_its_deadline(chain):
    assert rank_lower_bound(chain, deadline=_gone()) is None
    assert rank_lower_bound(chain, deadline=_far()) == rank_lower_bound(chain)
    assert rank_lower_bound(chain) >= 1


@pytest.mark.parametrize("objective", ["structural", "effective"])
def test_annealing_past_its_deadline_gives_its_start_priced_whole(layered, objective):
    start = list(layered.intermediates)
    random.Random(1).shuffle(start)
    cost, order = anneal_windows(layered, start, objective, steps=500, deadline=_gone())
    assert order == start and cost == order_cost(layered, start, objective)
    roomy = anneal_windows(layered, start, objective, steps=500, deadline=_far())
    assert roomy == anneal_windows(layered, start, objective, steps=500)
    assert roomy.cost < cost  # the moves it makes when it has the time


def test_window_improvement_past_its_deadline_gives_its_start(layered):
    start = list(layered.intermediates)
    random.Random(1).shuffle(start)
    assert improve_windows(layered, start, deadline=_gone()) == (order_cost(layered, start), start)


def test_the_searches_stop_the_winners_seconds_before_the_ceiling(layered):
    assert winner_seconds(layered) == pytest.approx(
        WINNER_SECONDS + WINNER_SECONDS_PER_EDGE * layered.n_edges
    )
    roomy, short = Ceiling(10.0, reserve=3.0), Ceiling(2.0, reserve=3.0)
    assert roomy.search_end.cpu == pytest.approx(roomy.end.cpu - 3.0)
    assert short.search_end.cpu == pytest.approx(short.end.cpu - 1.0)  # at most half of it
    # the backstop: BACKSTOP_FACTOR times as much wall clock, kept back as many times as far
    assert roomy.end.wall - roomy.search_end.wall == pytest.approx(3.0 * BACKSTOP_FACTOR)


@pytest.mark.parametrize("name", ["chain", "layered", "spherical"])
def test_a_passed_ceiling_stops_every_phase_and_the_winner_is_verified(name, request):
    """Ceiling 0: only the baselines are priced, every search and bound after them is
    cut and says so, and the cheapest baseline comes back built and verified."""
    g = request.getfixturevalue(name)
    es = best(g, budget=2, ceiling=0.0)
    assert es.verified
    assert set(es.info["candidates"]) == set(BASELINES)
    assert es.mults_effective == min(accumulate(g, m).mults_effective for m in BASELINES)
    cut = set(es.info["cut_phases"])
    assert es.info["cut_by_time"] is True and es.info["budget_note"].startswith(
        "cut by the time ceiling of 0 s of CPU time ("
    )
    assert set(es.info["cut_by"].values()) == {CPU} and set(es.info["cut_by"]) == cut
    every = {"structure methods", "vertex-optimal", "junction bound", "greedy orders"}
    assert every | {"effective-optimal", "annealing", "bracketing bound"} <= cut
    assert name == "spherical" or "early annealing" in cut  # beyond the exact searches
    assert name != "chain" or "rank bound" in cut  # one path: it runs where not cut


def test_with_time_the_same_searches_run_and_find_more(spherical):
    es = best(spherical, budget=0.5, ceiling=NO_CEILING)
    assert es.info["cut_by_time"] is False and not es.info["cut_phases"]
    assert set(es.info["candidates"]) > set(BASELINES) | {"annealing"}


def test_past_the_ceiling_the_winner_is_a_candidate_built_already(spherical):
    """A given verified set (reverse) and a cheaper order not yet built (forward): past
    the ceiling the given set wins, noted as the cut "winner"; with time, never it."""
    reverse = accumulate(spherical, "reverse")
    forward = accumulate(spherical, "forward")
    assert forward.mults_effective < reverse.mults_effective
    late = best(spherical, budget=2, ceiling=0.0, candidates=[reverse])
    assert late.info["found_by"] == "reverse" and "winner" in late.info["cut_phases"]
    assert late.verified and late.mults_effective == reverse.mults_effective
    timely = best(spherical, budget=0.5, ceiling=NO_CEILING, candidates=[reverse])
    assert timely.info["found_by"] != "reverse" and not timely.info["cut_phases"]
    assert timely.verified and timely.mults_effective <= forward.mults_effective


def test_a_cut_says_which_clock_made_it(spherical, monkeypatch):
    """A ceiling whose CPU seconds are far but whose wall-clock backstop has passed (a
    search that got no CPU): every phase is cut, by the wall clock, and the note says
    so."""
    real = Deadline.__init__

    def no_wall(self, seconds, backstop=None, within=None):
        real(self, seconds, backstop, within)
        self.wall = min(self.wall, 0.0)  # the backstop long passed

    monkeypatch.setattr(Deadline, "__init__", no_wall)
    es = best(spherical, budget=2, ceiling=NO_CEILING)
    assert es.verified and es.info["cut_by_time"] is True
    assert set(es.info["cut_by"].values()) == {WALL}
    backstop = BACKSTOP_FACTOR * NO_CEILING
    assert es.info["budget_note"].startswith(
        f"cut by the time ceiling of its wall-clock backstop of {backstop:g} s ("
    )


class _Clocks:
    """Stand-ins for the CPU and wall clocks (:mod:`dgraph.core.budget`'s ``time``)."""

    def __init__(self) -> None:
        self.cpu, self.wall = 100.0, 1000.0

    def process_time(self) -> float:
        return self.cpu

    def perf_counter(self) -> float:
        return self.wall


def test_a_deadline_counts_cpu_time_and_keeps_a_wall_clock_backstop(monkeypatch):
    """A loaded machine: 50 s of wall clock pass while the process gets 1 s of CPU; a
    deadline of 20 CPU s has 19 left. Past its CPU seconds it has passed on the CPU
    clock; a process that gets no CPU for its backstop's 20 × BACKSTOP_FACTOR s has
    passed on the wall."""
    from dgraph.core import budget as clocks

    fake = _Clocks()
    monkeypatch.setattr(clocks, "time", fake)
    monkeypatch.setattr(clocks, "_waited", 0.0)
    deadline = Deadline(20.0)
    fake.cpu, fake.wall = fake.cpu + 1.0, fake.wall + 50.0
    assert deadline.passed() is None and deadline.left() == pytest.approx(19.0)
    fake.cpu += 19.0
    assert deadline.passed() == CPU and deadline.left() == 0.0
    starved = Deadline(20.0)
    fake.wall += 20.0 * BACKSTOP_FACTOR - 1.0
    assert starved.passed() is None and starved.wall_left() == pytest.approx(1.0)
    fake.wall += 1.0
    assert starved.passed() == WALL and starved.left() == 0.0
    inner = Deadline(100.0, within=starved)  # never later than the one it is within
    assert inner.cpu == starved.cpu and inner.wall == starved.wall
    clocks.waited(5.0)  # a child's CPU seconds, waited on, count on the process's clock
    assert clocks.now() == pytest.approx(fake.cpu + 5.0)


def test_a_deadline_in_a_multithreaded_process_lasts_its_wall_clock_seconds(monkeypatch):
    """Threads on several cores: the process's CPU time runs three times as fast as the
    wall clock. A deadline of 20 s is not passed when 60 CPU s have gone in 20 / 3 s of
    wall clock; it has 40 / 3 s left, and passes, on its CPU end, once 20 s of wall clock
    have gone too: never sooner than a wall-clock ceiling."""
    from dgraph.core import budget as clocks

    fake = _Clocks()
    monkeypatch.setattr(clocks, "time", fake)
    monkeypatch.setattr(clocks, "_waited", 0.0)
    deadline = Deadline(20.0)
    fake.cpu, fake.wall = fake.cpu + 60.0, fake.wall + 20.0 / 3
    assert deadline.passed() is None and deadline.left() == pytest.approx(40.0 / 3)
    fake.cpu, fake.wall = fake.cpu + 40.0, fake.wall + 40.0 / 3
    assert deadline.passed() == CPU and deadline.left() == 0.0
    early = Deadline(20.0).earlier(5.0)  # both ends five seconds sooner
    fake.cpu, fake.wall = fake.cpu + 45.0, fake.wall + 14.0
    assert early.passed() is None and early.left() == pytest.approx(1.0)
    fake.wall += 1.0
    assert early.passed() == CPU


def _steps(y, th):
    """A short loop's tensor graph (a Lotka-Volterra Euler march): ~100 block vertices."""
    import numpy as np

    for _ in range(8):
        y = y + 0.05 * np.array([th[0] * y[0] - th[1] * y[0] * y[1], th[2] * y[0] * y[1] - y[1]])
    return y


def test_a_passed_ceiling_stops_the_cheapest_first_orders(monkeypatch):
    """The greedy order priced every vertex left at every step (quadratic: 200 s on a
    20-step RK4 loop's 2,739 blocks, survey41; since session 62 each vertex once, then
    only the eliminated vertex's neighbours); past the ceiling it takes no step, the
    vertices in the graph's order, and says so."""
    from dgraph.elimination.kernel import Elimination
    from dgraph.frontends import from_function
    from dgraph.search.orders import cheapest_first_order

    g = from_function(_steps, sizes=[(2,), (3,)], level="array")
    assert g.is_tensor
    n = len(g.intermediates)
    assert cheapest_first_order(g, stop=lambda: True) == list(g.intermediates)
    calls = []
    original = Elimination.vertex_cost
    monkeypatch.setattr(
        Elimination, "vertex_cost", lambda self, v: calls.append(v) or original(self, v)
    )
    es = best(g, budget=2, ceiling=0.0)
    assert es.verified and "greedy" in es.info["cut_phases"]
    assert len(calls) < n  # not one full step of the greedy order (n prices)
    calls.clear()
    cheapest_first_order(g)
    assert n <= len(calls) < 6 * n  # when it is not stopped: not n (n + 1) / 2 = 28,680


def _three_steps(y, th):
    """:func:`_steps`, three steps: ~40 block vertices."""
    import numpy as np

    for _ in range(3):
        y = y + 0.05 * np.array([th[0] * y[0] - th[1] * y[0] * y[1], th[2] * y[0] * y[1] - y[1]])
    return y


def _priced_every_step(graph, rng=None, width=3):
    """The greedy order as it was first written: every vertex left priced at every step."""
    from dgraph.elimination.kernel import BLOCKS, Elimination

    state, left, order = Elimination(graph, BLOCKS), list(graph.intermediates), []
    while left:
        prices = sorted((state.vertex_cost(v), k, v) for k, v in enumerate(left))
        v = (prices[0] if rng is None else rng.choice(prices[:width]))[2]
        state.eliminate_vertex(v)
        left.remove(v)
        order.append(v)
    return order


def test_the_cheapest_first_order_reprices_only_what_an_elimination_changes():
    """Pricing only the eliminated vertex's neighbours again gives the order, ties and
    random restarts included, that pricing every vertex at every step gives."""
    import random

    from dgraph.frontends import bundled, from_function
    from dgraph.search.orders import cheapest_first_order

    graphs = [
        bundled("spherical_coordinates.trace"),
        from_function(_three_steps, sizes=[(2,), (3,)], level="array"),
    ]
    for g in graphs:
        assert cheapest_first_order(g) == _priced_every_step(g)
        for seed in (0, 1):
            ours = cheapest_first_order(g, random.Random(seed))
            assert ours == _priced_every_step(g, random.Random(seed))
