"""What an expression set holds, as the modules that count, evaluate and check one read it.

:class:`~dgraph.core.expressions.ExpressionSet` offers its costs, values and verification
as methods, so it imports the modules that compute them; they take it as
:class:`ExpressionData`, the part they read, and so need not import it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import sympy

    from .graph import DGraph

__all__ = ["ExpressionData"]


class ExpressionData(Protocol):
    """References and Jacobian entries over the edge symbols of ``graph``.

    ``pairs``: the (output, input) entries computed, None for all; ``as_computed``: the
    same set before single-use references were inlined (None: this one)."""

    @property
    def graph(self) -> DGraph: ...

    @property
    def references(self) -> Mapping[sympy.Symbol, sympy.Expr]: ...

    @property
    def jacobian(self) -> Mapping[tuple[str, str], sympy.Expr]: ...

    @property
    def pairs(self) -> tuple[tuple[str, str], ...] | None: ...

    @property
    def as_computed(self) -> ExpressionData | None: ...
