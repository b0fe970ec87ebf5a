"""``np.r_`` and ``np.c_`` of traced arrays (``np.r_[0.0, x, 1.0]``, ``np.c_[x, y]``): NumPy's
index tricks convert each item with ``np.array``, which a traced array refuses; here the
items are laid out as NumPy lays them (``numpy/lib/_index_tricks_impl.py``:
``AxisConcatenator``) and joined by ``np.concatenate``, so the tracer's operations are all
there is. ``np.r_``: numbers and vectors end to end (a slice is NumPy's ``arange`` /
``linspace`` of constants), arrays of more axes along the first; ``np.c_``: numbers and
vectors as columns, matrices side by side. A string directive (``np.r_['0,2', ...]``) is
refused in one line; without a traced item the index trick is NumPy's own.

>>> import numpy as np
>>> concatenator("r_", lambda a: False)[1.0, np.array([2.0, 3.0]), 4:6].tolist()
[1.0, 2.0, 3.0, 4.0, 5.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["concatenator"]


class _Concatenator:
    """``np.r_`` (``columns=False``) or ``np.c_`` whose items may be traced arrays."""

    def __init__(self, name: str, traced: Callable[[Any], bool]) -> None:
        self._name, self._traced = name, traced
        self._numpy = getattr(np, name)

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        if not any(self._traced(item) for item in items):
            return self._numpy[key]
        if any(isinstance(item, str) for item in items):
            raise InputError(f"numpy.{self._name} with a string directive is not supported")
        parts = [self._numpy[item] if isinstance(item, slice) else item for item in items]
        if self._name == "c_":
            return np.concatenate([self._column(p) for p in parts], axis=-1)
        return np.concatenate([self._row(p) for p in parts], axis=0)

    def _row(self, item: Any) -> Any:
        return np.reshape(item, (1,)) if np.ndim(item) == 0 else item

    def _column(self, item: Any) -> Any:
        if np.ndim(item) > 2:
            raise InputError("numpy.c_ of arrays of more than 2 axes is not supported")
        return np.reshape(item, (-1, 1)) if np.ndim(item) < 2 else item

    def __len__(self) -> int:  # NumPy's index tricks have no length: 0, as theirs
        return 0


def concatenator(name: str, traced: Callable[[Any], bool]) -> Any:
    """``np.r_`` or ``np.c_`` (``name``) taking traced items (``traced`` tells them)."""
    return _Concatenator(name, traced)
