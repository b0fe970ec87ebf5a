"""One code generation call's caches: what it remembers (block products and sums, folded
and counted expressions, index ranges) is forgotten when the outermost call returns, so
that no call's caches outlive it; and no cyclic garbage collection meanwhile (the passes
make millions of small sympy objects and no cycles)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..blocks import scoped
from ..frontends.elemental import gc_paused
from .counting import forget_counts

__all__ = ["codegen_call"]


@contextlib.contextmanager
def codegen_call() -> Iterator[None]:
    """The scope of one public code generation call (see the module's note)."""
    with gc_paused(), scoped(forget_counts):
        yield
