"""A block's values held as the linear map they are, read as an array where asked.

A convolution's block (:class:`dgraph.blocks.convolution.ConvValues`) and a dense linear
algebra block (:class:`dgraph.blocks.linalg.Applier`) keep what applies them (kernel taps;
a cotangent and a tangent rule) and make their explicit entries only when something other
than a product with a vector reads them: ``numpy.asarray``, an attribute, an index, a
ufunc. ``numpy.abs`` of one is the map of the magnitudes (:meth:`OperatorValues.absolute`),
as the value check's rounding scale reads it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["OperatorValues"]


class OperatorValues(np.lib.mixins.NDArrayOperatorsMixin):
    """The base of values held as a map: a subclass gives :attr:`entries` (the explicit
    array, made once), :meth:`absolute`, and the products ``applied`` (``block · v``) and
    ``applied_transposed`` (``vᵀ · block``), flat in and out. Its own attributes are named
    in ``OWN``: those, ``entries`` and private names are never read from the entries."""

    OWN: tuple[str, ...] = ()

    @property
    def entries(self) -> np.ndarray:
        raise NotImplementedError

    def absolute(self) -> OperatorValues:
        """The same map with every entry's magnitude."""
        raise NotImplementedError

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.entries if dtype is None else self.entries.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.absolute and method == "__call__" and len(inputs) == 1:
            return self.absolute()
        plain = [x.entries if isinstance(x, OperatorValues) else x for x in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "entries" or name in type(self).OWN:
            raise AttributeError(name)
        return getattr(self.entries, name)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, key: Any) -> Any:
        return self.entries[key]
