"""The entries of an array operation's result that are one number whatever the inputs.

A constant mask written into scores (``where(mask, s, -inf)``) fixes some entries of
every array computed from them: the masked scores are ``-inf``, so ``exp(s - max)`` is 0
there, so ``a @ v`` never reads the matching rows of ``v``. :func:`known_result` gives an
operation's known entries from its operands' (an array, NaN where not known: a NaN
entry is taken as not known, the safe side), so that a walk over a graph
(:mod:`dgraph.core.constant_entries`) finds them all and
:func:`~dgraph.blocks.arrays.narrowed` leaves the partials they make zero out of the
blocks: a structural pattern (Griewank and Walther's index domains [1]_) in which a
constant mask counts.

Rules, each exact at every input at which the entries not known are finite (elsewhere
the program's values are NaN or infinite anyway):

- an entry whose operands are all known is the operation's value on them;
- ``±inf + x`` and ``±inf - x`` are ``±inf``, ``x - ±inf`` is ``∓inf``;
- ``0 · x``, ``0 / x`` and ``x / ±inf`` are 0; ``max(+inf, x)`` is ``+inf``,
  ``min(-inf, x)`` is ``-inf``;
- ``select_n`` with a known predicate takes the case it picks, else a value all the
  cases know alike;
- a move moves them;
- an entry of ``dot_general`` is 0 where each product it sums has a known zero factor;
  a reduction's is its value where the entries it reduces are all known.

Known entries start only at a constant mask (a ``select_n`` with a constant predicate:
``where(mask, x, 0)``'s zeros; a product with a constant: a 0/1 mask multiplied in) and
at a constant's infinities (an additive ``-inf`` bias, ``±inf`` padding): where another
operation reads no known entry of a vertex, only the infinite entries of its result are
kept. A constant's zeros elsewhere start none (a grid's zero padding, the zero rows of
a real FFT's matrix in a ``dot_general``): narrowing the diagonal blocks they meet
changed the block structure other passes rely on (a sparse Newton Jacobian at 10⁶
unknowns made 38 % slower; the looped second derivative of ``eigvalsh`` beside an
``rfft`` no longer looped).

An input-dependent predicate chooses nothing: ``where(x > 0, x, 0)`` knows no entry.

References
----------
.. [1] Griewank, A. and Walther, A. (2008). *Evaluating Derivatives*, 2nd ed., SIAM,
   §7.1 (propagating sparsity patterns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .arrays import ELEMENTWISE, MOVES, ArrayOp, Const, dot_general, elementwise_forward, move

__all__ = ["known_result"]

_ABSORBING = frozenset({"add", "sub", "mul", "div", "max", "min"})
_REDUCTIONS = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min}
_OTHERS = frozenset({"integer_pow", "select_n", "dot_general", *_REDUCTIONS})


def known_result(
    op: ArrayOp, known: Callable[[Any], np.ndarray | None], shapes: Sequence[tuple[int, ...]]
) -> np.ndarray | None:
    """The entries of ``op``'s result known whatever the inputs (NaN where not), from
    ``known(vertex)``: a vertex's known entries (NaN where not), None for none known;
    ``shapes``: the operands'. None where the result knows none."""
    name = op.primitive
    if name not in ELEMENTWISE and name not in MOVES and name not in _OTHERS:
        return None
    args = [_known(known, x) for x in op.operands]
    if name in MOVES:  # a move's own constants start only their infinities
        args = [
            _infinite(a) if isinstance(x, Const) else a
            for x, a in zip(op.operands, args, strict=True)
        ]
    pairs = list(zip(op.operands, args, strict=True))
    read = any(a is not None for x, a in pairs if isinstance(x, str))
    if not read and not any(_fixes(a) for x, a in pairs if isinstance(x, Const) and a is not None):
        return None  # nothing known read, no constant that fixes an entry
    filled = [np.full(s, np.nan) if a is None else a for a, s in zip(args, shapes, strict=True)]
    with np.errstate(all="ignore"):
        if name == "select_n":
            out = _select(op, filled)
        elif name == "dot_general":
            out = _dot_zeros(op, filled)
        elif name in MOVES:
            out = np.asarray(move(name, op.param, filled, op.shape), dtype=float)
        elif name in _REDUCTIONS:  # NaN (not known) spreads through each
            out = _REDUCTIONS[name](filled[0], axis=tuple(op.param["axes"]))
        else:
            out = _elementwise(op, filled)
    out = np.broadcast_to(np.asarray(out, dtype=float), op.shape)
    if not read and not _masks(op):
        out = np.where(np.isinf(out), out, np.nan)
    return None if np.isnan(out).all() else out


