"""tests/final_collect.py: the end's collections free every cycle and run every finalizer
before freezing, and freeze nothing while garbage remains."""

from __future__ import annotations

import gc

from . import final_collect


class _Cycle:
    def __init__(self, seen: list) -> None:
        self.me = self  # a reference cycle: only the collector frees it
        self.seen = seen

    def __del__(self) -> None:
        self.seen.append(True)


def test_cycles_are_freed_and_finalized_before_the_freeze():
    seen: list = []
    was_enabled = gc.isenabled()
    gc.disable()  # the cycle waits for unconfigure's collections
    gc.freeze()  # the process's heap left out of their walks: they see the cycle alone
    _Cycle(seen)
    try:
        final_collect.unconfigure(None)
        assert seen == [True]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def test_nothing_is_frozen_while_garbage_remains(monkeypatch):
    calls = []

    def collect() -> int:  # garbage found every round
        calls.append(1)
        return 1

    monkeypatch.setattr(final_collect.gc, "collect", collect)
    frozen = gc.get_freeze_count()
    final_collect.unconfigure(None)
    assert len(calls) == final_collect.ROUNDS
    assert gc.get_freeze_count() == frozen
