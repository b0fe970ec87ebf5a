"""Helpers of the revolve tests (tests/test_revolve.py, tests/test_while_revolve.py): a
schedule replayed on step indices, and NumPy with its ``sin`` and ``cos`` calls counted."""

from __future__ import annotations

import numpy as np


def replay(schedule) -> list[int]:
    """Run the schedule on step indices: each action finds the state it needs; returns
    the steps turned, in order."""
    current, slots, turned = 0, {}, []
    for a in schedule.actions:
        if a.kind == "takeshot":
            assert current == a.t and a.slot not in slots
            slots[a.slot] = a.t
        elif a.kind == "advance":
            assert current == a.t
            current += 1
        elif a.kind == "turn":
            assert current == a.t
            turned.append(a.t)
        else:
            assert slots[a.slot] == a.t
            current = a.t
            if a.free:
                del slots[a.slot]
        assert len(slots) <= schedule.slots
    return turned


class CountingNumpy:
    """numpy, counting ``sin`` and ``cos`` calls: in the tests' loops a value step calls
    sin once and the body's vjp cos once (a vjp needs no final state, so the last
    forward step is not run)."""

    def __init__(self) -> None:
        self.calls = {"sin": 0, "cos": 0}

    def __getattr__(self, name):
        return getattr(np, name)

    def sin(self, x, *a, **k):
        self.calls["sin"] += 1
        return np.sin(x, *a, **k)

    def cos(self, x, *a, **k):
        self.calls["cos"] += 1
        return np.cos(x, *a, **k)
