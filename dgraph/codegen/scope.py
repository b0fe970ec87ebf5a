"""One code generation call's caches: what it remembers (block products and sums, folded
and counted expressions, rebuilt nodes, index ranges) is forgotten when the outermost call
returns, so that no call's caches outlive it; and no cyclic garbage collection meanwhile (the passes
make millions of small sympy objects and no cycles)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from ..blocks import in_scope, scoped
from ..core.rebuild import forget_remade
from ..frontends.elemental import gc_paused
from .counting import forget_counts

__all__ = ["codegen_call", "made_once"]

_MADE: dict[Hashable, tuple[Any, Any]] = {}  # key -> (what the key's ids are of, value)


@contextlib.contextmanager
def codegen_call() -> Iterator[None]:
    """The scope of one public code generation call (see the module's note)."""
    with gc_paused(), scoped(forget_counts, forget_remade, _MADE.clear):
        yield


def made_once(key: Hashable, held: Any, make: Callable[[], Any]) -> Any:
    """``make()``, made once per code generation call for ``key`` (and kept till the
    outermost call returns, as its other caches are; outside a call, made each time).
    ``held``: the objects whose ids ``key`` holds, kept with the value so that no id is
    reused by another object while the key is in use."""
    if not in_scope():
        return make()
    found = _MADE.get(key)
    if found is None:
        found = _MADE[key] = (held, make())
    return found[1]
