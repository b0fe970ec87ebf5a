"""A generated result as a NumPy array, for the tests' comparisons: a SciPy sparse array
by ``toarray``, a BCOO without batch or dense axes by NumPy (its entries summed into
their positions as ``BCOO.todense`` sums them, its padding past the shape dropped, its
dtype kept: no XLA kernel compiled per shape, as ``todense`` compiles one), anything else
by ``np.asarray``."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["dense"]


def dense(a: Any) -> np.ndarray:
    if hasattr(a, "toarray"):
        return a.toarray()
    if getattr(a, "n_batch", None) == 0 and getattr(a, "n_dense", None) == 0:
        data, indices = np.asarray(a.data), np.asarray(a.indices)
        out = np.zeros(a.shape, dtype=data.dtype)
        kept = (indices < np.asarray(a.shape)).all(axis=1)
        np.add.at(out, tuple(indices[kept].T), data[kept])
        return out
    return np.asarray(a.todense() if hasattr(a, "todense") else a)
