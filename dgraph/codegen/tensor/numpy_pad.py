"""NumPy lines for a constant pad and for a ``where`` whose mask is a constant.

- ``numpy.pad(x, widths, constant_values=c)`` spends most of its time in Python (some
  15 µs whatever the size): printed as a new array of ``c`` (``x``'s type) and ``x``
  written into its interior (two calls).
- ``where(K < 0, x, C)`` (or ``where(M, x, C)``, ``M`` a boolean constant: JAX's
  gradient's select) with ``K`` and ``C`` constants (a scatter of constants into a
  grid, the boundary rows of a stencil's padded grid) and ``x`` a new array read only
  there: the entries where the mask is false are one box, written into ``x`` in place
  from ``C`` (a number where they are all one), instead of a pass over every entry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ir
from ..evaluate import COMPARISONS
from ..ir import ArrayStatement, BinOp, Call, Const, Name
from .constants import number_source

__all__ = ["pad_lines"]


def pad_lines(s: ArrayStatement, c: Any, i: int, fresh: set[str]) -> list[str] | None:
    """The lines of statement ``s`` (the ``i``-th; ``c`` the body's printing context,
    ``fresh`` the new arrays made so far) where it is such a pad or ``where``; None
    otherwise."""
    v = s.value
    if s.at or not isinstance(v, Call):
        return None
    if v.func == "pad":
        return _pad(s.target, v, c)
    if v.func == "where" and not v.keywords and len(v.args) == 3:
        return _where(s.target, v, c, i, fresh)
    return None


def _number(node: ir.Node, c: Any) -> float | None:
    """The number ``node`` is, or a constant of one entry holds."""
    value = ir.number(node)
    if value is not None:
        return value
    a = c.constants.arrays.get(node.id) if isinstance(node, Name) else None
    return float(a.flat[0]) if a is not None and a.size == 1 and a.dtype.kind in "fiu" else None


def _pad(t: str, v: Call, c: Any) -> list[str] | None:
    if len(v.args) != 2 or not isinstance(v.args[1], Const) or not isinstance(v.args[0], Name):
        return None
    keywords = dict(v.keywords)
    if set(keywords) - {"constant_values"}:
        return None
    value = _number(keywords["constant_values"], c) if keywords else 0.0
    shape, widths = c.shape(v.args[0]), v.args[1].value
    if value is None or shape is None or not isinstance(widths, tuple):
        return None
    if len(widths) != len(shape) or not all(
        isinstance(w, tuple) and len(w) == 2 and all(isinstance(k, int) and k >= 0 for k in w)
        for w in widths
    ):
        return None
    out = tuple(n + a + b for n, (a, b) in zip(shape, widths, strict=True))
    box = ", ".join(f"{a}:{a + n}" for n, (a, _) in zip(shape, widths, strict=True))
    x = v.args[0].id
    made = f"numpy.full({out}, {number_source(value)}, dtype={x}.dtype)"
    return [f"    {t} = {made}", f"    {t}[{box}] = {x}"]


def _mask(cond: ir.Node, c: Any) -> np.ndarray | None:
    """The constant mask ``cond`` is: ``K < 0`` (any comparison of a constant with a
    number) or a boolean constant itself; None otherwise."""
    if isinstance(cond, Name):
        k = c.constants.arrays.get(cond.id)
        return k if k is not None and k.dtype == np.bool_ else None
    if not isinstance(cond, BinOp) or cond.op not in COMPARISONS:
        return None
    k, constant = c.constants.arrays.get(getattr(cond.left, "id", None)), ir.number(cond.right)
    return None if k is None or constant is None else COMPARISONS[cond.op](k, constant)


def _where(t: str, v: Call, c: Any, i: int, fresh: set[str]) -> list[str] | None:
    cond, x, other = v.args
    if not (isinstance(x, Name) and isinstance(other, Name)):
        return None
    if x.id not in fresh or x.id in c.protected or not c.dying(x.id, v, i):
        return None
    mask, values, shape = _mask(cond, c), c.constants.arrays.get(other.id), c.shape(x)
    if mask is None or values is None or shape is None:
        return None
    if mask.shape != shape or values.shape != shape or values.dtype.kind != "f":
        return None
    box = _box(~mask)
    if box is None:
        return None
    if box == ():
        return [f"    {t} = {x.id}"]
    part = values[box]
    text = ", ".join(f"{b.start}:{b.stop}" for b in box)
    one = float(part.flat[0]) if part.size and np.all(part == part.flat[0]) else None
    source = number_source(one) if one is not None else f"{other.id}[{text}]"
    return [f"    {t} = {x.id}", f"    {t}[{text}] = {source}"]


def _box(mask: np.ndarray) -> tuple[slice, ...] | None:
    """The box of ``mask``'s true entries where they are exactly one (``()`` where none
    is true); None otherwise."""
    if not mask.any():
        return ()
    where = np.nonzero(mask)
    box = tuple(slice(int(w.min()), int(w.max()) + 1) for w in where)
    return box if mask[box].all() and mask.sum() == mask[box].size else None
