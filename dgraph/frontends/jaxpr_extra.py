"""jaxpr equations the array level reads as other array operations: ``reshape`` with a
dimension order (a transpose, then the reshape), ``tile`` (a broadcast, then a reshape),
``sort`` of several operands (the sorted keys, and ``argsort`` as a nested integer
operation, as ``jnp.argsort`` sorts an iota beside its keys; by a constant key, as
``jax.random.permutation`` sorts, a ``take`` of constant indices), the constant first
operand of ``polygamma``, ``zeta`` and the incomplete gammas (the first two of the
incomplete beta ``regularized_incomplete_beta``), and ``lu_pivots_to_permutation`` of an
``lu``'s pivots (``jax.scipy.linalg.lu_solve`` of ``lu_factor``'s pair) as that ``lu``'s own
permutation (an integer of the same matrix), and ``jax.scipy.special.exp1``'s custom_jvp
call ``expn(1, x)`` and ``expi``'s as the operations ``exp1`` and ``expi``. Each rewrite
returns the equation's values, or None where the usual reading applies."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..blocks.array_extra import sort_order
from ..blocks.arrays import ArrayOp, Const
from ..errors import InputError
from .jaxpr_bitwise import BITWISE
from .jaxpr_compat import COMPAT
from .jaxpr_exact import lax_round
from .jaxpr_rewrites import CALLED, TRACED

__all__ = ["REWRITTEN", "called_name", "called_primal", "empty_values", "read_exponential_integral"]


def _reshape(reader, eqn, ins: list[Any]) -> list[Any] | None:
    order = eqn.params.get("dimensions")
    if order is None:
        return None
    x = eqn.invars[0].aval
    perm = tuple(int(j) for j in order)
    moved = tuple(int(x.shape[j]) for j in perm)
    op = ArrayOp("transpose", (reader.operand(ins[0]),), (("permutation", perm),), moved)
    inner = reader.result(op, x)
    out = eqn.outvars[0].aval
    return [reader.result(ArrayOp("reshape", (inner,), (), tuple(out.shape)), out)]


def _tile(reader, eqn, ins: list[Any]) -> list[Any]:
    x = eqn.invars[0].aval
    reps = tuple(int(r) for r in eqn.params["reps"])
    shape = tuple(int(n) for n in x.shape)
    if len(reps) != len(shape):
        raise InputError(f"{reader.where}: tile with {len(reps)} repeats of {len(shape)} axes")
    spread = tuple(n for pair in zip(reps, shape, strict=True) for n in pair)
    dims = tuple(range(1, 2 * len(shape), 2))
    op = ArrayOp(
        "broadcast_in_dim", (reader.operand(ins[0]),), (("broadcast_dimensions", dims),), spread
    )
    inner = reader.result(op, x)
    out = eqn.outvars[0].aval
    return [reader.result(ArrayOp("reshape", (inner,), (), tuple(out.shape)), out)]


def _sort(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``lax.sort`` of several operands: each result the operand permuted by the keys
    (the first ``num_keys``; stable, the first key first): an ``argsort`` where the
    operand is the positions (``jnp.argsort``), else a ``sort`` of the operand by the
    keys; by constant keys a ``take`` (:func:`_constant_permutation`). Refused in one
    line with ``is_stable=None`` (NumPy's ``argsort`` of a JAX value), which JAX traces
    but cannot compile (so neither could the check against it)."""
    if eqn.params.get("is_stable", True) is None:
        raise InputError(
            f"{reader.where}: sort with is_stable=None (NumPy's argsort of a traced value),"
            " which JAX traces but cannot compile: use jnp.argsort"
        )
    if len(ins) == 1:
        return None
    d = int(eqn.params["dimension"])
    count = int(eqn.params.get("num_keys", 1))
    if all(isinstance(k, np.ndarray) for k in ins[:count]):
        return _constant_permutation(reader, eqn, ins, d, count)
    keys = tuple(reader.operand(k) for k in ins[:count])
    params = (("dimension", d),)
    outs: list[Any] = []
    for j, (x, var) in enumerate(zip(ins, eqn.outvars, strict=True)):
        shape = tuple(var.aval.shape)
        iota = np.broadcast_to(
            np.arange(shape[d]).reshape([-1 if i == d else 1 for i in range(len(shape))]), shape
        )
        if isinstance(x, np.ndarray) and np.array_equal(x, iota):
            outs.append(ArrayOp("argsort", keys, params, shape))
            continue
        operands = keys if count == 1 and j == 0 else (*keys, reader.operand(x))
        outs.append(reader.result(ArrayOp("sort", operands, params, shape), var.aval))
    return outs


