"""A scatter-add into the result of a scatter-add, read as one scatter-add of both parts.

A reverse sweep adds each vertex's contributions into a cotangent one scatter-add at a
time: the minimal surface's ``vjp`` copied its 144-entry cotangent three times in a row
(``t19 = scatter_add(ravel(reshape(t15, (12, 12))), K12, d)``, ``t15`` a scatter-add
itself), a pass over the whole vector and a buffer of its own in C each. A
:class:`~dgraph.codegen.ir.ScatterAdd` adds its parts in order into a copy of its base,
so ``ScatterAdd(ScatterAdd(b, P), Q)`` is ``ScatterAdd(b, P + Q)``: the same additions in
the same order, the same values bit for bit. The inner statement stays where anything
else reads it (the dead-statement pass drops it otherwise).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from ..ir import ArrayStatement, Call, Const, Name, Node, ScatterAdd, names_in

__all__ = ["merged_scatter_adds"]

_VIEWS = ("ravel", "reshape", "asarray", "broadcast_to")
MOST_PARTS = 128  # parts of a merged scatter-add: JAX prints one as a chain of
# ``.at[K].add(d)`` calls, each a level of nesting for Python's compiler (an unrolled
# 300-step IIR filter's cotangent merged thousands: "maximum recursion depth exceeded")


def merged_scatter_adds(statements: list[ArrayStatement]) -> list[ArrayStatement]:
    """``statements`` with each scatter-add whose base is a scatter-add's result (through
    reshapes, ravels and a ``broadcast_to`` that keeps the size) adding both parts into
    the first one's base (up to :data:`MOST_PARTS` parts). Only names written once (no
    ``at``) are followed, and only a scatter-add whose operands are such names is moved;
    loop bodies are not entered."""
    writes = Counter(s.target for s in statements)
    once = {s.target for s in statements if not s.at and writes[s.target] == 1}
    changed = {s.target for s in statements} - once  # stored into, or written again
    defined: dict[str, Node] = {}
    out = []
    for s in statements:
        value = s.value
        if isinstance(value, ScatterAdd):
            inner = _scatter_under(value.base, defined, once)
            # read here, the inner one's operands must be what they were there
            fits = inner is not None and len(inner.parts) + len(value.parts) <= MOST_PARTS
            if fits and not names_in(inner) & changed:
                value = ScatterAdd(inner.base, (*inner.parts, *value.parts))
        out.append(s if value is s.value else dataclasses.replace(s, value=value))
        if s.target in once:
            defined[s.target] = value
    return out


def _scatter_under(base: Node, defined: dict[str, Node], once: set[str]) -> ScatterAdd | None:
    """The scatter-add ``base`` views, through names written once and views that keep one
    size: every ``reshape`` and ``broadcast_to`` to shapes of one size, and below each
    ``broadcast_to`` a ``reshape`` (so its source has that size: it repeats nothing);
    None where there is none."""
    sizes: set[int] = set()
    unsized = False  # a broadcast_to with no reshape below it yet
    node = base
    while not isinstance(node, ScatterAdd):
        if isinstance(node, Name):
            if node.id not in once or node.id not in defined:
                return None
            node = defined[node.id]
            continue
        if not (isinstance(node, Call) and node.func in _VIEWS and not node.keywords):
            return None
        if node.func in ("reshape", "broadcast_to"):
            size = _size(node)
            if size is None:
                return None
            sizes.add(size)
            unsized = node.func == "broadcast_to" or (unsized and node.func != "reshape")
        elif len(node.args) != 1:
            return None
        node = node.args[0]
    return None if unsized or len(sizes) > 1 else node


def _size(node: Call) -> int | None:
    """The size of the shape a ``reshape`` or ``broadcast_to`` names (None: not a constant
    shape of known sizes)."""
    if len(node.args) != 2 or not isinstance(node.args[1], Const):
        return None
    shape = node.args[1].value
    shape = (shape,) if isinstance(shape, int) else shape
    if not isinstance(shape, tuple) or any(not isinstance(n, int) or n < 0 for n in shape):
        return None
    return math.prod(shape)
