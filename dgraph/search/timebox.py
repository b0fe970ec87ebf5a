"""Run parts of ``best``'s portfolio in a child process that is stopped at its deadline.

The structure methods, the exact searches and the greedy edge and face eliminations are
pure Python whose running time nothing cheap predicts (on one graph minutes where forward
mode takes seconds), and a Python thread cannot be stopped, so ``best`` runs
them in a child process that sends each result back, pickled, as soon as it has it, and
kills the child when its time is up; :class:`Background` does the same for one result
while the caller goes on (the bracketing program, alongside the heuristics).

A child's time is its CPU time (:func:`dgraph.core.budget.child_cpu_seconds`, read from
``/proc`` while the caller waits), not the wall clock: on a machine busy with other work a
child gets the same computation before it is stopped, so a result does not depend on the
load. The CPU seconds a child computed while the caller waited for it count on the
caller's clock (:func:`dgraph.core.budget.waited`), so that a ceiling over several
children counts what they all computed; a child beside the caller (:class:`Background`)
counts only while the caller waits for it. A limit is a
:class:`~dgraph.core.budget.Deadline`, or seconds of CPU time from now: its wall-clock
backstop (:data:`~dgraph.core.budget.BACKSTOP_FACTOR` × as long) still ends a child that
gets no CPU (blocked, sleeping). Where a child's CPU time cannot be read, the wall clock
waited stands for it.

No child is forked from a process that has imported JAX (or runs other threads): a fork
copies one thread, and a lock another thread held (JAX starts several) may never be
released in the child. There children come from a fork server (:func:`start_method`), a
clean process started once that imported dgraph's searches (:data:`PRELOAD`) and never
JAX; elsewhere (the CLI on traces and JSON, most scripts) a plain fork, which costs no
import. Either way what a child runs and what it sends back crosses the process boundary
pickled: ``run`` and ``produce`` are module-level functions or :func:`functools.partial`
of them, with picklable arguments, and results travel as flat tables (an expression set
of a 5,000-step chain pickles without recursion). A child that dies without an answer
(killed, out of memory) raises :class:`ChildDied` in the caller, never passing for "no
result in time". Inside a daemonic process, which may not have children, they run
in-process and only the callers' own budgets bound them.
"""

from __future__ import annotations

import contextlib
import functools
import io
import multiprocessing
import os
import pickle
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from ..core.budget import Deadline, child_cpu_seconds, waited
from ..core.graph import DGraph

__all__ = [
    "PRELOAD",
    "START_METHOD",
    "Background",
    "ChildDied",
    "Deferred",
    "inherits",
    "stream",
    "timeboxed",
    "warm",
]

T = TypeVar("T")

# the shortest wait between two readings of a child's CPU time
POLL_SECONDS = 0.01
START_METHOD = "forkserver"  # where a fork is not safe (JAX imported, threads running)
# imported once by the fork server, so that each child starts with them (not JAX): CP-SAT's
# import (OR-Tools, optional: a module not installed is skipped) took half a CPU second in
# each child that solved a model, two per best on a graph beyond the exact searches; the
# last freezes what they made (dgraph.search.preloaded: a child's collections skip it)
PRELOAD = [
    "dgraph.search.best",
    "scipy.optimize",
    "scipy.sparse",
    "ortools.sat.python.cp_model",
    "dgraph.search.preloaded",
]


class ChildDied(RuntimeError):
    """A child process ended without its answer (killed by a signal, out of memory)."""


def stream(produce: Callable[[], Iterable[T]], seconds: float | Deadline) -> list[T]:
    """The items ``produce()`` yields within ``seconds`` (CPU seconds of the child, or a
    :class:`~dgraph.core.budget.Deadline`; module docstring), in order; an exception it
    raises is raised here, and :class:`ChildDied` if the child died before it finished.

    >>> stream(functools.partial(range, 3), 5.0)
    [0, 1, 2]
    """
    limit = _limit(seconds)
    allowance = limit.left()
    if allowance <= 0:
        return []
    if not _can_fork():
        return list(produce())
    child, receive = _start(produce)
    meter = _Meter(child.pid)
    items: list[T] = []
    try:
        while True:
            if not receive.poll(0):
                pause = meter.pause(allowance, limit)
                if pause == 0:  # its CPU time used, or the backstop passed
                    break
                receive.poll(pause)
                continue
            kind, value = _receive(child, receive)
            if kind == "done":
                break
            items.append(value)
    finally:
        meter.read()
        _end(child, receive)
    return items


def timeboxed(run: Callable[[], T], seconds: float | Deadline) -> T | None:
    """``run()``'s result, or None when it has not finished within ``seconds`` (CPU
    seconds of the child, or a :class:`~dgraph.core.budget.Deadline`). A child that
    spins is stopped by its CPU time; one that sleeps computes nothing, and only the
    wall-clock backstop (:data:`~dgraph.core.budget.BACKSTOP_FACTOR` × ``seconds``) ends
    it.

    >>> timeboxed(functools.partial(max, 6, 42), 5.0)
    42
    >>> timeboxed(functools.partial(time.sleep, 10), 0.05) is None
    True
    """
    items = stream(functools.partial(_one, run), seconds)
    return items[0] if items else None


