"""The runs a region (a loop or a branch) keeps, by operands, within a budget of bytes.

A loop in a loop's body runs at every outer step while the outer trajectory is taken,
then is asked for its blocks at each of those steps (the value check, the outer sweep's
body Jacobians): a run kept from the trajectory is swept without stepping again. The
runs are kept while their arrays hold at most :data:`KEPT_BYTES` (the newest is kept
whatever its size), the oldest let go first: what is kept depends on the arrays' sizes
alone, never on time or load. A loop's tangents at a point are kept for one point at a
time (:meth:`KeptRuns.put`), and the blocks a run handed over are counted here
(:attr:`KeptRuns.handed`): both kept up in O(1), not by a walk of every run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["KEPT_BYTES", "TANGENTS", "KeptRuns", "nbytes"]

KEPT_BYTES = 8 << 20
"""The bytes of arrays a region's kept runs hold (8 MiB), the newest run's whatever its
size; a region keeps at most this plus its newest run plus the handed blocks
(:data:`~dgraph.core.regions.HANDED_MOST` entries). A loop of 30 steps over 3 carried
values in a loop of 300 (``benchmarks/nested_loop_sweeps.py``) holds 2.2 MB of runs."""

TANGENTS = ("jacobian", "magnitudes")  # a run's tangents: one point's kept at a time
_HANDED = ("handed jacobian", "handed magnitudes")


def nbytes(x: Any) -> int:
    """The bytes of the arrays in ``x`` (arrays, sparse matrices, and dicts, lists and
    tuples of them; a list of a loop's per-step values counted as its first step's
    times the steps: a body's values have the same shapes at every step)."""
    if isinstance(x, np.ndarray):
        return x.nbytes
    if x is None:
        return 0
    if isinstance(x, (dict, list, tuple)):
        if isinstance(x, dict):
            x = list(x.values())
        elif x and isinstance(x[0], dict):
            return len(x) * nbytes(x[0])
        return sum(v.nbytes if type(v) is np.ndarray else nbytes(v) for v in x)
    if hasattr(x, "indptr"):  # CSR / CSC
        return x.data.nbytes + x.indices.nbytes + x.indptr.nbytes
    if hasattr(x, "nnz"):  # another sparse format: its entries and their places
        return x.nnz * (x.dtype.itemsize + 16)
    return int(getattr(x, "nbytes", 8))


class KeptRuns:
    """A region's runs by key (its operands' bytes), oldest first; ``budget``: the bytes
    they may hold (:data:`KEPT_BYTES`)."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = KEPT_BYTES if budget is None else budget
        self._runs: dict[bytes, dict] = {}
        self._bytes: dict[bytes, int] = {}
        self.held = 0  # bytes, all runs
        self.handed = 0  # entries of the handed blocks, all runs
        self._tangents: bytes | None = None  # the run holding tangents

    def get(self, key: bytes) -> dict | None:
        return self._runs.get(key)

    def __contains__(self, key: bytes) -> bool:
        return key in self._runs

    def __len__(self) -> int:
        return len(self._runs)

    def values(self) -> Iterator[dict]:
        return iter(self._runs.values())

    def clear(self) -> None:
        self.__init__(self.budget)

    def put(self, key: bytes, run: dict) -> None:
        """Keep ``run`` at ``key`` (replacing the run there), letting the oldest go while
        the others and it hold more than the budget; a run with tangents lets go of
        another run's (one point's tangents kept at a time)."""
        self._drop(key)
        if any(f in run for f in TANGENTS):
            other = self._tangents
            if other is not None and other in self._runs:
                found = self._runs[other]
                lost = sum(nbytes(found.pop(f, None)) for f in TANGENTS)
                self._bytes[other] -= lost
                self.held -= lost
            self._tangents = key
        size = nbytes(run)
        while self._runs and self.held + size > self.budget:
            self._drop(next(iter(self._runs)))
        self._runs[key] = run
        self._bytes[key] = size
        self.held += size
        self.handed += _handed(run)

    def grew(self, key: bytes, size: int) -> None:
        """Count ``size`` more bytes that the run at ``key`` now holds."""
        if key in self._runs:
            self._bytes[key] += size
            self.held += size

    def _drop(self, key: bytes) -> None:
        run = self._runs.pop(key, None)
        if run is None:
            return
        self.held -= self._bytes.pop(key)
        self.handed -= _handed(run)
        if self._tangents == key:
            self._tangents = None


def _handed(run: dict) -> int:
    return sum(run.get(name, {}).get("entries", 0) for name in _HANDED)
