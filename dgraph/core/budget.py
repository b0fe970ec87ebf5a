"""The time ceiling of a work budget, shared by every search that takes ``--budget``, and
the clock it is counted on.

A budget of S seconds is counted work (each search counts its own steps), so the same
input gives the same result on every machine; the ceiling, :data:`CEILING_FACTOR` × S plus
:data:`CEILING_SLACK` seconds, stops a machine far slower than the one the work counts
were set for, and a search that it cut says so (``info["cut_by_time"]``).

The ceiling counts the CPU time the search got, not the wall clock: :func:`now` is this
process's CPU seconds (:func:`time.process_time`, every thread) plus those of the child
processes it waited on (:func:`waited`: a search run in a child, read from Linux's
``/proc/<pid>/stat`` by :func:`child_cpu_seconds`). So a machine busy with other work,
which gives the search a smaller share of its cores, does not cut it sooner: the same
input gives the same result at load 1 or 20. A ceiling also needs as many wall-clock
seconds to pass (its clock is the lesser of the two): a process whose threads together
use CPU time faster than the wall clock runs (a multithreaded solver or BLAS in the
process) is not cut sooner than a wall-clock ceiling would cut it. Where a child's CPU
time cannot be read (no ``/proc``), the wall-clock seconds waited on it count instead. A far
wall-clock backstop (:data:`BACKSTOP_FACTOR` × the ceiling) still ends a search that gets
no CPU at all (a child blocked or sleeping, a machine starved), and a cut says which
clock made it (:data:`CPU` or :data:`WALL`).

>>> ceiling_for(2.0)
11.0
>>> deadline = Deadline(60.0)
>>> deadline.passed() is None, 0 < deadline.left() <= 60.0
(True, True)
>>> Deadline(0.0).passed()
'CPU time'
>>> Deadline(60.0).earlier(60.0).passed()  # both clocks past its seconds
'CPU time'
"""

from __future__ import annotations

import os
import time

__all__ = [
    "BACKSTOP_FACTOR",
    "CEILING_FACTOR",
    "CEILING_SLACK",
    "CPU",
    "WALL",
    "Deadline",
    "ceiling_for",
    "child_cpu_seconds",
    "now",
    "waited",
]

CEILING_FACTOR = 3.0  # a machine three times slower than the work rates assume still fits
# seconds for what the work budget does not count: forks, imports, building and verifying
# the winner, the structure methods
CEILING_SLACK = 5.0
# the wall-clock backstop of a ceiling of S CPU seconds: this × S of wall clock. A search
# uses about a third of its ceiling's CPU time (the ceiling is 3 × its budget + 5 s), so it
# is cut by the backstop only where it gets less than 1/60 of a core; one that gets none
# (blocked, sleeping) ends. Under 8 busy loops on 2 cores (load 16) best on spherical
# coordinates took 22 s of wall clock per CPU second (benchmarks/RESULTS.md)
BACKSTOP_FACTOR = 20.0
# the clocks a cut names (``info["cut_by"]``)
CPU = "CPU time"
WALL = "wall clock"

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc's unit
_waited = 0.0  # CPU seconds of the children this process waited on (:func:`waited`)


def ceiling_for(budget: float, slack: float = CEILING_SLACK) -> float:
    """The ceiling of a work budget, in CPU seconds (:func:`now`).

    Parameters
    ----------
    budget
        The work budget, in seconds of counted work.
    slack
        Seconds added for what the budget does not count: forks, imports, building and
        verifying the winner.

    Returns
    -------
    float
        :data:`CEILING_FACTOR` × ``budget`` + ``slack``, in seconds.
    """
    return CEILING_FACTOR * budget + slack


def now() -> float:
    """The search clock, in seconds: this process's CPU time (every thread) plus the CPU
    time of the children it waited on (:func:`waited`). Monotonic; its start is
    arbitrary (about the process's start), so only differences mean anything."""
    return time.process_time() + _waited


def waited(seconds: float) -> None:
    """Count ``seconds`` a child process computed while this one waited for it (its CPU
    time, or the wall clock where that cannot be read) on :func:`now`."""
    global _waited
    _waited += max(0.0, seconds)


def child_cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user + system, every thread) process ``pid`` has used, from
    ``/proc/<pid>/stat``; None where that cannot be read (no ``/proc``, the process
    reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


class Deadline:
    """An end on both clocks: ``seconds`` of :func:`now` (CPU time) from now, and a
    wall-clock backstop (default :data:`BACKSTOP_FACTOR` × ``seconds``; at most
    ``within``'s, a deadline this one must not outlast).

    The CPU end passes only once ``seconds`` of wall clock have passed too (:attr:`floor`):
    on a loaded machine CPU time is the slower clock and counts; in a process whose
    threads use more than one core, the wall clock is, and a ceiling lasts as long as a
    wall-clock one.

    Parameters
    ----------
    seconds
        CPU seconds from now.
    backstop
        Wall-clock seconds from now (default :data:`BACKSTOP_FACTOR` × ``seconds``).
    within
        A deadline this one ends no later than, on either clock.
    """

    __slots__ = ("cpu", "floor", "wall")

    def __init__(
        self,
        seconds: float,
        backstop: float | None = None,
        within: Deadline | None = None,
    ) -> None:
        seconds = max(0.0, seconds)
        backstop = BACKSTOP_FACTOR * seconds if backstop is None else backstop
        start = time.perf_counter()
        self.cpu = now() + seconds
        self.floor = start + seconds  # the CPU end's wall-clock floor
        self.wall = start + backstop
        if within is not None:
            self.cpu, self.wall = min(self.cpu, within.cpu), min(self.wall, within.wall)
            self.floor = min(self.floor, within.floor)

    def passed(self) -> str | None:
        """Which clock has passed its end (:data:`CPU` first), or None."""
        wall = time.perf_counter()
        # the wall clock first: the CPU clock is a system call, read only past the floor
        if wall >= self.floor and now() >= self.cpu:
            return CPU
        if wall >= self.wall:
            return WALL
        return None

    def left(self) -> float:
        """Seconds left on the lesser clock (CPU time past its wall-clock floor; 0 once
        either end has passed)."""
        wall = time.perf_counter()
        if wall >= self.wall:
            return 0.0
        cpu_left = self.cpu - now()
        if cpu_left <= 0.0 and wall >= self.floor:
            return 0.0
        return max(0.0, cpu_left, self.floor - wall)

    def wall_left(self) -> float:
        """Wall-clock seconds left to the backstop (0 once it has passed)."""
        return max(0.0, self.wall - time.perf_counter())

    def earlier(self, seconds: float) -> Deadline:
        """This deadline ``seconds`` of CPU time earlier (its wall-clock floor as much, its
        backstop :data:`BACKSTOP_FACTOR` × as much earlier)."""
        early = Deadline.__new__(Deadline)
        early.cpu, early.floor = self.cpu - seconds, self.floor - seconds
        early.wall = self.wall - BACKSTOP_FACTOR * seconds
        return early

    def __repr__(self) -> str:
        return f"Deadline(cpu_left={self.cpu - now():.3f}, wall_left={self.wall_left():.3f})"