def _limit(seconds: float | Deadline) -> Deadline:
    return seconds if isinstance(seconds, Deadline) else Deadline(seconds)


class _Meter:
    """The CPU seconds child ``pid`` has used (the wall clock since its start where
    ``/proc`` cannot say), counted on the caller's clock as they are read while it
    waits (:func:`~dgraph.core.budget.waited`)."""

    def __init__(self, pid: int | None, counting: bool = True) -> None:
        self.pid = pid
        self.started = time.perf_counter()
        self.readable = pid is not None and child_cpu_seconds(pid) is not None
        self.used = 0.0
        self.counting = counting

    def read(self) -> float:
        """The child's CPU seconds so far (the last reading once it is gone)."""
        if self.readable:
            seconds = child_cpu_seconds(self.pid)  # type: ignore[arg-type]
        else:
            seconds = time.perf_counter() - self.started
        if seconds is not None and seconds > self.used:
            if self.counting:
                waited(seconds - self.used)
            self.used = seconds
        return self.used

    def pause(self, allowance: float, limit: Deadline) -> float:
        """How long to wait for the child's next message before looking at its clocks
        again: 0 once it has used its ``allowance`` of CPU seconds or ``limit``'s
        backstop has passed; else until it could have used the allowance on one core
        (at least :data:`POLL_SECONDS`)."""
        left = min(allowance - self.read(), limit.wall_left())
        return 0.0 if left <= 0 else max(POLL_SECONDS, left)


def _one(run: Callable[[], T]) -> list[T]:
    return [run()]


def _can_fork() -> bool:
    """Whether children may be started: not from a daemonic process."""
    return (
        START_METHOD in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def _child(send: Any, produce: Callable[[], Iterable[Any]] | bytes) -> None:
    try:
        if isinstance(produce, bytes):
            produce = pickle.loads(produce)
        for item in produce():
            send.send(("item", item))
    except Exception as error:  # sent back and raised in the parent
        try:
            send.send(("error", error))
        except Exception:  # an exception that does not pickle
            send.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))
    else:
        send.send(("done", None))
    send.close()


def _receive(child: Any, receive: Any) -> tuple[str, Any]:
    """The next message: ``("item", value)`` or ``("done", None)``; an error the child
    sent is raised, and :class:`ChildDied` where the pipe closed without "done"."""
    try:
        kind, value = receive.recv()
    except EOFError:
        child.join(5.0)
        code = child.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        raise ChildDied(f"the search's child process died without an answer ({how})") from None
    if kind == "error":
        raise value
    return kind, value


class Background(Generic[T]):
    """``run()`` in a child process while the caller goes on (``best`` proves its bound
    there while the heuristics search); its result once it has come, and the child
    killed once it has used ``seconds`` of CPU time (or at a
    :class:`~dgraph.core.budget.Deadline`, its wall-clock backstop included). Its CPU
    time counts on the caller's clock only while the caller waits for it
    (:meth:`wait`). Where no child may start, ``run()`` runs at once, in-process.

    >>> job = Background(functools.partial(max, 6, 42), 5.0)
    >>> job.wait(5.0), job.poll()
    (42, 42)
    >>> Background(functools.partial(time.sleep, 10), 0.05).wait(1.0) is None
    True
    """

    def __init__(self, run: Callable[[], T], seconds: float | Deadline) -> None:
        self.result: T | None = None
        self._limit = _limit(seconds)
        self._allowance = self._limit.left()
        self._child: Any = None
        if self._allowance > 0 and not _can_fork():
            self.result = run()
        elif self._allowance > 0:
            self._child, self._receive = _start(functools.partial(_one, run))
            self._meter = _Meter(self._child.pid, counting=False)

    @staticmethod
    def concurrent() -> bool:
        """Whether a job would run alongside the caller: children allowed, a second core."""
        if hasattr(os, "sched_getaffinity"):
            cores = len(os.sched_getaffinity(0))
        else:
            cores = os.cpu_count() or 1
        return _can_fork() and cores > 1

    def poll(self) -> T | None:
        """The result if it has come, without waiting."""
        return self.wait(0.0)

    def wait(self, seconds: float) -> T | None:
        """The result, waiting for it while the child uses at most ``seconds`` more CPU
        time (counted on the caller's clock; at most
        :data:`~dgraph.core.budget.BACKSTOP_FACTOR` × ``seconds`` of wall clock), and
        never past the child's own limit; :class:`ChildDied` if the child died
        without it."""
        if self._child is None:
            return self.result
        meter = self._meter
        meter.read()  # what it computed beside the caller: not counted
        meter.counting = True
        allowance = min(self._allowance, meter.used + seconds)
        limit = Deadline(seconds, within=self._limit)  # the wait's backstop, at most the child's
        try:
            while not self._receive.poll(0):
                pause = meter.pause(allowance, limit)
                if pause == 0:
                    break
                self._receive.poll(pause)
            else:
                _, self.result = _receive(self._child, self._receive)
                self.stop()
                return self.result
            if meter.used < self._allowance and self._limit.wall_left() > 0:
                return None  # the wait ended, not the child's time: it goes on
        except BaseException:
            self.stop()
            raise
        finally:
            meter.counting = False
        self.stop()
        return self.result

    def stop(self) -> None:
        """Kill the child if it is still running; the result stays as it is."""
        if self._child is not None:
            _end(self._child, self._receive)
            self._child = None