def _constant_permutation(reader, eqn, ins: list[Any], d: int, count: int) -> list[Any]:
    """A sort by constant keys (``jax.random.permutation``): the same permutation of
    every operand, a ``take`` of constant indices where every fibre moves alike."""
    perm = sort_order([np.asarray(k) for k in ins[:count]], d)
    rows = np.moveaxis(perm, d, -1).reshape(-1, perm.shape[d])
    if not (rows == rows[:1]).all():
        raise InputError(
            f"{reader.where}: sort by a constant key that moves its fibres differently is"
            " not supported at the array level"
        )
    indices = tuple(int(i) for i in rows[0])
    outs: list[Any] = []
    for x, var in zip(ins, eqn.outvars, strict=True):
        if isinstance(x, np.ndarray):
            outs.append(np.take(x, indices, axis=d))
            continue
        params = (("indices", indices), ("axis", d))
        op = ArrayOp("take", (reader.operand(x),), params, tuple(var.aval.shape))
        outs.append(reader.result(op, var.aval))
    return outs


# operations whose first operand takes no derivative: what that operand is
_CONSTANT_FIRST = {
    "polygamma": ("polygamma with an order", "order"),
    "igamma": ("gammainc with a shape a", "shape"),
    "igammac": ("gammaincc with a shape a", "shape"),
    "zeta": ("zeta with an exponent", "exponent"),
    # the first two: JAX raises "Betainc gradient with respect to a and b not supported"
    "regularized_incomplete_beta": ("betainc with a shape a or b", "a and b"),
}
_CONSTANTS = {"regularized_incomplete_beta": 2}  # how many leading operands; else 1


