"""The arithmetic of a complex value's real and imaginary parts, where a part known to
be 0 is ``None`` (a real operand's imaginary part): what both readers' complex values
(:mod:`~dgraph.frontends.jaxpr_complex` for JAX, :mod:`~dgraph.frontends.array_complex`
for NumPy) compute their parts with, so that no operation on an exact 0 enters the
graph.

>>> add(None, 2.0), sub(None, 2.0), mul(None, 2.0), neg(None)
(2.0, -2.0, None, None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["add", "mul", "neg", "power", "sub"]


def add(a: Any, b: Any) -> Any:
    """``a + b``."""
    return b if a is None else a if b is None else a + b


def sub(a: Any, b: Any) -> Any:
    """``a - b``."""
    return neg(b) if a is None else a if b is None else a - b


def neg(a: Any) -> Any:
    """``-a``."""
    return None if a is None else -a


def mul(a: Any, b: Any) -> Any:
    """``a · b``."""
    return None if a is None or b is None else a * b


def power(a: Any, k: int, times: Callable[[Any, Any], Any]) -> Any:
    """``a**k`` for an integer ``k ≥ 1`` by repeated squaring, ``times`` the product of
    two complex values (each reader's own)."""
    out = None
    while k:
        if k & 1:
            out = a if out is None else times(out, a)
        k >>= 1
        if k:
            a = times(a, a)
    return out
