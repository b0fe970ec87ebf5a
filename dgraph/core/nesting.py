"""Nested computations without recursion: each step is a generator that yields the
generator whose value it needs next and receives that value, so nesting lives on a list,
not on Python's call stack, and no depth of input can reach the recursion limit (a
global, shared by threads, which dgraph never changes).

>>> def depth(n):
...     return 0 if n == 0 else 1 + (yield depth(n - 1))
>>> run_nested(depth(100_000))
100000
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

__all__ = ["run_nested"]


def run_nested(rule: Generator) -> Any:
    """The value of ``rule``, a generator that yields the generators whose values it
    needs (each value sent back to it) and returns its own."""
    stack = [rule]
    value = None
    while True:
        try:
            needed = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            value = done.value
        else:
            stack.append(needed)
            value = None
