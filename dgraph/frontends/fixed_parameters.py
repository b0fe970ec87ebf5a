"""Integer parameters that fix a program's structure, closed over at their given values:
a trip count ``range(n)``, a ``lax.fori_loop(0, n, ...)`` bound, a shape ``np.zeros(n)``,
a static index ``x[:n]``, a flag ``if bias:``.

Every parameter is read as a number first, so that what is made of the graph takes its
value at each call; a value that decides how many operations there are cannot be read so
(JAX refuses a ``fori_loop`` of a float64 bound, the NumPy tracer ``int()`` of a traced
value). Where that reading fails and such a parameter was given one integer or boolean
value, the function is read again with it closed over at that value
(:class:`~.integer_arguments.ClosedOver`, as JAX's ``static_argnums``): the one path of
every reader of a Python function (:func:`dgraph.frontends.from_python`, hence
``dgraph.jacobian``, ``load`` and the command line's ``--params n=5``, and
``make_function``, whose made function then refuses another value). The graph says what
it was read at (:attr:`~dgraph.core.graph.DGraph.fixed_parameters`, and a note).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..core.graph import DGraph
from ..errors import InputError
from .integer_arguments import ClosedOver

__all__ = [
    "Fixed",
    "fixed_note",
    "fixing",
    "integer_value",
    "made_at",
    "marked_closed",
    "read_fixing",
]

T = TypeVar("T")


def integer_value(value: Any) -> int | bool | None:
    """``value`` where it is one integer or boolean (a Python int or bool, a NumPy
    integer, a 0-d integer array), else None."""
    try:
        array = np.asarray(value)
    except Exception:  # a ragged list, a tracer: no integer given here
        return None
    if array.ndim or array.dtype.kind not in "iub":
        return None
    return bool(array) if array.dtype.kind == "b" else int(array)


def fixed_note(values: Mapping[str, int | bool]) -> str:
    """The note of a graph read with ``values`` closed over."""
    given = ", ".join(f"{n} = {v}" for n, v in values.items())
    return (
        f"read at {given}, closed over: it fixes the program's structure (a trip count, a"
        " shape, a branch) and reading it as a number failed; read it again for another value"
    )


def made_at(graph: DGraph) -> str:
    """What a generated module's title adds for a graph read closed over
    (:attr:`~dgraph.core.graph.DGraph.fixed_parameters`): empty where none was."""
    if not graph.fixed_parameters:
        return ""
    given = ", ".join(f"{n} = {v}" for n, v in graph.fixed_parameters.items())
    return f"; read at {given}, which fixes the program's structure (valid for it alone)"


@dataclass(frozen=True)
class Fixed:
    """``f`` closed over at ``values`` (name: value, in ``f``'s order), the arguments at
    ``positions`` (position: name)."""

    f: ClosedOver
    values: dict[str, int | bool]
    positions: dict[int, str]

    def drop(self, per_argument: Sequence[Any] | None) -> list[Any] | None:
        """``per_argument`` (one entry per argument of ``f``: a point, sizes) less the
        closed-over ones; None stays None."""
        if per_argument is None:
            return None
        return [a for k, a in enumerate(per_argument) if k not in self.positions]

    def kept(self, params: Sequence[str]) -> list[str]:
        """``params`` less the closed-over ones."""
        return [p for p in params if p not in self.values]

    def rest(self, values: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The parameters' ``values`` (by name) less the closed-over ones."""
        return None if values is None else {n: v for n, v in values.items() if n not in self.values}

    def mark(self, graph: DGraph) -> DGraph:
        """``graph``, read of the closed-over function, saying at what values."""
        return _marked(graph, self.values)


def _marked(graph: DGraph, values: Mapping[str, int | bool]) -> DGraph:
    """``graph`` saying it was read at ``values`` (once: a reader's graph read again)."""
    if values and any(graph.fixed_parameters.get(n) != v for n, v in values.items()):
        graph.fixed_parameters = {**graph.fixed_parameters, **values}
        graph.notes.append(fixed_note(values))
    return graph


def marked_closed(graph: DGraph, f: Any) -> DGraph:
    """``graph``, read of ``f``, saying at what values where ``f`` is a function closed
    over at parameters that fix its structure (:func:`fixing`'s): every reader's graph
    of it, ``make_function``'s and its Hessians' too; as it is for any other ``f``."""
    return _marked(graph, f.fixed_values if isinstance(f, ClosedOver) else {})


def fixing(f: Callable[..., Any], values: Mapping[str, Any]) -> Fixed | None:
    """``f`` closed over at those of the parameters' ``values`` (by name) that are one
    integer or boolean (:func:`integer_value`); None where none is, or ``f`` has no
    signature."""
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return None
    found = {n: integer_value(v) for n, v in values.items() if n in names}
    ordered = {n: found[n] for n in names if found.get(n) is not None}
    if not ordered:
        return None
    positions = {names.index(n): n for n in ordered}
    closed = ClosedOver(f, {k: ordered[n] for k, n in positions.items()}, ordered)
    return Fixed(closed, ordered, positions)  # type: ignore[arg-type]


def read_fixing(
    read: Callable[[Fixed | None], T], f: Callable[..., Any], values: Mapping[str, Any]
) -> tuple[T, Fixed | None]:
    """``read(None)``, ``f`` read with its parameters as numbers; where that fails, and
    some of the parameters' ``values`` are integers (:func:`fixing`), ``read(fixed)`` of
    ``f`` closed over at them, and the :class:`Fixed`.

    Raises
    ------
    InputError
        The first reading's refusal, where no integer value was given.
    """
    try:
        return read(None), None
    except InputError:
        fixed = fixing(f, values)
        if fixed is None:
            raise
    return read(fixed), fixed
