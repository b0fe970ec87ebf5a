"""``compare --budget`` is one total of work: the searches share a fixed fraction of it
equally, however long the methods before them took, so the shares never depend on the
machine's speed; a method cut by the time ceiling (CPU time, with a wall-clock backstop)
is skipped with a reason and the
comparison says it was cut. Timed by a fake clock: no timed test."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import dgraph
from dgraph.cli import main
from dgraph.core import budget as clocks
from dgraph.methods import compare
from dgraph.search.timebox import ChildDied
from tests.fake_clock import FakeClock, no_children_waited_on  # noqa: F401 (autouse)

METHODS = ["forward", "vertex-optimal", "edge-optimal", "best"]
comparing = importlib.import_module("dgraph.methods.compare")  # the package's name is the function


ROOMY = 600.0  # a ceiling slack neither the fake clock nor a loaded machine reaches


@pytest.fixture
def clocked(monkeypatch):
    """Every method takes one fake second; the budgets they were given are recorded. The
    tests pass ``ceiling_slack=ROOMY``: the clock never reaches the ceiling."""
    clock, given = FakeClock(), {}
    real = comparing.accumulate

    def accumulate(graph, name, **options):
        given[name] = options.get("budget")
        clock.now += 1.0
        return real(graph, name, **{**options, "budget": None})

    monkeypatch.setattr(clocks, "time", clock)
    monkeypatch.setattr(comparing, "accumulate", accumulate)
    monkeypatch.setattr(comparing, "timeboxed", lambda run, seconds: run())  # in-process
    return given


def test_the_budget_is_shared_among_the_searches(clocked, discrepancy_graph):
    """Each method takes one fake second: the shares stay what the budget says."""
    comparison = compare(discrepancy_graph, METHODS, budget=3.5, ceiling_slack=ROOMY)
    share = comparing.SEARCH_FRACTION * 3.5 / 3
    assert {m: clocked[m] for m in METHODS[1:]} == dict.fromkeys(METHODS[1:], share)
    assert list(comparison.results) == METHODS and not comparison.skipped
    assert not comparison.cut_by_time and comparison.to_dict()["cut_by_time"] is False


def test_the_shares_do_not_depend_on_how_long_the_methods_took(monkeypatch, discrepancy_graph):
    """The old shares were of the time left: a slow machine got smaller searches."""
    shares, real = [], comparing.accumulate
    for seconds in (0.0, 3.0):
        clock, given = FakeClock(), {}

        def accumulate(graph, name, _given=given, _clock=clock, _s=seconds, **options):
            _given[name] = options.get("budget")
            _clock.now += _s
            return real(graph, name, **{**options, "budget": None})

        monkeypatch.setattr(clocks, "time", clock)
        monkeypatch.setattr(comparing, "accumulate", accumulate)
        monkeypatch.setattr(comparing, "timeboxed", lambda run, seconds: run())
        compare(discrepancy_graph, METHODS, budget=4.0, ceiling_slack=ROOMY)
        shares.append(given)
    assert shares[0] == shares[1]


def test_a_tiny_budget_skips_the_searches_with_a_reason(clocked, discrepancy_graph):
    comparison = compare(discrepancy_graph, METHODS, budget=0.1, ceiling_slack=ROOMY)
    assert "best" not in clocked
    assert comparison.skipped["best"] == "its share of the budget of 0.1 s is below 0.05 s"
    assert [r["method"] for r in comparison.rows()] == METHODS  # a row or a reason each


def test_each_gives_every_search_the_whole_budget(clocked, discrepancy_graph):
    compare(discrepancy_graph, METHODS, budget=2.0, each=True, ceiling_slack=ROOMY)
    assert {m: clocked[m] for m in METHODS[1:]} == dict.fromkeys(METHODS[1:], 2.0)


def test_progress_is_reported_in_running_order(discrepancy_graph):
    seen = []
    compare(discrepancy_graph, ["best", "forward"], progress=lambda *a: seen.append(a))
    assert seen == [("forward", 1, 2), ("best", 2, 2)]


def test_no_progress_bar_off_a_terminal(capsys):
    sin = str(Path(dgraph.__file__).parent / "data" / "naumann_sin.trace")
    assert main(["compare", sin, "--methods", "forward,reverse", "--budget", "2"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "best: " in out
    assert main(["compare", sin, "--methods", "forward", "--quiet"]) == 0


def test_a_method_cut_by_the_ceiling_is_skipped_and_reported(
    clocked, monkeypatch, discrepancy_graph
):
    monkeypatch.setattr(comparing, "timeboxed", lambda run, seconds: None)  # never finishes
    comparison = compare(
        discrepancy_graph,
        ["zhou", "reverse", "best"],
        budget=3.0,
        ceiling_slack=ROOMY,
        in_process_edges=0,  # as on a large graph
    )
    assert comparison.skipped["zhou"].startswith("cut by the time ceiling: did not finish")
    assert comparison.skipped["reverse"].startswith("cut by the time ceiling")
    assert list(comparison.results) == ["best"]
    assert comparison.cut_by_time and comparison.to_dict()["cut_by_time"] is True


def test_a_method_whose_process_died_is_reported(monkeypatch, discrepancy_graph):
    def died(run, seconds):
        raise ChildDied("the search's child process died without an answer (killed by signal 9)")

    monkeypatch.setattr(comparing, "timeboxed", died)
    comparison = compare(discrepancy_graph, ["zhou", "forward"], budget=3.0, in_process_edges=0)
    assert comparison.skipped["zhou"] == (
        "its process died: the search's child process died without an answer (killed by signal 9)"
    )
    assert comparison.skipped["forward"] == comparison.skipped["zhou"]
    assert not comparison.results and not comparison.cut_by_time


def test_the_ceiling_keeps_the_budget_and_there_is_one_without_a_budget(
    monkeypatch, discrepancy_graph
):
    """Within 1.5 x the budget from 20 s up; without a budget, the default's ceiling: each
    method that is not a search gets its slice of it, best the rest."""
    assert all(comparing.compare_ceiling(b) <= 1.5 * b for b in (20, 60, 600))
    assert comparing.compare_ceiling(None) == comparing.compare_ceiling(comparing.DEFAULT_SECONDS)
    assert comparing.compare_ceiling(4.0, slack=2.0) == 1.25 * 4.0 + 0.5 * 2.0
    given = {}

    def timeboxed(run, limit):
        given[run.args[1]] = limit.left()
        return run()

    monkeypatch.setattr(comparing, "timeboxed", timeboxed)
    ceilings = []
    real = comparing.accumulate

    def accumulate(graph, name, **options):
        ceilings.append(options.get("ceiling"))
        return real(graph, name, **options)

    monkeypatch.setattr(comparing, "accumulate", accumulate)
    comparison = compare(discrepancy_graph, ["zhou", "dstar", "best"], in_process_edges=0)
    assert set(given) == {"zhou", "dstar"} and not comparison.skipped
    assert 0 < sum(given.values()) <= comparing.compare_ceiling(None)
    assert 0 < ceilings[-1] <= comparing.compare_ceiling(None)  # best's


def test_a_comparison_leaves_no_block_cache_behind(monkeypatch, discrepancy_graph):
    from dgraph.blocks import RECENT

    RECENT.entries[("product", 1, 2)] = (None, None, None, 0)  # as a call would leave it
    compare(discrepancy_graph, ["forward"])
    assert RECENT.entries == {} and RECENT.held == 0


def test_results_from_a_child_process_are_on_the_graph_and_verified(discrepancy_graph):
    comparison = compare(discrepancy_graph, ["forward", "zhou"], budget=30.0, in_process_edges=0)
    for es in comparison.results.values():
        assert es.graph is discrepancy_graph and es.verified
    assert comparison.results["forward"].mults == 14


def test_in_jupyter_compare_drives_a_bar_that_shows_after_two_seconds(
    discrepancy_graph, monkeypatch
):
    import importlib

    from dgraph.core import progress as progress_module

    compare_module = importlib.import_module("dgraph.methods.compare")

    made = []

    class Bar:
        def __init__(self, **kw):
            made.append(kw)
            self.n, self.descriptions, self.closed = 0, [], False

        def set_description(self, text, refresh=True):
            self.descriptions.append(text)

        def update(self, k):
            self.n += k

        def close(self):
            self.closed = True

    bars = []
    monkeypatch.setattr(progress_module, "_bar", lambda **kw: bars.append(Bar(**kw)) or bars[-1])
    monkeypatch.setattr(compare_module, "in_notebook", lambda: True)
    compare(discrepancy_graph, ["forward", "reverse"])
    assert made[0]["delay"] == progress_module.DELAY == 2.0 and made[0]["total"] == 2
    assert bars[0].descriptions == ["forward", "reverse"] and bars[0].closed
    monkeypatch.setattr(compare_module, "in_notebook", lambda: False)
    compare(discrepancy_graph, ["forward"])
    assert len(bars) == 1  # outside Jupyter, no bar


def test_a_child_sends_its_result_back_without_the_graph(discrepancy_graph):
    """The caller has the graph: a copy sent back would be rebuilt only to be dropped (a
    second on a 5,000-step chain). Plain pickle cannot load what was sent: it names the
    graph instead of holding it."""
    import io
    import pickle

    sent = comparing._run(discrepancy_graph, "forward", {})
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(sent)
    es = comparing._GraphGiven(io.BytesIO(sent), discrepancy_graph).load()
    assert es.graph is discrepancy_graph and es.verified and es.mults == 14
