"""``dgraph compare`` keeps one time ceiling for the whole command, codegen's choice
included: the comparison ends early enough to leave the choice its predicted seconds (a
count of the graph's edges), a choice the budget cannot pay for is skipped with a note
(the same on every run), and one the clock cuts says so. The ceiling is CPU time with a
wall-clock backstop (:mod:`dgraph.core.budget`). Timed by fake clocks and stand-in
children: no timed test."""

from __future__ import annotations

import importlib
import json
from functools import partial
from importlib import resources

import pytest

import dgraph
from dgraph.codegen import selection
from dgraph.core import budget as clocks
from dgraph.core.budget import Deadline
from dgraph.methods import compare
from tests.fake_clock import FakeClock, no_children_waited_on  # noqa: F401 (autouse)

cli = importlib.import_module("dgraph.cli.main")  # the package's name is the function
comparing = importlib.import_module("dgraph.methods.compare")
_CHOICE = cli._Choice
SPHERICAL = str(resources.files("dgraph.data").joinpath("spherical_coordinates.trace"))
NOTE = "note: codegen's choice not made: "


def _without_seconds(data):
    """``data`` with every ``seconds`` field dropped (the one part that may differ)."""
    if isinstance(data, dict):
        return {k: _without_seconds(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [_without_seconds(v) for v in data]
    return data


def _run(capsys, *args):
    cli.main(["compare", SPHERICAL, "--methods", "forward,reverse,zhou", "-q", *args])
    return capsys.readouterr().out


def test_a_choice_the_budget_cannot_pay_for_is_skipped_with_a_note(capsys, monkeypatch):
    """Predicted at 0.1 s an edge, the spherical coordinates' choice fits a third of the
    ceiling of --budget 20, not of --budget 1: there the note says why, the same twice."""
    monkeypatch.setattr(selection, "CHOICE_SECONDS_PER_EDGE", 0.1)
    graph = cli.load_graph(cli._parser().parse_args(["compare", SPHERICAL]))
    need = selection.choice_seconds(graph)
    assert cli.CHOICE_SHARE * comparing.compare_ceiling(1) < need
    assert need <= cli.CHOICE_SHARE * comparing.compare_ceiling(20)
    text = _run(capsys, "--budget", "1")
    assert NOTE + f"building its programs on {graph.n_edges} edges" in text
    assert "codegen ships" not in text and "codegen candidate" not in text
    first, second = (json.loads(_run(capsys, "--budget", "1", "--json")) for _ in range(2))
    assert _without_seconds(first) == _without_seconds(second)
    assert first["codegen"]["skipped"].startswith("codegen's choice not made: building")
    assert "codegen ships: " in _run(capsys, "--budget", "20")


def test_the_comparison_leaves_the_choice_its_predicted_seconds(capsys, monkeypatch):
    """The deadline handed to compare is the command's ceiling, from its start, less what
    printing and exiting take and what the choice is predicted to take."""
    seen = {}
    real = cli.compare

    def spy(*args, deadline=None, **options):
        seen["deadline"] = deadline
        return real(*args, deadline=deadline, **options)

    monkeypatch.setattr(cli, "compare", spy)
    clock = FakeClock()  # CPU time stands still: the command started at 100, 3 s ago
    clock.now = 103.0
    monkeypatch.setattr(clocks, "time", clock)
    monkeypatch.setattr(clocks, "_waited", 0.0)  # no children waited on before
    monkeypatch.setattr(cli, "_started", lambda argv: 100.0)
    _run(capsys, "--budget", "4")
    graph = cli.load_graph(cli._parser().parse_args(["compare", SPHERICAL]))
    ceiling = comparing.compare_ceiling(4)
    expected = 100.0 + ceiling - cli.EXIT_SECONDS - selection.choice_seconds(graph)
    assert seen["deadline"].cpu == pytest.approx(expected)


def _choice_in_process_up_to(monkeypatch, edges):
    """``dgraph compare``'s codegen choice made in-process on graphs of up to ``edges``."""
    monkeypatch.setattr(cli, "_Choice", partial(_CHOICE, in_process_edges=edges))


@pytest.fixture(params=["after", "beside"])
def boxed(request, monkeypatch):
    """As on a large graph: the choice in a child, after the comparison (two cores) or
    beside it (many)."""
    _choice_in_process_up_to(monkeypatch, 0)
    monkeypatch.setattr(cli, "_cores", lambda: 64 if request.param == "beside" else 2)
    return request.param


class _Never:
    """A child that never answers (Background's and timeboxed's stand-in)."""

    def __init__(self, run, seconds):
        pass

    def wait(self, seconds):
        return None

    def stop(self):
        pass


def test_a_choice_cut_by_the_clock_says_so(capsys, monkeypatch, boxed):
    monkeypatch.setattr(cli, "timeboxed", lambda run, seconds: None)  # never finishes
    monkeypatch.setattr(
        cli, "Background", type("B", (_Never,), {"concurrent": cli.Background.concurrent})
    )
    text = _run(capsys)
    assert NOTE + "cut by the time ceiling" in text and "codegen ships" not in text
    data = json.loads(_run(capsys, "--json"))
    assert data["codegen"]["cut_by_time"] is True
    assert "cut by the time ceiling" in data["codegen"]["skipped"]


def test_a_choice_whose_process_died_says_so(capsys, monkeypatch, boxed):
    from dgraph.search.timebox import ChildDied

    def died(*args):
        raise ChildDied("the search's child process died without an answer (exit 1)")

    class Died(_Never):
        concurrent = cli.Background.concurrent

        def wait(self, seconds):
            died()

    monkeypatch.setattr(cli, "timeboxed", died)
    monkeypatch.setattr(cli, "Background", Died)
    assert NOTE + "its process died: " in _run(capsys)


def test_a_choice_made_in_a_child_is_the_one_made_in_process(capsys, monkeypatch, boxed):
    """Beside the comparison the child makes the candidates' sets itself, after it it
    reuses the comparison's: the same choice either way. Only plain data crosses back
    (the table and the JSON object), never a program."""
    _choice_in_process_up_to(monkeypatch, 10**6)
    in_process = json.loads(_run(capsys, "--json"))["codegen"]
    _choice_in_process_up_to(monkeypatch, 0)
    real, started = cli.timeboxed, []
    monkeypatch.setattr(cli, "timeboxed", lambda run, seconds: real(run, 600.0))

    class Patient(cli.Background):
        def __init__(self, run, seconds):
            started.append(run.args[0])
            super().__init__(run, 600.0)

    monkeypatch.setattr(cli, "Background", Patient)
    assert json.loads(_run(capsys, "--json"))["codegen"] == in_process
    assert "codegen ships: " in _run(capsys)
    assert len(started) == (2 if boxed == "beside" else 0)
    assert all(isinstance(source, dgraph.DGraph) for source in started)


def test_a_deadline_ends_the_comparison_before_its_ceiling(monkeypatch, discrepancy_graph):
    """Every method that is not a search gets a slice of what is left before the
    deadline, and best the rest; one already passed runs none of them, searches
    included."""
    clock, slices, ceilings = FakeClock(), {}, []
    real = comparing.accumulate

    def accumulate(graph, name, **options):
        ceilings.append(options.get("ceiling"))
        return real(graph, name, **options)

    def timeboxed(run, limit):
        slices[run.args[1]] = limit.left()
        return run()

    monkeypatch.setattr(clocks, "time", clock)
    monkeypatch.setattr(comparing, "timeboxed", timeboxed)
    monkeypatch.setattr(comparing, "accumulate", accumulate)
    deadline = Deadline(2.0)
    comparison = compare(
        discrepancy_graph,
        ["zhou", "dstar", "best"],
        budget=10.0,
        deadline=deadline,
        in_process_edges=0,
    )
    assert set(slices) == {"zhou", "dstar"} and not comparison.skipped
    assert 0 < max(slices.values()) <= 1.0  # within the first half: the other is best's
    assert 0 < ceilings[-1] <= 2.0 < comparing.compare_ceiling(10.0)
    clock.now = 5.0  # past the deadline
    late = compare(
        discrepancy_graph, ["zhou", "best"], budget=10.0, deadline=deadline, in_process_edges=0
    )
    assert late.skipped["zhou"].startswith("not run: the time ceiling had passed")
    assert late.skipped["best"] == late.skipped["zhou"]  # a search too: no ceiling left
    assert late.cut_by_time and not late.results


def test_the_ceiling_counts_from_the_process_start():
    """From Python, the call's time; on the command line, the process's start (its CPU
    clock's 0), never more than STARTUP_SECONDS back."""
    before = clocks.now()
    from_python = cli._started(["compare"])
    from_the_line = cli._started(None)
    after = clocks.now()
    assert before <= from_python <= after  # an order of readings, not a budget
    assert max(0.0, before - cli.STARTUP_SECONDS) <= from_the_line <= after


def test_the_prediction_is_a_count_of_edges(sin_graph, two_blocks_graph):
    for graph in (sin_graph, two_blocks_graph):
        assert selection.choice_seconds(graph) == pytest.approx(
            selection.CHOICE_SECONDS + selection.CHOICE_SECONDS_PER_EDGE * graph.n_edges
        )


def test_a_slice_too_short_to_build_a_set_starts_no_child(monkeypatch, discrepancy_graph):
    """A method whose slice is shorter than building and verifying one set takes (a
    count of the graph's edges) is not started: a child could only be killed."""
    clock, started = FakeClock(), []
    monkeypatch.setattr(clocks, "time", clock)
    monkeypatch.setattr(comparing, "timeboxed", lambda run, seconds: started.append(run))
    monkeypatch.setattr(comparing, "winner_seconds", lambda graph: 100.0)
    comparison = compare(
        discrepancy_graph,
        ["zhou", "dstar"],
        budget=10.0,
        deadline=Deadline(2.0),
        in_process_edges=0,
    )
    assert not started and not comparison.results and comparison.cut_by_time
    for name in ("zhou", "dstar"):
        assert comparison.skipped[name].startswith("not run: its ")
        assert "less than building and verifying a set on " in comparison.skipped[name]


def test_searches_beside_best_run_in_a_child_up_to_the_ceiling(monkeypatch, discrepancy_graph):
    """On a graph past in_process_edges a search other than best runs its counted work
    in a child killed at the ceiling less what best needs for its winner; best, which
    keeps the ceiling itself, in-process with the rest."""
    clock, given, ceilings = FakeClock(), {}, []
    real = comparing.accumulate

    def accumulate(graph, name, **options):
        ceilings.append((name, options.get("ceiling")))
        return real(graph, name, **options)

    def timeboxed(run, limit):
        given[run.args[1]] = limit.left()
        return run()

    monkeypatch.setattr(clocks, "time", clock)
    monkeypatch.setattr(comparing, "timeboxed", timeboxed)
    monkeypatch.setattr(comparing, "accumulate", accumulate)
    monkeypatch.setattr(comparing, "winner_seconds", lambda graph: 0.5)
    comparison = compare(
        discrepancy_graph,
        ["vertex-optimal", "best"],
        budget=10.0,
        deadline=Deadline(4.0),
        in_process_edges=0,
    )
    assert given == {"vertex-optimal": pytest.approx(3.5)}
    assert comparison.results["vertex-optimal"].mults == 14 and not comparison.skipped
    assert ceilings[-1] == ("best", pytest.approx(4.0))
