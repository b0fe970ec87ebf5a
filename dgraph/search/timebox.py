"""Run parts of ``best``'s portfolio in a child process that is stopped at its deadline.

The structure methods, the exact searches and the greedy edge and face eliminations are
pure Python whose running time nothing cheap predicts (on a random layered graph of 360
vertices whose forward mode takes four seconds, Zhou's factorizer takes five minutes and
one greedy edge elimination two), and a Python thread cannot be stopped, so ``best`` runs
them in a forked child that sends each result back, pickled, as soon as it has it, and
kills the child when the time is up; :class:`Background` does the same for one result
while the caller goes on (the bracketing program, alongside the heuristics). Where fork
is unavailable, or inside a daemonic process that may not have children, they run
in-process and only the callers' own budgets bound them.

Forking a process with threads (JAX starts some) can leave the child waiting on a lock
another thread held. The child runs only dgraph's own pure-Python searches, and if it
ever hung, it would be killed at its deadline like a slow one, so the warnings about it
are silenced.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

__all__ = ["Background", "stream", "timeboxed"]

T = TypeVar("T")


def stream(produce: Callable[[], Iterable[T]], seconds: float) -> list[T]:
    """The items ``produce()`` yields within ``seconds``, in order; an exception it
    raises is raised here.

    >>> def slow():
    ...     yield 1
    ...     yield 2
    ...     time.sleep(10)
    ...     yield 3
    >>> stream(slow, 1.0)
    [1, 2]
    """
    if seconds <= 0:
        return []
    if not _can_fork():
        return list(produce())
    deadline = time.perf_counter() + seconds
    child, receive = _fork(produce)
    items: list[T] = []
    try:
        while receive.poll(max(0.0, deadline - time.perf_counter())):
            try:
                kind, value = receive.recv()
            except EOFError:  # finished, or died without an answer (out of memory)
                break
            if kind == "error":
                raise value
            items.append(value)
    finally:
        _end(child, receive)
    return items


def timeboxed(run: Callable[[], T], seconds: float) -> T | None:
    """``run()``'s result, or None when it has not finished within ``seconds``.

    >>> timeboxed(lambda: 6 * 7, 5.0)
    42
    >>> timeboxed(lambda: time.sleep(10), 0.2) is None
    True
    """
    items = stream(lambda: [run()], seconds)
    return items[0] if items else None


def _can_fork() -> bool:
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def _child(send: Any, produce: Callable[[], Iterable[Any]]) -> None:
    try:
        for item in produce():
            send.send(("item", item))
    except Exception as error:  # sent back and raised in the parent
        try:
            send.send(("error", error))
        except Exception:  # an exception that does not pickle
            send.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))
    send.close()


class Background(Generic[T]):
    """``run()`` in a child process while the caller goes on (``best`` proves its bound
    there while the heuristics search); its result once it has come, and the child
    killed ``seconds`` from now. Without fork, ``run()`` runs at once, in-process.

    >>> job = Background(lambda: 6 * 7, 5.0)
    >>> job.wait(5.0), job.poll()
    (42, 42)
    >>> Background(lambda: time.sleep(10), 0.2).wait(1.0) is None
    True
    """

    def __init__(self, run: Callable[[], T], seconds: float) -> None:
        self.result: T | None = None
        self._deadline = time.perf_counter() + seconds
        self._child: Any = None
        if seconds > 0 and not _can_fork():
            self.result = run()
        elif seconds > 0:
            self._child, self._receive = _fork(lambda: [run()])

    @staticmethod
    def concurrent() -> bool:
        """Whether a job would run alongside the caller: fork available and a second core."""
        if hasattr(os, "sched_getaffinity"):
            cores = len(os.sched_getaffinity(0))
        else:
            cores = os.cpu_count() or 1
        return _can_fork() and cores > 1

    def poll(self) -> T | None:
        """The result if it has come, without waiting."""
        return self.wait(0.0)

    def wait(self, seconds: float) -> T | None:
        """The result, waiting for it at most ``seconds`` (and never past the deadline)."""
        if self._child is None:
            return self.result
        left = self._deadline - time.perf_counter()
        try:
            if self._receive.poll(max(0.0, min(seconds, left))):
                kind, value = self._receive.recv()
                if kind == "error":
                    raise value
                self.result = value
            elif left > seconds:
                return None
        except EOFError:  # died without an answer (out of memory)
            pass
        except BaseException:
            self.stop()
            raise
        self.stop()
        return self.result

    def stop(self) -> None:
        """Kill the child if it is still running; the result stays as it is."""
        if self._child is not None:
            _end(self._child, self._receive)
            self._child = None


def _fork(produce: Callable[[], Iterable[Any]]) -> tuple[Any, Any]:
    """A child process sending what ``produce()`` yields down a pipe, and the pipe's end."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, produce), daemon=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*fork\(\)", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message=r".*fork\(\)", category=DeprecationWarning)
        child.start()
    send.close()
    return child, receive


def _end(child: Any, receive: Any) -> None:
    if child.is_alive():
        child.kill()
    child.join()
    receive.close()
