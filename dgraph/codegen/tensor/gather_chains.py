"""A gather of a gather at constant positions, read as one gather: ``ravel(u)[K2]`` where
``u = ravel(z)[K1]`` is ``ravel(z)[ravel(K1)[K2]]``, its positions composed here once.

A reverse sweep moves a cotangent back through the slices, pads and reshapes of the
forward program one at a time, and each such move is a gather at constant positions
(a slice's transpose crops, a pad's crops the border): the minimal surface's ``vjp`` ended
in three gathers in a row, each a pass over its array and a buffer of its own in C. The
composed positions are the same entries of ``z`` in the same places, so the values are
the same bit for bit; an intermediate nothing else reads is then dropped by the dead
statement pass. (JAX's code also composes a gather with the moves of an input it reads,
:mod:`.jax_moves`; this one composes two gathers, anywhere, in every language.)
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable

import numpy as np

from ..ir import ArrayStatement, Call, Index, Name, Node

__all__ = ["gathers_of_gathers"]


def gathers_of_gathers(
    statements: list[ArrayStatement],
    constants: dict[str, np.ndarray],
    add: Callable[[np.ndarray], Name],
) -> list[ArrayStatement]:
    """``statements`` with each gather of a flat gather at constant integer positions
    read as one gather of the first one's source (positions ``ravel(K1)[K2]``, made a
    constant by ``add``); the first gather's statement is left for the dead-statement
    pass. Only names written once (no ``at``) are followed; loop bodies are not entered."""
    writes = Counter(s.target for s in statements)
    changed = {s.target for s in statements if s.at or writes[s.target] > 1}
    defined: dict[str, Node] = {}
    out = []
    for s in statements:
        value = s.value
        found = _gather(value, constants)
        if found is not None:
            source, outer = found
            inner = _inner(source, defined, constants)
            if inner is not None and inner[0].id not in changed:  # type: ignore[attr-defined]
                origin, first = inner
                if _within(outer, first.size):
                    positions = add(np.ravel(first)[outer])
                    value = Index(Call("ravel", (origin,)), (positions,))
        out.append(s if value is s.value else dataclasses.replace(s, value=value))
        if s.target not in changed:
            defined[s.target] = value
    return out


def _gather(node: Node, constants: dict[str, np.ndarray]) -> tuple[Node, np.ndarray] | None:
    """``(u, K)`` for ``ravel(u)[K]`` with ``K`` a constant array of integers."""
    if not (isinstance(node, Index) and len(node.items) == 1):
        return None
    key = node.items[0]
    positions = constants.get(key.id) if isinstance(key, Name) else None
    if positions is None or np.asarray(positions).dtype.kind not in "iu":
        return None
    value = node.value
    if not (isinstance(value, Call) and value.func == "ravel" and len(value.args) == 1):
        return None
    if value.keywords:
        return None
    return value.args[0], np.asarray(positions)


def _inner(
    source: Node, defined: dict[str, Node], constants: dict[str, np.ndarray]
) -> tuple[Node, np.ndarray] | None:
    """``(z, K1)`` where ``source`` names a statement ``ravel(z)[K1]`` whose ``z`` is a
    name (read later in place of ``source``: the caller checks it is written once,
    so it is the same array there)."""
    if not isinstance(source, Name) or source.id not in defined:
        return None
    found = _gather(defined[source.id], constants)
    if found is None or not isinstance(found[0], Name):
        return None
    return found


def _within(positions: np.ndarray, size: int) -> bool:
    """Whether NumPy reads every one of ``positions`` from ``size`` entries (as the
    program would: one out of range is the program's own error, left to it)."""
    return not positions.size or (-size <= positions.min() and positions.max() < size)
