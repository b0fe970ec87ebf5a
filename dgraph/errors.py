"""Errors dgraph raises on bad input; each carries a one-line message for the CLI."""

from __future__ import annotations

__all__ = [
    "DGraphError",
    "GraphError",
    "InputError",
    "ProofError",
    "ResultTooLarge",
    "SearchTooLarge",
    "UnionTooLarge",
    "VerificationError",
]


class DGraphError(ValueError):
    """Base class: a problem with what the user gave dgraph, reported in one line."""


class InputError(DGraphError):
    """A file or argument that cannot be read (missing, malformed, unknown names)."""


class GraphError(DGraphError):
    """A graph that is not a valid differentiation graph (cycle, misplaced roles, ...)."""


class SearchTooLarge(DGraphError):
    """A search (or a symbolic construction) whose size exceeds its limit, refused at
    once: an exhaustive search given no budget, a Markowitz order with too much fill-in."""


class ResultTooLarge(DGraphError):
    """A Jacobian or Hessian whose entries (dense) or nonzeros (sparse) exceed their limit,
    refused before it is built: ``entries`` of them, ``limit`` the most allowed."""

    def __init__(self, message: str, *, entries: int, limit: int, sparse: bool) -> None:
        super().__init__(message)
        self.entries, self.limit, self.sparse = entries, limit, sparse


class UnionTooLarge(DGraphError):
    """A take or scatter-add at positions known only at run time (index data) whose union
    over every position a call could give, the fixed pattern every mode holds, exceeds its
    limit."""


class VerificationError(DGraphError):
    """An expression set that refers to unknown symbols or has cyclic references."""


class ProofError(RuntimeError):
    """A lower bound above a cost known to be reached: a bug in a bound or in a price,
    never the user's input. Raised rather than claim an optimum (not a
    :class:`DGraphError`: the command line reports it as an internal error)."""
