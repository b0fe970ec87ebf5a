"""A stand-in for both clocks of :mod:`dgraph.core.budget`, for the tests that time a
comparison or a search without waiting."""

from __future__ import annotations

import pytest

from dgraph.core import budget


class FakeClock:
    """Both clocks of :mod:`dgraph.core.budget` (CPU and wall), standing still at
    :attr:`now` until a test moves it; with :func:`no_children_waited_on` the search
    clock reads :attr:`now` exactly."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def process_time(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def no_children_waited_on(monkeypatch):
    """The search clock at the fake clock's reading exactly: the CPU seconds of children
    an earlier test in this process waited on (``budget._waited``) would offset it, and
    a deadline's ``left()`` would differ from its seconds by a rounding (1.000000000000007
    against a 1.0 slice, with 62.48 s waited on)."""
    monkeypatch.setattr(budget, "_waited", 0.0)