def _masks(op: ArrayOp) -> bool:
    """Whether ``op`` applies a constant mask, whose every fixed entry starts known ones:
    a select with a constant predicate (``where(mask, x, 0)``), a product with a
    constant (a 0/1 mask multiplied in, as JAX's gradient of a ``where`` has it)."""
    if op.primitive == "select_n":
        return isinstance(op.operands[0], Const)
    return op.primitive == "mul" and any(isinstance(x, Const) for x in op.operands)


def _fixes(a: np.ndarray) -> bool:
    """Whether a constant operand can fix entries of the result: a zero or an infinity
    (a predicate's 0 and 1 choose them)."""
    return bool(((a == 0) | np.isinf(a)).any())


def _infinite(a: np.ndarray | None) -> np.ndarray | None:
    """A move's constant operand as known where it is infinite (``±inf`` padding)."""
    return None if a is None or not np.isinf(a).any() else np.where(np.isinf(a), a, np.nan)


def _known(known: Callable[[Any], np.ndarray | None], x: Any) -> np.ndarray | None:
    if isinstance(x, Const):
        return np.asarray(x.value, dtype=float)
    if isinstance(x, str):
        return known(x)
    return None  # a nested operation (a predicate, a stop_gradient): not followed


def _elementwise(op: ArrayOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """Exact where every operand is known (NaN-free NumPy need not spread NaN: ``1**nan``
    is 1), then the absorbing rules of the module's list."""
    shape = op.shape
    args = [np.broadcast_to(a, shape) for a in args]
    every = np.logical_and.reduce([~np.isnan(a) for a in args])
    out = np.full(shape, np.nan)
    if every.any():
        value = np.asarray(elementwise_forward(op, [np.where(every, a, 0.0) for a in args]))
        out = np.where(every, np.broadcast_to(value, shape), np.nan)
    if op.primitive in _ABSORBING and len(args) == 2:
        a, b = args
        found = _absorbed(op.primitive, a, b)
        out = np.where(np.isnan(out), found, out)
    return out


def _absorbed(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The value a known operand forces whatever the other (finite) one is; NaN where
    none."""
    out = np.full(a.shape, np.nan)
    if name in ("add", "sub"):
        out = np.where(np.isinf(a), a, out)
        out = np.where(np.isinf(b), b if name == "add" else -b, out)
    elif name == "mul":
        out = np.where((a == 0) | (b == 0), 0.0, out)
    elif name == "div":
        out = np.where((a == 0) | np.isinf(b), 0.0, out)
    else:  # max, min
        top = np.inf if name == "max" else -np.inf
        out = np.where((a == top) | (b == top), top, out)
    return out


def _select(op: ArrayOp, args: Sequence[np.ndarray]) -> np.ndarray:
    shape = op.shape
    pred, cases = np.broadcast_to(args[0], shape), [np.broadcast_to(c, shape) for c in args[1:]]
    out = np.full(shape, np.nan)
    for k, case in enumerate(cases):
        out = np.where(pred == k, case, out)
    first = cases[0]
    alike = np.logical_and.reduce([c == first for c in cases])  # NaN is never alike
    return np.where(np.isnan(pred) & alike, first, out)


def _dot_zeros(op: ArrayOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """0 where no product of the sum can be nonzero (a known zero in each pair)."""
    numbers = op.param["dimension_numbers"]
    maybe = [np.where(a == 0, 0.0, 1.0) for a in args]  # NaN (not known): maybe nonzero
    pairs = dot_general(maybe[0], maybe[1], numbers)
    return np.where(pairs == 0, 0.0, np.nan)
