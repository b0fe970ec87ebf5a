"""What a live object was made from, by identity, forgotten with the object.

The NumPy tracer reads some values by how they were made: ``|z|**2`` of a complex ``z`` as
``re² + im²`` (:mod:`.array_complex`), an even power of ``|u|`` of a real ``u`` as that
power of ``u`` (:mod:`.array_tracer`): smooth where ``z`` or ``u`` is 0, where ``|·|``'s
rule is not. The traced values are not dgraph's to annotate, so a side table keeps, per
value, what it was made from, while the value lives (a weak reference's callback drops
the entry, and an identity reused later is never taken for the old value's).

>>> class Value: ...
>>> squares = Remembered()
>>> v = squares.remember(Value(), "v²")
>>> squares.recall(v), squares.recall(Value())
('v²', None)
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["Remembered"]


class Remembered:
    """A side table: ``recall(x)`` is what ``remember(x, what)`` stored, while ``x``
    lives; None for anything else (an object that takes no weak reference, a NumPy
    constant, is not remembered)."""

    def __init__(self) -> None:
        self._table: dict[int, tuple[weakref.ref, Any]] = {}

    def remember(self, obj: Any, what: Any) -> Any:
        """``obj``, remembered with ``what``."""
        key = id(obj)
        try:
            ref = weakref.ref(obj, lambda _, key=key: self._table.pop(key, None))
        except TypeError:
            return obj
        self._table[key] = (ref, what)
        return obj

    def recall(self, obj: Any) -> Any:
        """What ``obj`` was remembered with, else None."""
        entry = self._table.get(id(obj))
        return entry[1] if entry is not None and entry[0]() is obj else None