def _constant_first(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """None (read as the operation) where the first operand is a constant; else refused:
    ``polygamma``'s order and ``zeta``'s exponent have no derivative in JAX, the
    incomplete gammas' shape ``a`` only JAX's ``igamma_grad_a``, which has no derivative
    and no SciPy or C99 function; the incomplete beta's shapes ``a`` and ``b`` none in
    JAX."""
    name = eqn.primitive.name
    if all(_no_derivative(reader, x) for x in ins[: _CONSTANTS.get(name, 1)]):
        return None
    what, noun = _CONSTANT_FIRST[name]
    raise InputError(
        f"{reader.where}: {what} that depends on the inputs is not supported: give a"
        f" constant {noun}"
    )


def _no_derivative(reader, x: Any) -> bool:
    """Whether the operand ``x`` is a constant, a parameter (``params=``) or an operation
    of parameters alone: no input's derivative reaches it."""
    if isinstance(x, np.ndarray):
        return True
    read = [x] if isinstance(x, str) else x.vertices() if isinstance(x, ArrayOp) else None
    return read is not None and set(read) <= reader.fixed


def called_primal(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """The primal values of a call whose body works on the bits of a float, read as
    whole operations instead: ``jnp.frexp``'s custom_jvp ``_frexp`` (``bitcast_convert_type``
    and shifts) is ``frexp_mantissa`` and ``frexp_exponent``, nested operations with no
    derivative (its custom rule gives the derivative); a call :data:`CALLED` names
    (``searchsorted``'s binary search) as its rewrite reads it; else None."""
    name = called_name(eqn)
    if name in CALLED and not all(isinstance(x, np.ndarray) for x in ins):
        return CALLED[name](reader, eqn, ins)
    if name != "_frexp" or isinstance(ins[0], np.ndarray):
        return None
    x, shape = ins[0], tuple(eqn.invars[0].aval.shape)
    return [ArrayOp(part, (x,), (), shape) for part in ("frexp_mantissa", "frexp_exponent")]


def read_exponential_integral(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """JAX's custom_jvp call ``expi(x)`` of a traced ``x`` as the operation ``expi`` (not
    its composite, whose branches take logarithms of the other sign), and ``expn(n, x)``
    of a constant whole order (a literal in the call's body, ``jax.scipy.special.exp1``
    and ``expn``; or a constant operand, in its rule ``expn_jvp`` that JAX's gradient
    calls) as ``expn`` from order 2 on, ``exp1`` at 1, ``E_0(x) = e^(-x)/x`` at 0: that
    rule does not trace (it converts the order, traced there, to NumPy; JAX's own second
    derivative fails with it), so another order is refused in one line; None for any
    other call."""
    name = called_name(eqn) if eqn.primitive.name == "custom_jvp_call" else ""
    if name == "expi" and len(ins) == 1 and isinstance(ins[0], str | ArrayOp):
        out = eqn.outvars[0].aval
        op = ArrayOp("expi", (reader.operand(ins[0]),), (), tuple(out.shape))
        return [reader.result(op, out)]
    if name != "expn":
        return None
    x, order = ins[-1], _literal_order(eqn) if len(ins) == 1 else _constant_order(ins[0])
    if not isinstance(x, str | ArrayOp):
        return None
    if order is None or order < 0:  # its rule leaks a tracer (and JAX's E_(-1) is NaN)
        raise InputError(
            f"{reader.where}: jax.scipy.special.expn of an order that is not a constant"
            " whole number >= 0 is not supported"
        )
    return _expn_vertices(reader, order, reader.operand(x), eqn.outvars[0].aval)


def _expn_vertices(reader, order: int, x: Any, out) -> list[Any]:
    """``E_order(x)`` as vertices (a nested operation takes no derivative)."""
    shape = tuple(out.shape)
    if order >= 2:
        op = ArrayOp("expn", (Const.of(np.asarray(float(order))), x), (), shape)
        return [reader.result(op, out)]
    if order == 1:
        return [reader.result(ArrayOp("exp1", (x,), (), shape), out)]
    decay = reader.result(ArrayOp("neg", (x,), (), shape), out)
    decay = reader.result(ArrayOp("exp", (decay,), (), shape), out)
    return [reader.result(ArrayOp("div", (decay, x), (), shape), out)]


def _constant_order(n: Any) -> int | None:
    """A constant whole scalar's value, else None."""
    if not isinstance(n, np.ndarray) or n.shape != () or n.dtype.kind not in "iuf":
        return None
    return int(n) if n == np.floor(n) else None


_MOVES = frozenset({"squeeze", "broadcast_in_dim", "reshape"})  # an axis of length 1


def _literal_order(eqn) -> int | None:
    """The literal first operand of the one call in a custom_jvp call's body (beside the
    moves that drop and restore an axis of length 1, ``exp1`` of shape (2, 1, 4)), else
    None."""
    inner = eqn.params["call_jaxpr"]
    eqns = getattr(inner, "jaxpr", inner).eqns
    calls = [e for e in eqns if e.primitive.name not in _MOVES]
    if len(calls) != 1 or len(calls[0].invars) != 2:
        return None
    value = getattr(calls[0].invars[0], "val", None)
    return None if value is None else _constant_order(np.asarray(value))


def called_name(eqn) -> str:
    """The called function's name (a custom_jvp's is in its jaxpr's debug info)."""
    if eqn.params.get("name"):
        return str(eqn.params["name"])
    inner = eqn.params.get("call_jaxpr")
    info = getattr(getattr(inner, "jaxpr", inner), "debug_info", None)
    source = str(getattr(info, "func_src_info", "") or "")
    return source.split(" ")[0]


def empty_values(eqn) -> list[np.ndarray] | None:
    """Zeros for an equation all of whose results have an empty axis (``x[:0]``): no
    entry to differentiate, so a constant (a graph has no vertex of size 0); else None."""
    avals = [v.aval for v in eqn.outvars]
    if not avals or any(math.prod(a.shape) for a in avals):
        return None
    try:
        return [np.zeros(a.shape, dtype=np.dtype(a.dtype)) for a in avals]
    except TypeError:  # a dtype NumPy has no name for (a PRNG key)
        return None


def _lu_permutation(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """The permutation of an n×n matrix's ``lu`` pivots (of size n): ``lu_permutation`` of
    the same matrix, JAX's third result of ``lu``; None for any other pivots."""
    pivots = ins[0]
    if not isinstance(pivots, ArrayOp) or pivots.primitive != "lu_pivots":
        return None
    n = int(eqn.params["permutation_size"])
    if pivots.shape != (n,):
        return None
    return [ArrayOp("lu_permutation", pivots.operands, (), (n,))]


def _round_away(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``lax.round`` of halves away from zero (``rounding_method`` 0, ``lax.round``'s
    default) as ``sign(x)·r``, ``r = floor(|x|)``, one more where ``|x| - r ≥ ½`` (each
    exact); None for halves to even (``jnp.round``), the arrays' ``round`` (NumPy's)."""
    if int(eqn.params.get("rounding_method", 0)) == 1:
        return None
    x, aval = ins[0], eqn.outvars[0].aval
    if isinstance(x, np.ndarray):
        return [lax_round(x, 0)]
    shape = tuple(aval.shape)
    x = reader.operand(x)
    size = ArrayOp("abs", (x,), (), shape)
    whole = ArrayOp("floor", (size,), (), shape)
    part = ArrayOp("sub", (size, whole), (), shape)
    up = ArrayOp("ge", (part, Const.of(np.asarray(0.5))), (), shape)
    more = ArrayOp("add", (whole, Const.of(np.asarray(1.0))), (), shape)
    rounded = ArrayOp("select_n", (up, whole, more), (), shape)
    return [
        reader.result(ArrayOp("mul", (ArrayOp("sign", (x,), (), shape), rounded), (), shape), aval)
    ]


REWRITTEN: dict[str, Callable[..., list[Any] | None]] = {
    "reshape": _reshape,
    "lu_pivots_to_permutation": _lu_permutation,
    "tile": _tile,
    "sort": _sort,
    "round": _round_away,
    **dict.fromkeys(_CONSTANT_FIRST, _constant_first),
    **TRACED,  # read as the JAX function JAX differentiates them by
    **COMPAT,  # newer JAX's primitives, read as the older ones
    **BITWISE,  # shifts and bit masks of signed integers: integer arithmetic
}
