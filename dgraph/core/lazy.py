"""A module imported when first used, so that importing dgraph stays light: SciPy is
read only once a region is evaluated (:mod:`dgraph.core.regions`,
:mod:`dgraph.core.branches`, :mod:`dgraph.core.body_patterns`)."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LazyModule"]


class LazyModule:
    """A module imported when first used.

    >>> LazyModule("math").sqrt(4.0)
    2.0
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:  # imported once, then read directly (a step reads it)
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)
