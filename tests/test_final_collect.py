"""tests/final_collect.py: the end's collections free every cycle and run every finalizer
before freezing, and freeze nothing while garbage remains; sympy's and JAX's caches are
emptied first, where those modules were imported."""

from __future__ import annotations

import gc
import sys
import types

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
    gc.disable()  # the cycle waits for collect's collections
    gc.freeze()  # the process's heap left out of their walks: they see the cycle alone
    _Cycle(seen)
    try:
        final_collect.collect()
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
    final_collect.collect()
    assert len(calls) == final_collect.ROUNDS
    assert gc.get_freeze_count() == frozen


def test_the_caches_are_emptied_before_the_collections(monkeypatch):
    """With stand-ins for the two modules (the real caches stay: this worker's later tests
    read them), and the real ones have what is called."""
    import jax
    import sympy.core.cache

    assert callable(jax.clear_caches) and callable(sympy.core.cache.clear_cache)
    calls: list[str] = []
    monkeypatch.setitem(
        sys.modules,
        "sympy.core.cache",
        types.SimpleNamespace(clear_cache=lambda: calls.append("sympy")),
    )
    monkeypatch.setitem(
        sys.modules, "jax", types.SimpleNamespace(clear_caches=lambda: calls.append("jax"))
    )
    monkeypatch.setattr(final_collect, "collect", lambda: calls.append("collect"))
    final_collect.unconfigure(None)
    assert calls == ["sympy", "jax", "collect"]

    # where neither is imported, neither is imported to be emptied
    monkeypatch.delitem(sys.modules, "sympy.core.cache")
    monkeypatch.delitem(sys.modules, "jax")
    calls.clear()
    final_collect.unconfigure(None)
    assert calls == ["collect"]
    assert "jax" not in sys.modules and "sympy.core.cache" not in sys.modules
