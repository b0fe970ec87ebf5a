"""Large freed buffers kept in the process's heap during one call (:func:`dgraph.blocks.
scoped`), on Linux with glibc.

glibc's ``malloc`` serves a buffer above its mmap threshold (at most 32 MiB) from fresh
pages and hands them back to the kernel when it is freed, and trims the top of its heap
once more than the trim threshold is free there; each large temporary (a 10⁶-entry index
array, a vector of values) then costs its pages' first-touch faults again, about a second
of system time per GB here. Within a call the thresholds are raised (:data:`KEPT`), so a
freed buffer serves the next one; when the outermost call returns they are set to glibc's
own dynamic bounds on 64-bit systems (:data:`AFTER`: what its dynamic thresholds reach
after a large free) and what is free is returned to the kernel (``malloc_trim``). Nothing
is changed where the allocator is not glibc's or where its thresholds were set in the
environment.

NumPy asks the kernel for transparent huge pages on every array of 4 MiB or more
(``madvise``); where the kernel compacts memory on such a fault (its ``defrag`` setting
``madvise``, a common default) each first touch of a fresh buffer stalls. Within a call
that request is turned off as well, and the previous setting is restored when the call
returns; nothing is changed where ``NUMPY_MADVISE_HUGEPAGE`` is set in the environment.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
import os
from typing import Any

__all__ = ["AFTER", "KEPT", "keep", "release"]

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)
KEPT = (1 << 30, (1 << 31) - 1)  # within a call: (mmap, trim) thresholds, bytes
AFTER = (32 << 20, 64 << 20)  # after it: glibc's largest dynamic thresholds (64-bit)
_SET = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES")


@functools.cache
def _libc() -> Any:
    """glibc's ``mallopt`` and ``malloc_trim``, or None (another C library, thresholds
    set in the environment)."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        return None
    if not version.startswith("glibc") or any(name in os.environ for name in _SET):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


def _madvise_switch() -> Any:
    """NumPy's switch of its huge-page request (it returns the previous setting), or None
    where this NumPy has none or the environment sets it.

    The switch is private (``_set_madvise_hugepage``; NumPy has no public one, only the
    environment variable read at its import), so it is looked up here alone, by name:
    checked against NumPy 2.4.6 (``numpy._core.multiarray``; ``numpy.core.multiarray``
    before NumPy 2). tests/test_blocks_sparse.py fails if this NumPy lacks it."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return None
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            return getattr(importlib.import_module(module), "_set_madvise_hugepage", None)
        except ImportError:
            continue
    return None


_HUGEPAGE: list[Any] = [None]  # the setting before the outermost call, while it runs


def _set(thresholds: tuple[int, int]) -> None:
    libc = _libc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, thresholds[0])
        libc.mallopt(M_TRIM_THRESHOLD, thresholds[1])


def keep() -> None:
    """Raise the thresholds: freed buffers stay in the heap for the next ones."""
    _set(KEPT)
    switch = _madvise_switch()
    if switch is not None:
        _HUGEPAGE[0] = switch(False)


def release() -> None:
    """Set the thresholds to :data:`AFTER` and return the free memory to the kernel."""
    _set(AFTER)
    switch = _madvise_switch()
    if switch is not None and _HUGEPAGE[0] is not None:
        switch(_HUGEPAGE[0])
        _HUGEPAGE[0] = None
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