class Deferred(Generic[T]):
    """:class:`Background`'s stand-in where the work is too small for a child (one costs
    tens of milliseconds of CPU time to start): ``run()`` in-process, once, when its
    result is first waited for with time left, and never if it is not. The caller bounds
    its work by counts; a wait's ``seconds`` only say whether there is time for it.

    >>> job = Deferred(functools.partial(max, 6, 42))
    >>> job.poll(), job.wait(0.0), job.wait(5.0), job.poll()
    (None, None, 42, 42)
    """

    def __init__(self, run: Callable[[], T]) -> None:
        self._run: Callable[[], T] | None = run
        self.result: T | None = None

    def poll(self) -> T | None:
        """The result if it has been computed, without computing it."""
        return self.wait(0.0)

    def wait(self, seconds: float) -> T | None:
        """The result, computed now if it was not yet and ``seconds`` are left."""
        if self._run is not None and seconds > 0:
            run, self._run = self._run, None
            self.result = run()
        return self.result

    def stop(self) -> None:
        """Nothing more is computed; the result stays as it is."""
        self._run = None


def start_method() -> str:
    """How the next child starts: ``"fork"`` from a process with one thread and no JAX,
    else :data:`START_METHOD` (JAX's threads are not Python's: its import tells)."""
    if "jax" in sys.modules or threading.active_count() > 1:
        return START_METHOD
    return "fork"


def inherits() -> bool:
    """Whether what this process imports serves the children: they fork from it, or run
    in it where none may start; children of the fork server have :data:`PRELOAD` from
    it, and an import here would serve nothing."""
    return not _can_fork() or start_method() == "fork"


def context(method: str | None = None) -> Any:
    """The multiprocessing context children start from (default :func:`start_method`);
    the fork server imports :data:`PRELOAD` once."""
    found = multiprocessing.get_context(method or start_method())
    if found.get_start_method() == "forkserver":
        found.set_forkserver_preload(PRELOAD)
    return found


def warm() -> None:
    """Start the fork server now (it imports :data:`PRELOAD` while the caller goes on),
    so that the first child does not wait for it."""
    if _can_fork() and start_method() == "forkserver":
        context()
        from multiprocessing import forkserver

        with _main_hidden():  # a __main__ without __spec__ (after %reset) is not read
            forkserver.ensure_running()


def _start(produce: Callable[[], Iterable[Any]]) -> tuple[Any, Any]:
    """A child process sending what ``produce()`` yields down a pipe, and the pipe's end."""
    ctx = context()
    receive, send = ctx.Pipe(duplex=False)
    forked = ctx.get_start_method() == "fork"
    payload = produce if forked else _packed(produce)
    child = ctx.Process(target=_child, args=(send, payload), daemon=True)
    with contextlib.nullcontext() if forked else _main_hidden():
        child.start()
    send.close()
    return child, receive


class _Pickler(pickle.Pickler):
    """Graphs without their reference derivative (a JAX ``jvp`` of the user's function,
    which may live in a script the child cannot import): there the value check uses
    differences, as in a forked child."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, DGraph) and getattr(obj, "_reference", None) is not None:
            state = obj.__getstate__()
            state["_reference"] = None
            return _graph, (type(obj), state)
        return NotImplemented


def _graph(cls: type, state: dict) -> DGraph:
    graph = cls.__new__(cls)
    graph.__dict__.update(state)
    return graph


def _packed(produce: Callable[[], Iterable[Any]]) -> bytes:
    """``produce`` pickled for a child of the fork server (:class:`_Pickler`)."""
    buffer = io.BytesIO()
    _Pickler(buffer, pickle.HIGHEST_PROTOCOL).dump(produce)
    return buffer.getvalue()


@contextlib.contextmanager
def _main_hidden() -> Iterator[None]:
    """The caller's ``__main__`` out of sight while a child starts: multiprocessing would
    have the child import the caller's script (``__mp_main__``), running a user's script
    without a main guard again there; the children need only dgraph's functions."""
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _end(child: Any, receive: Any) -> None:
    if child.is_alive():
        child.kill()
    child.join()
    receive.close()
