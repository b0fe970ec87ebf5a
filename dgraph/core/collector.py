"""The cyclic garbage collector paused while large expression sets are built.

Building an expression set makes 10^5–10^6 sympy objects, none of them in reference
cycles; each time enough of them accumulate, Python's collector walks every live object
of the older generations again: on large graphs a large part of a method's time.
Reference counting still frees everything as usual. At the end the new objects are filed
as old without walking them: ``gc.freeze()`` then ``gc.unfreeze()`` moves every tracked
object to the oldest generation by splicing lists (``gc.collect(1)`` would pass over all
of them); cyclic garbage among them waits for the next full collection.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_depth = 0


@contextmanager
def collector_paused(builds: bool = True) -> Iterator[None]:
    """Run the body with the cyclic collector off (re-entrant; restored after, also on
    an exception, as it was found). ``builds``: the body leaves many new objects alive
    (an expression set), filed as old at the end (left young, they would be walked once
    per generation as they age); a body whose objects die with it (a check) skips that.

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    global _depth
    was_enabled = gc.isenabled()
    _depth += 1
    gc.disable()
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and was_enabled:
            if builds:  # what the body made, filed as old: no pass over it
                gc.freeze()
                gc.unfreeze()
            gc.enable()
