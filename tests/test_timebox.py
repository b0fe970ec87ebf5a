"""``dgraph.search.timebox``: children from a fork server where JAX is imported (never
forked from a process running JAX's threads), stopped at their deadline — by their CPU
time, or the wall-clock backstop where they get none — their death reported; no
assertion on the wall clock's speed: what the child sent, whether it is still alive, how
it ended, which clock cut it and what it counted."""

from __future__ import annotations

import functools
import os
import signal
import sys
import time
import types

import pytest

from dgraph.core import budget as clocks
from dgraph.core.budget import CPU, WALL, Deadline
from dgraph.errors import SearchTooLarge
from dgraph.search import timebox
from dgraph.search.timebox import Background, ChildDied, stream, timeboxed


def _pid_then_spin() -> object:
    yield os.getpid()
    _spin()
    yield "never"


def _spin() -> None:
    """Computes forever (CPU time, never a wait)."""
    while True:
        pass


def _too_big() -> None:
    raise SearchTooLarge("too big")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _item_then_die() -> object:
    yield "sent"
    _die()


def _modules() -> tuple[str, bool]:
    """What the child sees: how it was started and whether JAX is imported there."""
    import multiprocessing

    return multiprocessing.get_start_method(allow_none=True), "jax" in sys.modules


def _later(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_children_come_from_the_fork_server_without_jax():
    """Fork would copy the parent's modules (JAX and its threads); the fork server's
    children start from a process that never imported JAX."""
    pytest.importorskip("jax")
    import jax.numpy as jnp

    _ = jnp.zeros(2) + 1  # JAX's threads are running here
    assert timebox.start_method() == timebox.START_METHOD == "forkserver"
    assert timebox.context().get_start_method() == "forkserver"
    method, has_jax = timeboxed(_modules, 60)
    assert method == "forkserver" and has_jax is False


def test_a_plain_fork_only_without_jax_and_threads(monkeypatch):
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.setattr(timebox.threading, "active_count", lambda: 1)
    assert timebox.start_method() == "fork"
    monkeypatch.setattr(timebox.threading, "active_count", lambda: 2)  # a progress bar's
    assert timebox.start_method() == "forkserver"
    monkeypatch.setattr(timebox.threading, "active_count", lambda: 1)
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    assert timebox.start_method() == "forkserver"


def test_timebox_stops_a_search_and_keeps_what_it_streamed():
    """The child streamed its pid, then computed: stopped by its CPU time (however
    loaded the machine: the wall-clock backstop is far), the items sent so far come back,
    and the child is dead when stream returns (a wait for its end would bring "never"
    too)."""
    limit = Deadline(0.5, backstop=600.0)
    items = stream(_pid_then_spin, limit)
    assert len(items) == 1 and _gone(items[0]) and limit.passed() == CPU
    with pytest.raises(SearchTooLarge, match="too big"):
        timeboxed(_too_big, 60)


def test_a_child_that_dies_is_reported():
    with pytest.raises(ChildDied, match="killed by signal 9"):
        timeboxed(_die, 60)
    with pytest.raises(ChildDied, match="died without an answer"):
        stream(_item_then_die, 60)
    with pytest.raises(ChildDied, match="killed by signal 9"):
        Background(_die, 60).wait(60)


def test_background_gives_its_result_when_asked_and_respects_its_deadline(monkeypatch):
    job = Background(functools.partial(_later, 42, 0.0), 60)
    assert job.wait(60) == 42 and job.poll() == 42
    # past its CPU seconds (its clock read as 2 s of its 1), a job not yet done gives
    # None at once and its child is killed: it does not wait the 60 s asked
    slow = Background(functools.partial(_later, 42, 5.0), 1.0)
    monkeypatch.setattr(timebox, "child_cpu_seconds", lambda pid: 2.0)
    assert slow.wait(60) is None and slow._child is None


def test_a_sleeping_child_is_cut_by_the_backstop_and_counts_no_work():
    """A child that sleeps computes nothing: its CPU seconds (60) are never used, the
    wall-clock backstop (0.3 s) ends it, and the caller's clock counts none of the wait
    (a fork and a sleep: milliseconds of CPU)."""
    limit = Deadline(60.0, backstop=0.3)
    before = clocks.now()
    assert timeboxed(functools.partial(_later, 42, 60.0), limit) is None
    assert limit.passed() == WALL and clocks.now() - before < 0.25


def test_a_spinning_child_is_cut_by_its_cpu_time_which_counts_as_work():
    """A child that computes is stopped once it has used its 0.3 CPU seconds, however
    long that takes on the wall clock (the backstop, 600 s, is far): the caller's clock
    counts them (a fork, a few readings of /proc and the last one's tick past it)."""
    if clocks.child_cpu_seconds(os.getpid()) is None:
        pytest.skip("no /proc: a child's time is the wall clock here")
    limit = Deadline(0.3, backstop=600.0)
    before = clocks.now()
    assert timeboxed(_spin, limit) is None
    assert limit.passed() == CPU and 0.3 <= clocks.now() - before < 0.6


def test_without_proc_the_wall_clock_waited_counts(monkeypatch):
    """Where a child's CPU time cannot be read, the wall clock waited stands for it:
    a sleeping child's 0.3 s count as its CPU seconds, and end it."""
    monkeypatch.setattr(timebox, "child_cpu_seconds", lambda pid: None)
    limit = Deadline(0.3, backstop=600.0)
    before = clocks.now()
    assert timeboxed(functools.partial(_later, 42, 60.0), limit) is None
    assert limit.passed() == CPU and clocks.now() - before >= 0.3


def test_a_child_beside_the_caller_counts_only_while_waited_for():
    """A job computing beside the caller: its CPU time is not the caller's while the
    caller goes on (sleeping here), and is once the caller waits for it."""
    if clocks.child_cpu_seconds(os.getpid()) is None:
        pytest.skip("no /proc: a child's time is the wall clock here")
    job = Background(_spin, Deadline(600.0))
    try:
        before = clocks.now()
        time.sleep(0.3)
        beside = clocks.now() - before
        computed = job._meter.read()  # what it computed beside: not counted
        assert beside < 0.05 and clocks.now() - before < 0.05
        assert job.wait(0.2) is None and job._child is not None  # the wait's end, not its
        assert clocks.now() - before == pytest.approx(job._meter.used - computed, abs=0.05)
    finally:
        job.stop()


def test_background_runs_in_process_where_it_cannot_start_children(monkeypatch):
    monkeypatch.setattr(timebox, "_can_fork", lambda: False)
    assert not Background.concurrent()
    assert Background(lambda: 6 * 7, 5).poll() == 42
    assert stream(lambda: iter([1, 2]), 5) == [1, 2]


def test_a_long_chains_result_crosses_the_process_boundary():
    """A 1,000-step sin chain: Zhou's result, made in a child and sent back, arrives whole
    under the default recursion limit (its expressions travel as one flat table, never
    as nested sympy objects), on the graph, verified, one product of 1,000 factors."""
    import importlib
    import io
    from functools import partial

    from dgraph.frontends import from_trace

    comparing = importlib.import_module("dgraph.methods.compare")

    lines = ["inputs: x", "outputs: y", "v1 = sin(x)"]
    lines += [f"v{k} = sin(v{k - 1})" for k in range(2, 1000)] + ["y = sin(v999)"]
    graph = from_trace("\n".join(lines))
    limit = sys.getrecursionlimit()
    sent = timeboxed(partial(comparing._run, graph, "zhou", {}), 600)
    assert sys.getrecursionlimit() == limit
    es = comparing._GraphGiven(io.BytesIO(sent), graph).load()  # the graph not sent back
    assert es.graph is graph and es.verify() and es.mults == 999
    assert es.jacobian[("y", "x")].is_Mul and len(es.jacobian[("y", "x")].args) == 1000


class _FailsInTheChild:
    """A reference derivative the child could not rebuild (a user's script's function)."""

    def __reduce__(self):
        return _explode, ()


def _explode() -> None:
    raise RuntimeError("rebuilt in the child")


def _reference_of(graph) -> object:
    return graph._reference, graph.inputs


def test_a_graphs_reference_derivative_stays_with_the_parent(monkeypatch):
    """Through the fork server a graph travels pickled, without its JAX reference (its
    function may live where the child cannot import it): the child's check then uses
    differences, as a forked child's does."""
    from dgraph.frontends import from_trace

    monkeypatch.setattr(timebox, "start_method", lambda: "forkserver")
    graph = from_trace("inputs: x\noutputs: y\ny = sin(x)")
    graph._reference = (_FailsInTheChild(), graph.version)
    assert timeboxed(functools.partial(_reference_of, graph), 60) == (None, ["x"])
    assert graph._reference is not None  # the parent's graph keeps it


def test_the_fork_server_starts_where_main_has_no_spec():
    """After ``%reset -f`` in a Jupyter kernel ``__main__`` has no ``__spec__``, which
    multiprocessing reads when it starts the fork server: ``warm`` hides the caller's
    ``__main__`` there, as every child start does (it raised AttributeError)."""
    import subprocess

    # a second thread: the fork server, as with JAX imported, without JAX; the server
    # preloads one small module instead of the searches (a preload list, however short,
    # is what makes multiprocessing read __main__; the searches' imports, some 2 CPU-s in
    # a server that exits with the script, are not what is tested)
    script = (
        "import threading, __main__\n"
        "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
        "del __main__.__spec__\n"
        "from dgraph.search import timebox\n"
        "timebox.PRELOAD[:] = ['json']\n"
        "timebox.warm()\n"
        "print(timebox.start_method())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.split() == ["forkserver"]
