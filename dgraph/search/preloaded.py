"""The last module of :data:`dgraph.search.timebox.PRELOAD`: the fork server imports it
after the others and moves every object they made into the garbage collector's permanent
generation (:func:`gc.freeze`). Each child forked from the server inherits those objects;
without the freeze its first collections walked them all, writing to every page of the
inherited heap, so the kernel copied it page by page: about 50 ms of system time per
child, against about 13 ms frozen (an empty search, measured on the two-core test
machine). Imported anywhere else (the doctests import every module) it does nothing."""

from __future__ import annotations

import gc
import sys

try:
    from multiprocessing import forkserver
except ImportError:  # a platform without one
    forkserver = None

__all__ = ["in_fork_server"]


def in_fork_server() -> bool:
    """Whether this runs inside the fork server's start (its ``main`` on the stack)."""
    if forkserver is None:
        return False
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


if in_fork_server():
    gc.collect()  # what is garbage now is not kept forever
    gc.freeze()
