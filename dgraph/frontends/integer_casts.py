"""Integer positions as nested operations, shared by the NumPy and JAX readers so that
both read ``x[i.astype(int)]`` as one graph: a float made an integer toward zero
(NumPy's ``astype(int)``, JAX's ``convert_element_type``), and a negative position
counted from the end (NumPy's and ``jnp``'s indexing, once). No derivative flows through
either: they are positions a ``take_dynamic`` reads (:mod:`dgraph.blocks.dynamic_take`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const, evaluate, names_read
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..blocks.dynamic_take import DYNAMIC_TAKE
from ..core.graph import DGraph
from ..errors import InputError

__all__ = [
    "check_wrapped_in_range",
    "float_index_hint",
    "index_data",
    "is_toward_zero",
    "is_wrapped",
    "structural_hint",
    "toward_zero",
    "wrapped",
]


def float_index_hint(message: str) -> str:
    """The hint for JAX's refusal of a float index (``E[T]`` with ``T`` index data, which
    dgraph's readers pass to JAX as float64, as every argument): cast it, as NumPy code
    does; else nothing."""
    if "Indexer must have integer" not in message:
        return ""
    return " (every argument is read as float64: index with an integer cast, E[T.astype(int)])"


def structural_hint(names: list[str], branch: bool = False) -> str:
    """What to do with the parameters ``names`` where one fixes the program's structure
    (a trip count, a shape, a static index; ``branch``: a branch's flag): read as a number
    it cannot, so its value is needed where the function is read. Empty without names."""
    if not names:
        return ""
    n = names[0]
    what, value = ("a branch", "True") if branch else (f"range({n})", "5")
    number = (
        f"; a number that changes per call (a time {n}): write the branch with numpy.where,"
        f" np.where({n} <= 5, a, b)"
        if branch
        else ""
    )
    return (
        f"; a parameter ({', '.join(names)}) that fixes the structure ({what}, a loop bound, a"
        f" shape) needs its value when read: an integer in point= (--params {n}={value}) or a"
        f" default (def f(..., {n}={value})) left out of params{number}"
    )


def toward_zero(x: Any, shape: tuple[int, ...]) -> ArrayOp:
    """``x`` rounded toward zero, ``sign(x)·floor(|x|)``: a float made an integer, an
    integer quotient (C's, as ``lax.div``)."""
    magnitude = ArrayOp("floor", (ArrayOp("abs", (x,), (), shape),), (), shape)
    return ArrayOp("mul", (ArrayOp("sign", (x,), (), shape), magnitude), (), shape)


def is_toward_zero(op: Any) -> bool:
    """Whether ``op`` is :func:`toward_zero`'s ``sign(x)·floor(|x|)``: integers already,
    which a second cast keeps (``T.astype(int)`` of an integer argument, read cast once
    by :class:`~.integer_arguments.IntegerArguments`)."""
    if not isinstance(op, ArrayOp) or op.primitive != "mul" or len(op.operands) != 2:
        return False
    sign, magnitude = op.operands
    return (
        isinstance(sign, ArrayOp)
        and sign.primitive == "sign"
        and isinstance(magnitude, ArrayOp)
        and magnitude.primitive == "floor"
        and isinstance(inner := magnitude.operands[0], ArrayOp)
        and inner.primitive == "abs"
        and inner.operands[0] == sign.operands[0]
    )


def wrapped(index: ArrayOp, n: int) -> ArrayOp:
    """Integer positions with each negative one moved to ``i + n``: the ``select_n`` that
    JAX's own ``x[i]`` writes before its gather (``lt``, ``add``, ``select_n``)."""
    shape = tuple(index.shape)
    negative = ArrayOp("lt", (index, Const.of(np.asarray(0))), (), shape)
    moved = ArrayOp("add", (index, Const.of(np.asarray(n))), (), shape)
    return ArrayOp("select_n", (negative, index, moved), (), shape)


def check_wrapped_in_range(
    graph: DGraph, label: str, values: Mapping[str, np.ndarray] | None = None
) -> None:
    """Refuse (one line) a NumPy function's graph whose parameters, at their values,
    give a position that NumPy's ``x[i]`` refuses (``IndexError``: outside ``-n .. n-1``):
    each ``take_dynamic`` (and ``scatter_add_dynamic``) at :func:`wrapped` positions that
    read parameters only, evaluated at ``values`` (by vertex name; default the graph's
    parameter point); ``np.bincount``'s labels outside ``0 .. minlength - 1``
    (:func:`_check_labels`). At later calls of generated code such a position is clamped
    into the axis, as JAX's ``x[i]`` does."""
    values = graph.parameter_point if values is None else values
    if not values:
        return
    for op in _takes(graph):
        at = op.operands[1]
        if not is_wrapped(at) or not names_read([at]) <= set(values):
            continue
        n = int(dict(op.params)["length"])
        raw = evaluate(at.operands[1], values)
        if dict(op.params).get("labels"):  # np.bincount's: 0 .. minlength - 1
            _check_labels(raw, n, label)
        elif raw.size and not ((raw >= -n) & (raw < n)).all():
            bad = raw[(raw < -n) | (raw >= n)].reshape(-1)[0]
            raise InputError(
                f"{label}: index {int(bad)} (an integer cast of the parameters) is out of"
                f" bounds for an axis of length {n} at the point: NumPy raises IndexError"
            )


def index_data(graph: DGraph) -> list[str]:
    """The parameters whose integer casts are positions the graph's takes and scatter-adds
    read at run time (index data), sorted: a sparse pattern holds every entry they could
    reach, since a call may give any."""
    parameters = set(graph.parameters)
    found: set[str] = set()
    for op in _takes(graph):
        read = names_read([op.operands[1]])
        if read and read <= parameters:
            found |= read
    return sorted(found)


def _check_labels(raw: np.ndarray, n: int, label: str) -> None:
    """Refuse ``np.bincount`` labels at the point that NumPy refuses (a negative one:
    ValueError) or that make its result longer than ``minlength`` = ``n``."""
    if raw.size and raw.min() < 0:
        raise InputError(
            f"{label}: label {int(raw.min())} of numpy.bincount (an integer cast of the"
            " parameters) is negative at the point: NumPy raises ValueError"
        )
    if raw.size and raw.max() >= n:
        raise InputError(
            f"{label}: label {int(raw.max())} of numpy.bincount (an integer cast of the"
            f" parameters) is not below minlength {n} at the point: NumPy's result would be"
            " longer (give a minlength above every label)"
        )


def is_wrapped(at: Any) -> bool:
    """Whether ``at`` is :func:`wrapped`'s ``select_n``."""
    if not isinstance(at, ArrayOp) or at.primitive != "select_n" or len(at.operands) != 3:
        return False
    test, kept, moved = at.operands
    return (
        isinstance(test, ArrayOp)
        and test.primitive == "lt"
        and test.operands[0] is kept
        and isinstance(moved, ArrayOp)
        and moved.primitive == "add"
        and moved.operands[0] is kept
    )


def _takes(graph: DGraph) -> list[ArrayOp]:
    """The graph's ``take_dynamic`` and ``scatter_add_dynamic`` operations, nested ones
    too (a constant table read at index data is a passive value inside the operation that
    reads it), each once."""
    found: list[ArrayOp] = []
    seen: set[int] = set()
    stack = [op for v in graph.order() if (op := graph.op(v)) is not None]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.primitive in (DYNAMIC_TAKE, DYNAMIC_ADD):  # np.add.at(x, i.astype(int), v)
            found.append(op)
        stack.extend(x for x in op.operands if isinstance(x, ArrayOp))
    return found
