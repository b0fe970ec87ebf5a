"""Array operations of tensor vertices: what a vertex computes, and each operand's block.

A tensor vertex computes one array operation (:class:`ArrayOp`) of jax.lax's vocabulary —
elementwise functions, ``dot_general``, reductions, and the moves (broadcast, reshape,
transpose, slice, pad, concatenate) — over its predecessors' values and constants. From
the operation alone, :func:`operand_block` gives the structure of ∂v/∂operand
(:mod:`dgraph.blocks`) and :func:`block_value` its values at a point, in C order
over the block's value labels. One table serves every builder (the jaxpr reader, the
NumPy-style tracer, dgraph/1 files) and every consumer (evaluation, verification, code).

Elementwise derivatives are sympy expressions in the operands ``a``, ``b`` and ``c``
(:data:`OPERANDS`; ``c`` only for the three-operand ``betainc``), so that the same formula
is evaluated here (NumPy, through ``lambdify``) and printed by codegen.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import sympy

from ..errors import InputError
from . import CONSTANT, GENERAL, ONES, Block, Labelled, Sparse, convolution, dense, sparse
from . import array_extra as extra
from . import linalg as _linalg
from . import scatter as _scatter
from .cumulative import CUMULATIVE, SumValues, cumsum_pattern, triangle
from .rounding import absolute_terms, sums_terms

__all__ = [
    "ELEMENTWISE",
    "KNOWN",
    "MOVES",
    "OPERANDS",
    "PRIMITIVES",
    "REGIONS",
    "RUN_TIME",
    "ArrayOp",
    "Const",
    "Narrowed",
    "block_magnitude",
    "block_size",
    "block_value",
    "dot_general",
    "elementwise_forward",
    "evaluate",
    "exact_power",
    "finished",
    "folded",
    "integer_power",
    "known_operand",
    "labelled_block",
    "move",
    "names_read",
    "narrowed",
    "operand_block",
    "operand_value",
    "operand_values",
    "reshape_axes",
    "rule_parts",
    "with_leaves",
]

A, B, C = sympy.symbols("a b c", real=True)
OPERANDS = (A, B, C)
"""The symbols of an elementwise operation's operands in its derivatives, in order."""
_sigma = 1 / (1 + sympy.exp(-A))

# name: (NumPy function, derivative with respect to each operand, in a and b)
ELEMENTWISE: dict[str, tuple[Callable[..., np.ndarray], tuple[sympy.Expr, ...]]] = {
    "neg": (np.negative, (sympy.Integer(-1),)),
    "exp": (np.exp, (sympy.exp(A),)),
    "exp2": (np.exp2, (sympy.log(2) * 2**A,)),
    "log": (np.log, (1 / A,)),
    "log1p": (np.log1p, (1 / (1 + A),)),
    "expm1": (np.expm1, (sympy.exp(A),)),
    "sin": (np.sin, (sympy.cos(A),)),
    "cos": (np.cos, (-sympy.sin(A),)),
    "tan": (np.tan, (1 + sympy.tan(A) ** 2,)),
    "asin": (np.arcsin, (1 / sympy.sqrt(1 - A**2),)),
    "acos": (np.arccos, (-1 / sympy.sqrt(1 - A**2),)),
    "atan": (np.arctan, (1 / (1 + A**2),)),
    "sinh": (np.sinh, (sympy.cosh(A),)),
    "cosh": (np.cosh, (sympy.sinh(A),)),
    "tanh": (np.tanh, (1 - sympy.tanh(A) ** 2,)),
    "asinh": (np.arcsinh, (1 / sympy.sqrt(A**2 + 1),)),
    "acosh": (np.arccosh, (1 / sympy.sqrt(A**2 - 1),)),
    "atanh": (np.arctanh, (1 / (1 - A**2),)),
    "logistic": (lambda a: 1 / (1 + np.exp(-a)), (_sigma * (1 - _sigma),)),
    "sqrt": (np.sqrt, (1 / (2 * sympy.sqrt(A)),)),
    "rsqrt": (lambda a: 1 / np.sqrt(a), (-1 / (2 * A * sympy.sqrt(A)),)),
    "cbrt": (np.cbrt, (1 / (3 * sympy.Abs(A) ** sympy.Rational(2, 3)),)),  # real for a < 0
    "abs": (np.abs, (sympy.sign(A),)),
    "square": (np.square, (2 * A,)),
    "erf": (None, (2 / sympy.sqrt(sympy.pi) * sympy.exp(-(A**2)),)),  # type: ignore[dict-item]
    "erfc": (None, (-2 / sympy.sqrt(sympy.pi) * sympy.exp(-(A**2)),)),  # type: ignore[dict-item]
    "erf_inv": (None, (sympy.sqrt(sympy.pi) / 2 * sympy.exp(sympy.erfinv(A) ** 2),)),  # type: ignore[dict-item]
    "add": (np.add, (sympy.Integer(1), sympy.Integer(1))),
    "sub": (np.subtract, (sympy.Integer(1), sympy.Integer(-1))),
    "mul": (np.multiply, (B, A)),
    "div": (np.divide, (1 / B, -A / B**2)),
    # JAX's rule in the exponent: log(x) read as log(1) = 0 where x = 0 (0**y is 0 for
    # every y > 0: Tweedie's y**(2 - p) at a zero claim)
    "pow": (
        np.power,
        (B * A ** (B - 1), A**B * sympy.log(A + sympy.Piecewise((1, sympy.Eq(A, 0)), (0, True)))),
    ),
    "atan2": (np.arctan2, (B / (A**2 + B**2), -A / (A**2 + B**2))),
    # JAX's convention at ties: each side gets half
    "max": (
        np.maximum,
        (sympy.Heaviside(A - B, sympy.S.Half), sympy.Heaviside(B - A, sympy.S.Half)),
    ),
    "min": (
        np.minimum,
        (sympy.Heaviside(B - A, sympy.S.Half), sympy.Heaviside(A - B, sympy.S.Half)),
    ),
    "copy": (np.array, (sympy.Integer(1),)),
    "convert_element_type": (lambda a: np.asarray(a, dtype=float), (sympy.Integer(1),)),
    **extra.EXTRA_ELEMENTWISE,  # special functions, rem
}

# functions of the operands' values that no derivative flows through
NONDIFFERENTIABLE = {
    "stop_gradient": lambda a: a,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
    "sign": np.sign,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "and": np.logical_and,
    "or": np.logical_or,
    "not": np.logical_not,
    "is_finite": np.isfinite,
    **dict.fromkeys(extra.EXTRA_NONDIFFERENTIABLE),  # argmax, argmin, argsort
    **{name: functools.partial(_linalg.lu_data, name) for name in _linalg.LU_DATA},
}

MOVES = (
    "broadcast_in_dim",
    "reshape",
    "squeeze",
    "expand_dims",
    "transpose",
    "slice",
    "pad",
    "concatenate",
    "rev",
    "stack",
    "take",
)

PRIMITIVES = frozenset(
    {
        *ELEMENTWISE,
        *NONDIFFERENTIABLE,
        *MOVES,
        "integer_pow",
        "select_n",
        "dot_general",
        "reduce_sum",
        "reduce_max",
        "reduce_min",
        "cumsum",
        convolution.CONV,
        *_scatter.SCATTERS,
        *_linalg.LINALG,
        *extra.EXTRA_OPERATIONS,  # reduce_prod, sort
    }
)


# a loop held as a region (dgraph.core.regions): params ("region", R), ("output", j); R
# gives the values (R.forward), the structure (R.depends, R.block) and the block values
REGIONS = frozenset({"loop", "cond"})  # "cond": dgraph.core.branches

KNOWN = "known"
"""The parameter that records, per operand, a vertex's entries known whatever the inputs
(:func:`known_operand`; set by :mod:`dgraph.core.constant_entries`): a constant mask's
``-inf`` scores, the zeros ``exp`` makes of them."""


@dataclass(frozen=True)
class Const:
    """A constant array operand (its bytes make it comparable and hashable)."""

    value: np.ndarray = field(compare=False)
    key: bytes = b""

    @staticmethod
    def of(value: Any) -> Const:
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise InputError(f"a constant of dtype {array.dtype} is not a real array")
        array = array.astype(float) if array.dtype.kind == "f" else array
        array.setflags(write=False)
        return Const(array, repr(array.shape).encode() + array.tobytes())

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)


Operand = "str | Const | ArrayOp"


@dataclass(frozen=True)
class ArrayOp:
    """``primitive(*operands, **params)`` of result ``shape``: an operand is a vertex's
    name, a :class:`Const`, or a nested operation no derivative flows through (a
    comparison feeding ``select_n``)."""

    primitive: str
    operands: tuple[Any, ...]
    params: tuple[tuple[str, Any], ...] = ()
    shape: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.primitive not in PRIMITIVES and self.primitive not in REGIONS:
            raise InputError(f"the array operation {self.primitive!r} is not supported")
        operands = tuple(
            x if isinstance(x, (str, Const, ArrayOp)) else Const.of(x) for x in self.operands
        )
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "shape", tuple(int(n) for n in self.shape))

    @property
    def param(self) -> Mapping[str, Any]:
        return dict(self.params)

    def vertices(self) -> list[str]:
        """The vertices read, nested operations included, each once (in the order met
        depth first; a nested operation read twice is walked once: nested integer
        operations share their parts, a binary search's steps each read the last twice)."""
        seen: dict[str, None] = {}
        walked: set[int] = set()
        pending = [iter(self.operands)]
        while pending:
            x = next(pending[-1], None)
            if x is None:
                pending.pop()
            elif isinstance(x, str):
                seen[x] = None
            elif isinstance(x, ArrayOp) and id(x) not in walked:
                walked.add(id(x))
                pending.append(iter(x.operands))
        return list(seen)

    def differentiable(self) -> list[int]:
        """The operand positions a derivative flows through."""
        if self.primitive in NONDIFFERENTIABLE:
            return []
        if self.primitive in REGIONS:
            region, j = self.param["region"], self.param["output"]
            reads = enumerate(self.operands)
            return [k for k, x in reads if isinstance(x, str) and region.depends(j, k)]
        if self.primitive == "select_n":
            found = [k for k in range(1, len(self.operands)) if isinstance(self.operands[k], str)]
        elif self.primitive == "pad":
            found = [0] if isinstance(self.operands[0], str) else []
        elif self.primitive == "sort":  # keys beside the sorted operand only choose
            found = [len(self.operands) - 1] if isinstance(self.operands[-1], str) else []
        elif self.primitive == extra.DYNAMIC_TAKE:  # its positions only choose
            found = [0] if isinstance(self.operands[0], str) else []
        elif self.primitive == extra.DYNAMIC_ADD:  # the base and the updates
            found = [k for k in (0, 2) if isinstance(self.operands[k], str)]
        else:
            found = [k for k, x in enumerate(self.operands) if isinstance(x, str)]
        return [k for k in found if not _zero_by_constants(self, k)]


EXACT_POWER = 2**53  # the largest whole exponent a double holds with its parity


def exact_power(y: int) -> tuple[int, bool]:
    """``x**y`` as ``x·x**e`` (True) or ``x**e`` (False) with ``e`` a double's exponent of
    the same parity as ``y``: past 2⁵³ a double's whole numbers are all even, so
    ``x**float(y)`` for an odd ``y`` there (NumPy's and C's ``pow``) loses the sign of a
    negative ``x``: ``(-1)**(2**53 + 1)`` is -1, not 1."""
    y = int(y)
    if abs(y) > EXACT_POWER and y % 2:
        return y - 1, True
    return y, False


def integer_power(x: Any, y: int) -> Any:
    """``x**y`` for a whole ``y`` of any size, its sign kept (:func:`exact_power`)."""
    e, times = exact_power(y)
    return x * x**e if times else x**e


def _zero_by_constants(op: ArrayOp, k: int) -> bool:
    """Whether ∂op/∂(operand k) is zero whatever the variables, by a constant: ``x**0``,
    ``0*x``, ``W@x`` with ``W`` all zero, ``0/x``, ``select_n`` with a constant predicate
    that never picks operand k (no edge then, as asdex has no dependency)."""
    name, operands = op.primitive, op.operands
    if name in _scatter.SCATTERS:
        return _scatter.zero_block(op, k)
    if name == "integer_pow":
        return op.param["y"] == 0
    if name == "select_n":
        p = operands[0]
        return isinstance(p, Const) and not (np.asarray(p.value).astype(int) == k - 1).any()
    if name in ("mul", "dot_general", convolution.CONV) or (name == "div" and k == 1):
        other = operands[1 - k]
        return isinstance(other, Const) and not np.asarray(other.value).any()
    return False


# -- evaluation ----------------------------------------------------------------------------


def evaluate(
    op: ArrayOp, values: Mapping[str, np.ndarray], frozen: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    """The operation's result, its vertex operands read from ``values``. ``frozen``
    holds the value of every ``stop_gradient`` met (by the nested operation's identity):
    the first evaluation fills it, later ones read it, so that a perturbed evaluation
    keeps them as the derivative does (central differences of the program). A custom
    rule's output (:func:`rule_parts`) is the primal's value where the sum is not
    finite: the rule's tangent map may be where the function is (``xlogy(x, x)`` at 0)."""
    return finished(op, _forward(op, operand_values(op, values, frozen)), values)


def operand_values(
    op: ArrayOp, values: Mapping[str, np.ndarray], frozen: dict[int, np.ndarray] | None = None
) -> list[np.ndarray]:
    """The values of ``op``'s operands, as :func:`evaluate` reads them."""
    return [values[x] if isinstance(x, str) else _read(x, values, frozen) for x in op.operands]


def finished(op: ArrayOp, out: Any, values: Mapping[str, np.ndarray]) -> np.ndarray:
    """:func:`evaluate`'s result from the operation's raw one ``out`` (a loop's output
    from a run of several operand sets at once:
    :meth:`~dgraph.core.regions.Region.forward_rows`): in floats, in its shape, a custom
    rule's non-finite entries the primal's."""
    out = np.asarray(out, dtype=float).reshape(op.shape)
    rule = rule_parts(op)
    if rule is not None and not np.isfinite(out).all():
        primal = np.broadcast_to(np.asarray(_read(rule[0], values), dtype=float), op.shape)
        out = np.where(np.isfinite(out), out, primal)
    return out


def rule_parts(op: ArrayOp) -> tuple[Any, Any] | None:
    """``(f, t)`` where ``op`` is ``t + stop_gradient(f - t)``, a custom derivative rule's
    output as the JAX reader writes it (``f`` the primal's value, ``t`` the rule's
    tangent map: the value of ``f``, the derivative of ``t``), else None."""
    if op.primitive != "add" or len(op.operands) != 2:
        return None
    tangent, frozen = op.operands
    if not (isinstance(frozen, ArrayOp) and frozen.primitive == "stop_gradient"):
        return None
    rest = frozen.operands[0]
    if not (isinstance(rest, ArrayOp) and rest.primitive == "sub" and rest.shape == op.shape):
        return None
    other = rest.operands[1]  # the same vertex, or the same nested operation (a rule
    if not (other is tangent or (isinstance(tangent, str) and other == tangent)):
        return None  # inside another's primal)
    return rest.operands[0], tangent


def names_read(values: Iterable[Any]) -> set[str]:
    """The vertex names the operands ``values`` read: names, and those the nested
    operations among them read (constants read none)."""
    out, stack = set(), list(values)
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, ArrayOp):
            stack.extend(x.operands)
    return out


def folded(op: ArrayOp, combine: Callable[[ArrayOp, tuple[Any, ...]], Any]) -> Any:
    """``combine(x, operands)`` of each nested operation ``x`` of ``op`` bottom-up, its
    nested operations among ``operands`` replaced by what ``combine`` gave them: without
    recursion, a part that operations share combined once (a dataclass's own hash or
    equality walks it path by path)."""
    done: dict[int, Any] = {}
    stack = [op]
    while stack:
        top = stack[-1]
        if id(top) in done:
            stack.pop()
            continue
        pending = [x for x in top.operands if isinstance(x, ArrayOp) and id(x) not in done]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        operands = tuple(done[id(x)] if isinstance(x, ArrayOp) else x for x in top.operands)
        done[id(top)] = combine(top, operands)
    return done[id(op)]


def with_leaves(op: ArrayOp, leaf: Callable[[Any], Any]) -> ArrayOp:
    """``op`` with every operand that is not an operation, at any depth, replaced by
    ``leaf(operand)``: nested operations rebuilt bottom-up (:func:`folded`), each once."""

    def rebuilt(top: ArrayOp, operands: tuple[Any, ...]) -> ArrayOp:
        operands = tuple(
            y if isinstance(x, ArrayOp) else leaf(x)
            for x, y in zip(top.operands, operands, strict=True)
        )
        return ArrayOp(top.primitive, operands, top.params, top.shape)

    return folded(op, rebuilt)


def operand_value(x: Any, values: Mapping[str, np.ndarray]) -> np.ndarray:
    """An operand's value: a vertex's from ``values``, a constant's, a nested
    operation's (in its own dtype: an integer counter stays one)."""
    return _read(x, values)


def _read(
    x: Any, values: Mapping[str, np.ndarray], frozen: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    if isinstance(x, str):
        return values[x]
    if isinstance(x, Const):
        return x.value
    done: dict[int, np.ndarray] = {}  # each nested operation once: they share their parts
    pending = [(x, False)]
    while pending:  # innermost first, without recursion
        op, ready = pending.pop()
        if id(op) in done:
            continue
        if frozen is not None and op.primitive == "stop_gradient" and id(op) in frozen:
            done[id(op)] = frozen[id(op)]
            continue
        inner = [y for y in op.operands if isinstance(y, ArrayOp) and id(y) not in done]
        if inner and not ready:
            pending += [(op, True), *((y, False) for y in inner)]
            continue
        args = [
            values[y] if isinstance(y, str) else y.value if isinstance(y, Const) else done[id(y)]
            for y in op.operands
        ]
        done[id(op)] = np.asarray(_forward(op, args)).reshape(op.shape)
        rule = rule_parts(op)
        if rule is not None and not np.isfinite(done[id(op)]).all():  # as :func:`evaluate`
            primal = np.broadcast_to(_read(rule[0], values), op.shape)
            done[id(op)] = np.where(np.isfinite(done[id(op)]), done[id(op)], primal)
        if frozen is not None and op.primitive == "stop_gradient":
            frozen[id(op)] = done[id(op)]
    return done[id(x)]


def elementwise_forward(op: ArrayOp, args: list[np.ndarray]) -> np.ndarray:
    """An elementwise operation's result (NumPy's function, as :func:`evaluate`) on its
    operands' values at some of its entries, one array each (a loop step's written
    entries: :mod:`dgraph.core.step_values`)."""
    return _forward(op, args)


_PLAIN = frozenset(ELEMENTWISE) - REGIONS - {"erf", "erfc", "erf_inv"}
_PLAIN -= extra.EXTRA_NONDIFFERENTIABLE | extra.EXTRA_OPERATIONS
"""The elementwise operations :func:`_forward` finds in :data:`ELEMENTWISE` before any
other table: NumPy's function at once, their parameters not read (a loop runs its body's
operations 10⁴ times where a fixed point does not stop at a random point)."""


def _forward(op: ArrayOp, args: list[np.ndarray]) -> np.ndarray:
    name = op.primitive
    if name in _PLAIN:
        return ELEMENTWISE[name][0](*args)
    p = op.param
    if name in REGIONS:
        return p["region"].forward(args)[p["output"]]
    if name in ("erf", "erfc", "erf_inv"):  # scipy's, NumPy has none
        import scipy.special

        return getattr(scipy.special, name.replace("_", ""))(args[0])
    found = extra.extra_forward(op, args)
    if found is not None:
        return found
    if name in ELEMENTWISE:
        return ELEMENTWISE[name][0](*args)
    if name in NONDIFFERENTIABLE:
        return NONDIFFERENTIABLE[name](*args)
    if name in _scatter.SCATTERS:
        return _scatter.forward(op, args)
    if name in _linalg.LINALG:  # shapes first: a stack's mismatch named in one line
        _linalg.check(op, [np.shape(a) for a in args])
        return _linalg.forward(op, args)
    if name == "integer_pow":
        return integer_power(args[0], p["y"])
    if name == "select_n":
        which = np.asarray(args[0]).astype(int)
        return np.choose(which, np.broadcast_arrays(*args[1:]))
    if name == "dot_general":
        return dot_general(args[0], args[1], p["dimension_numbers"])
    if name == convolution.CONV:
        return convolution.forward(p, args[0], args[1])
    if name == "reduce_sum":
        return np.sum(args[0], axis=tuple(p["axes"]))
    if name == "reduce_max":
        return np.max(args[0], axis=tuple(p["axes"]))
    if name == "reduce_min":
        return np.min(args[0], axis=tuple(p["axes"]))
    if name == "cumsum":
        x = np.flip(args[0], p["axis"]) if p.get("reverse") else args[0]
        out = np.cumsum(x, axis=p["axis"])
        return np.flip(out, p["axis"]) if p.get("reverse") else out
    return move(name, p, args, op.shape)


def move(name: str, p: Mapping[str, Any], args: list[np.ndarray], shape) -> np.ndarray:
    """A move's result (:data:`MOVES`) from its operands' arrays; object arrays too (the
    element-level expansion moves sympy elements with it)."""
    x = np.asarray(args[0])
    if name == "broadcast_in_dim":
        dims = p["broadcast_dimensions"]
        expanded = x.reshape(
            [x.shape[dims.index(k)] if k in dims else 1 for k in range(len(shape))]
        )
        return np.broadcast_to(expanded, shape)
    if name in ("reshape", "squeeze", "expand_dims"):
        return x.reshape(shape)
    if name == "transpose":
        return np.transpose(x, p["permutation"])
    if name == "rev":
        return np.flip(x, tuple(p["dimensions"]))
    if name == "slice":
        strides = p.get("strides") or (1,) * x.ndim
        index = tuple(
            slice(s, e, k)
            for s, e, k in zip(p["start_indices"], p["limit_indices"], strides, strict=True)
        )
        return x[index]
    if name == "pad":
        return _pad(x, args[1], p["padding_config"], shape)
    if name == "concatenate":
        return np.concatenate([np.asarray(a) for a in args], axis=p["dimension"])
    if name == "stack":
        return np.stack([np.asarray(a) for a in args], axis=p["axis"])
    if name == "take":  # constant integer indices along one axis (NumPy's fancy indexing)
        return np.take(x, np.asarray(p["indices"], dtype=np.int64), axis=p["axis"])
    raise InputError(f"the array operation {name!r} is not supported")


def _pad(x: np.ndarray, value: Any, config, shape) -> np.ndarray:
    """``lax.pad``: ``interior`` copies of the value between neighbours, ``lo``/``hi`` at
    the ends (negative: entries cut off)."""
    value = np.asarray(value)
    out = np.full(shape, value.item() if value.dtype == object else float(value), dtype=x.dtype)
    if x.dtype != object:
        out = out.astype(float, copy=False)  # a float operand: no copy
    src, dst = [], []  # along each axis the kept entries are a run: slices, no gather
    for (lo, _hi, interior), n, m in zip(config, x.shape, shape, strict=True):
        at = lo + np.arange(n) * (interior + 1)
        kept = np.flatnonzero((at >= 0) & (at < m))
        if kept.size == 0:
            return out
        first, last = int(kept[0]), int(kept[-1])
        src.append(slice(first, last + 1))
        dst.append(slice(int(at[first]), int(at[last]) + 1, interior + 1))
    out[tuple(dst)] = x[tuple(src)]
    return out


def dot_general(lhs: np.ndarray, rhs: np.ndarray, numbers: Any) -> np.ndarray:
    """``lax.dot_general`` (the batch axes, then ``lhs``'s free axes, then ``rhs``'s) by
    ``numpy.einsum``, or ``numpy.matmul`` where it is a product of vectors and matrices
    (:func:`is_matmul`): the graph's values and JAX's ``jvp`` run by NumPy
    (:mod:`dgraph.frontends.jaxpr_numpy`) round a product as the user's ``X @ b`` does."""
    (lc, rc), (lb, rb) = numbers
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    left = [next(letters) for _ in range(lhs.ndim)]
    right = [next(letters) for _ in range(rhs.ndim)]
    for i, j in zip(lc, rc, strict=True):
        right[j] = left[i]
    for i, j in zip(lb, rb, strict=True):
        right[j] = left[i]
    batch = [left[i] for i in lb]
    free_l = [left[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
    free_r = [right[j] for j in range(rhs.ndim) if j not in rc and j not in rb]
    spec = f"{''.join(left)},{''.join(right)}->{''.join(batch + free_l + free_r)}"
    return np.matmul(lhs, rhs) if is_matmul(spec) else np.einsum(spec, lhs, rhs)


def is_matmul(spec: str) -> bool:
    """Whether the two-operand ``einsum`` subscripts ``spec`` are ``numpy.matmul`` of
    vectors and matrices (``ab,bc->ac``, ``ab,b->a``, ``a,ab->b``, ``a,a->``): computed
    so, a product rounds as the user's ``X @ b`` does (BLAS's sums, not einsum's), and a
    residual ``y - X @ b`` that is exactly 0 in the user's function is 0 in the graph's
    values and the generated NumPy too (at a kink, ``maximum(τr, (τ-1)r)``, the side
    taken depends on it)."""
    ins, _, out = spec.partition("->")
    parts = ins.split(",")
    if len(parts) != 2 or not all(1 <= len(p) <= 2 for p in parts):
        return False
    left, right = parts
    if len(set(left + right)) != len(left) + len(right) - 1 or left[-1] != right[0]:
        return False
    return out == left[:-1] + right[1:]


# -- blocks --------------------------------------------------------------------------------


def operand_block(op: ArrayOp, k: int, shapes: Sequence[tuple[int, ...]]) -> Block:
    """The structure of ∂op/∂(operand k); ``shapes``: every operand's shape. Where a
    constant operand makes some of its entries zero whatever the variables (``narrowed``),
    a sparse block of the others: the pattern asdex detects."""
    if op.primitive in REGIONS:
        return op.param["region"].block(op.param["output"], k)
    block = labelled_block(op, k, shapes)
    found = narrowed(op, k, shapes, block)
    return block if found is None else found.block


class Narrowed(NamedTuple):
    """A block narrowed by a constant operand (:func:`narrowed`)."""

    block: Sparse  # the entries no constant makes zero
    at: np.ndarray  # per entry, in row order: its flat index into the labelled values


def narrowed(
    op: ArrayOp, k: int, shapes: Sequence[tuple[int, ...]], block: Block
) -> Narrowed | None:
    """The labelled ``block`` of ∂op/∂(operand k) without the entries a constant operand
    makes zero whatever the variables — ``x * c``, ``c @ x`` (a zero of ``c``), ``c / x``
    (a zero numerator), ``select_n`` with a constant predicate (the entries it does not
    pick) — as a sparse block, and for each of its entries (in its row order) the flat
    index into the labelled block's values (C order); None where none is zero."""
    if op.primitive in CUMULATIVE and isinstance(block, Labelled):  # off the triangle
        if op.shape[op.param["axis"]] == 1:
            return None
        rows, cols, at = triangle(tuple(op.shape), op.param["axis"], bool(op.param.get("reverse")))
        return Narrowed(sparse(block.out_shape, block.in_shape, rows, cols, block.kind), at)
    operands = op.operands
    factor = _narrowing_factor(op, k)
    if factor is not None and np.asarray(factor).all():
        factor = None
    if (
        not isinstance(block, Labelled)
        or not block.value
        or (factor is None and KNOWN not in op.param)
    ):
        return None  # no zero to leave out (the usual case, decided without the pattern)
    ones = {x: np.ones(s) for x, s in zip(operands, shapes, strict=True) if isinstance(x, str)}
    keep = np.ones(math.prod(block.sizes[j] for j in block.value), dtype=bool)
    if factor is not None:  # the variables set to 1: each derivative is its constant factor
        keep &= np.asarray(block_value(op, k, ones, block), dtype=float).reshape(-1) != 0
    zeros = _known_zeros(op, k, shapes, block, ones)
    if zeros is not None:
        keep &= ~zeros
    if keep.all():
        return None
    rows, cols, at = _pattern_where(block, np.flatnonzero(keep))
    return _kept(block, rows, cols, at, np.ones(at.size, dtype=bool), True)


def known_operand(op: ArrayOp, j: int) -> np.ndarray | None:
    """Operand ``j``'s entries that are one number whatever the inputs, NaN where not
    known: a constant's values, or those the ``known`` parameter records for a vertex
    (:mod:`dgraph.core.constant_entries`); None where none is known."""
    x = op.operands[j]
    if isinstance(x, Const):
        return np.asarray(x.value, dtype=float)
    found = op.param.get(KNOWN)
    return None if found is None or found[j] is None else found[j].value


def _known_zeros(
    op: ArrayOp, k: int, shapes: Sequence[tuple[int, ...]], block: Labelled, ones: dict
) -> np.ndarray | None:
    """Where the ``known`` entries of the operands (:func:`known_operand`) make
    ∂op/∂(operand k) zero, flat over the labelled block's values; None where they make
    none. Two ways, each exact for every input at which the others are finite: a factor
    that is a known zero (``a·b``, ``a @ b``: the other operand; ``a / b`` by ``b``: the
    numerator); an elementwise rule whose operands at an entry are all known, each 0 or
    ±∞, and whose value there is 0 (``exp``'s at −∞: a masked score); and a max's
    (min's) one-hot never at a known ``-inf`` (``+inf``) beside an entry that is not."""
    if KNOWN not in op.param:
        return None
    name = op.primitive
    other = {"mul": 1 - k, "dot_general": 1 - k, "div": 0 if k == 1 else None}.get(name)
    found = None if other is None else known_operand(op, other)
    zeros = None
    if found is not None and isinstance(op.operands[other], str):
        values = {**ones, op.operands[other]: np.where(found == 0, 0.0, 1.0)}
        zeros = np.asarray(block_value(op, k, values, block), dtype=float).reshape(-1) == 0
    if name in ("reduce_max", "reduce_min"):
        return _never_extreme(op, known_operand(op, 0))
    if name in ELEMENTWISE or name == "integer_pow":
        exact = _exact_rule_zeros(op, k, shapes)
        if exact is not None and exact.size == math.prod(block.sizes[j] for j in block.value):
            zeros = exact if zeros is None else zeros | exact
    return zeros if zeros is not None and zeros.any() else None


def _never_extreme(op: ArrayOp, known: np.ndarray | None) -> np.ndarray | None:
    """The entries a max (min) never takes, flat over its operand: a known ``-inf``
    (``+inf``) beside an entry that is not, an additive mask's masked scores."""
    if known is None:
        return None
    low = known == (-np.inf if op.primitive == "reduce_max" else np.inf)
    others = np.logical_not(low).any(axis=tuple(op.param["axes"]), keepdims=True)
    never = (low & others).reshape(-1)
    return never if never.any() else None


def _exact_rule_zeros(op: ArrayOp, k: int, shapes: Sequence[tuple[int, ...]]) -> np.ndarray | None:
    """The entries (flat over ``op.shape``) where an elementwise rule reads only known
    operands, each 0 or ±∞, and is 0 there; None where there are none."""
    name = op.primitive
    if name == "integer_pow":
        reads = [0] if op.param["y"] not in (0, 1) else []
    else:
        symbols = ELEMENTWISE[name][1][k].free_symbols
        reads = [j for j, s in enumerate(OPERANDS[: len(op.operands)]) if s in symbols]
    if not reads:
        return None
    exact = np.ones(op.shape, dtype=bool)
    args = []
    for j, shape in enumerate(shapes):
        known = known_operand(op, j)
        if known is None:
            known = np.full(shape, np.nan)
        if j in reads:
            exact &= np.broadcast_to((known == 0) | np.isinf(known), op.shape)
        args.append(np.where(np.isnan(known), 1.0, known))
    if not exact.any():
        return None
    with np.errstate(all="ignore"):
        d = _elementwise_derivative(op, k, args, False)
    return (exact & (np.broadcast_to(d, op.shape) == 0)).reshape(-1)


def _pattern_where(block: Labelled, places: np.ndarray) -> tuple[np.ndarray, ...]:
    """:func:`~dgraph.blocks.pattern`'s rows, columns and value places of the entries
    whose value place is among ``places`` (flat, C order over ``value``'s labels): the
    value labels read off ``places``, the others every value; no pattern of every entry
    (``c @ x`` for a diagonal c: n² entries kept of n³)."""
    sizes, value = block.sizes, block.value
    others = [j for j in range(len(sizes)) if j not in value]
    shape = (places.size, *(sizes[j] for j in others))
    coords = np.unravel_index(places, tuple(sizes[j] for j in value)) if value else ()
    label: dict[int, np.ndarray] = {}
    for j, c in zip(value, coords, strict=True):
        label[j] = c.astype(np.int64).reshape(-1, *([1] * len(others)))
    for i, j in enumerate(others):
        step = [1] * len(shape)
        step[i + 1] = -1
        label[j] = np.arange(sizes[j], dtype=np.int64).reshape(step)

    def flat(axes: tuple, lengths: tuple[int, ...]) -> np.ndarray:
        total: Any = np.zeros((1,) * len(shape), dtype=np.int64)
        stride = 1
        for (labels, off), length in reversed(list(zip(axes, lengths, strict=True))):
            total = total + off * stride
            inner = stride
            for j in reversed(labels):
                total = total + label[j] * inner
                inner *= sizes[j]
            stride *= length
        return np.broadcast_to(total, shape).reshape(-1)

    at = np.broadcast_to(places.astype(np.int64).reshape(-1, *([1] * len(others))), shape)
    return (
        flat(block.out_axes, block.out_shape),
        flat(block.in_axes, block.in_shape),
        at.reshape(-1),
    )


def _kept(block: Labelled, rows, cols, at, keep: np.ndarray, some: bool = False) -> Narrowed | None:
    """The entries ``keep`` marks of the labelled ``block``'s pattern, as a sparse block
    in row order, and each one's flat index into the labelled values; None for all
    (``some``: the entries given are some of the block's already)."""
    if keep.all() and not some:
        return None
    rows, cols, at = rows[keep], cols[keep], at[keep]
    order = np.argsort(rows * max(1, math.prod(block.in_shape)) + cols, kind="stable")
    found = sparse(block.out_shape, block.in_shape, rows[order], cols[order], block.kind)
    return Narrowed(found, at[order])


def _narrowing_factor(op: ArrayOp, k: int) -> Any:
    """The constant operand whose zeros :func:`narrowed` leaves out of ∂op/∂(operand k)
    (for ``select_n``: where it picks operand k); None where no constant can."""
    name, operands = op.primitive, op.operands
    if name in ("mul", "dot_general") and isinstance(operands[1 - k], Const):
        return operands[1 - k].value
    if name == "div" and k == 1 and isinstance(operands[0], Const):
        return operands[0].value
    if name == "select_n" and isinstance(operands[0], Const):
        return np.asarray(operands[0].value).astype(int) == k - 1
    return None


def _narrows(op: ArrayOp, k: int) -> bool:
    """Whether :func:`narrowed` may leave entries of ∂op/∂(operand k) out."""
    return _narrowing_factor(op, k) is not None or KNOWN in op.param


def labelled_block(op: ArrayOp, k: int, shapes: Sequence[tuple[int, ...]]) -> Block:
    """The labelled structure of ∂op/∂(operand k) (of a move: maybe a sparse one)."""
    name, p, out = op.primitive, op.param, op.shape
    mine = tuple(shapes[k])
    if name in ELEMENTWISE or name == "integer_pow" or name == "select_n":
        kind = _elementwise_kind(op, k)
        if mine == out:
            axes = tuple(((j,), 0) for j in range(len(out)))
            value = tuple(range(len(out))) if kind == GENERAL else ()
            return Labelled(out, out, axes, axes, out, value, kind)
        if mine == ():  # a scalar operand broadcast against the others
            return dense(out, (), kind)
        return _broadcast_elementwise(name, mine, out, kind)
    if name == "dot_general":
        return _dot_block(op, k, shapes)
    if name == "reduce_sum":
        axes = tuple(p["axes"])
        ins = tuple(((j,), 0) for j in range(len(mine)))
        outs = tuple(((j,), 0) for j in range(len(mine)) if j not in axes)
        return Labelled(out, mine, outs, ins, mine, (), ONES)
    if name in ("reduce_max", "reduce_min"):  # one-hot along the reduced axes
        axes = tuple(p["axes"])
        ins = tuple(((j,), 0) for j in range(len(mine)))
        outs = tuple(((j,), 0) for j in range(len(mine)) if j not in axes)
        return Labelled(out, mine, outs, ins, mine, tuple(range(len(mine))), GENERAL)
    if name in MOVES:
        return _move_block(name, p, out, op, k, shapes)
    if name == "cumsum":
        return _cumsum_pattern(op, mine)
    if name == convolution.CONV:
        return convolution.conv_of(op, k, shapes)
    if name in _scatter.SCATTERS:
        return _scatter.operand_block(op, k, shapes)
    if name in _linalg.LINALG:
        return _linalg.operand_block(op, k, shapes)
    found = extra.extra_block(op, k, mine)
    if found is not None:
        return found
    raise InputError(f"{name}: no derivative")


def _broadcast_elementwise(name: str, mine: tuple, out: tuple, kind: int) -> Labelled:
    """An operand broadcast along its axes of length 1 (NumPy's rule, which jaxprs use
    for ``div g i`` with ``i`` of shape (3, 1)): a diagonal over the axes it keeps."""
    lead = len(out) - len(mine)
    if lead < 0 or any(m not in (1, n) for m, n in zip(mine, out[lead:], strict=True)):
        raise InputError(f"{name}: operand shapes {mine} and {out} do not match")
    sizes = list(out)  # label j reads output axis j
    in_axes = []
    for i, m in enumerate(mine):
        if m == out[lead + i]:
            in_axes.append(((lead + i,), 0))
        else:
            sizes.append(1)
            in_axes.append(((len(sizes) - 1,), 0))
    out_axes = tuple(((j,), 0) for j in range(len(out)))
    value = () if kind != GENERAL else tuple(range(len(out)))
    return Labelled(out, mine, out_axes, tuple(in_axes), tuple(sizes), value, kind)


def _elementwise_kind(op: ArrayOp, k: int) -> int:
    if op.primitive == "select_n":
        return GENERAL
    if op.primitive == "integer_pow":
        return CONSTANT if op.param["y"] in (0, 1) else GENERAL
    derivative = ELEMENTWISE[op.primitive][1][k]
    if derivative.is_Number:
        return ONES if abs(derivative) == 1 else CONSTANT
    if not (derivative.free_symbols & set(OPERANDS)) - _constant_operands(op):
        return CONSTANT
    return GENERAL


def _constant_operands(op: ArrayOp) -> set[sympy.Symbol]:
    """The operands that are one constant number (a constant array's entries differ: a
    derivative that reads one varies along the block's labels)."""
    return {
        s
        for s, x in zip(OPERANDS, op.operands, strict=False)
        if isinstance(x, Const) and x.value.size == 1
    }


def _dot_block(op: ArrayOp, k: int, shapes) -> Labelled:
    """∂ dot_general / ∂ lhs (k = 0) or rhs: the batch axes and this operand's free axes
    are deltas, the other operand (over the contracted and its free axes) the value."""
    (lc, rc), (lb, rb) = op.param["dimension_numbers"]
    lhs, rhs = tuple(shapes[0]), tuple(shapes[1])
    mine, other = (lhs, rhs) if k == 0 else (rhs, lhs)
    mc, oc = (lc, rc) if k == 0 else (rc, lc)
    mb, ob = (lb, rb) if k == 0 else (rb, lb)
    sizes: list[int] = []

    def new(n: int) -> int:
        sizes.append(n)
        return len(sizes) - 1

    batch = [new(mine[i]) for i in mb]
    free_m = [new(mine[i]) for i in range(len(mine)) if i not in mc and i not in mb]
    contract = [new(mine[i]) for i in mc]
    free_o = [new(other[j]) for j in range(len(other)) if j not in oc and j not in ob]
    lhs_free, rhs_free = (free_m, free_o) if k == 0 else (free_o, free_m)
    out_axes = tuple(((x,), 0) for x in batch + lhs_free + rhs_free)
    in_label = {}
    for pos, i in enumerate(mb):
        in_label[i] = batch[pos]
    for pos, i in enumerate(mc):
        in_label[i] = contract[pos]
    rest = iter(free_m)
    for i in range(len(mine)):
        if i not in in_label:
            in_label[i] = next(rest)
    in_axes = tuple(((in_label[i],), 0) for i in range(len(mine)))
    value = tuple(sorted(other_labels(other, oc, ob, contract, batch, free_o)))
    kind = CONSTANT if isinstance(op.operands[1 - k], Const) else GENERAL
    return Labelled(op.shape, mine, out_axes, in_axes, tuple(sizes), value, kind)


def other_labels(other, oc, ob, contract, batch, free_o) -> list[int]:
    """The einsum labels of the other operand of a ``dot_general``, axis by axis: its
    contracting axes ``oc`` take ``contract``'s labels, its batch axes ``ob`` take
    ``batch``'s, and its free axes ``free_o``'s in order."""
    labels = []
    rest = iter(free_o)
    for j in range(len(other)):
        if j in oc:
            labels.append(contract[oc.index(j)])
        elif j in ob:
            labels.append(batch[ob.index(j)])
        else:
            labels.append(next(rest))
    return labels


def reshape_axes(
    shape_in: tuple[int, ...], shape_out: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...]] | None:
    """Labels for a reshape: each axis of both shapes a run of common factors (row-major),
    or None where the two shapes share no such split ((2, 3) against (3, 2)).

    >>> reshape_axes((6,), (2, 3))
    (((0, 1),), ((0,), (1,)), (2, 3))
    """
    a = [n for n in shape_in if n != 1]
    b = [n for n in shape_out if n != 1]
    sizes: list[int] = []
    ia, ib, ra, rb = 0, 0, 1, 1  # the rest of the current axis of each side to split
    runs_a: list[list[int]] = []
    runs_b: list[list[int]] = []
    while ia < len(a) or ib < len(b):
        if ra == 1:
            if ia == len(a):
                return None
            ra = a[ia]
            runs_a.append([])
            ia += 1
        if rb == 1:
            if ib == len(b):
                return None
            rb = b[ib]
            runs_b.append([])
            ib += 1
        step = math.gcd(ra, rb)
        if step != min(ra, rb):
            return None
        sizes.append(step)
        runs_a[-1].append(len(sizes) - 1)
        runs_b[-1].append(len(sizes) - 1)
        ra, rb = ra // step, rb // step

    def spread(shape: tuple[int, ...], runs: list[list[int]]) -> tuple[tuple[int, ...], ...]:
        it = iter(runs)
        return tuple(() if n == 1 else tuple(next(it)) for n in shape)

    return spread(shape_in, runs_a), spread(shape_out, runs_b), tuple(sizes)


def _axes_of(groups: tuple[tuple[int, ...], ...], sizes: list[int]) -> tuple:
    """Axes from label runs; an axis of length 1 gets a label of size 1 of its own."""
    out = []
    for labels in groups:
        if not labels:
            sizes.append(1)
            labels = (len(sizes) - 1,)
        out.append((labels, 0))
    return tuple(out)


def _move_block(name: str, p: Mapping[str, Any], out, op: ArrayOp, k: int, shapes) -> Block:
    mine = tuple(shapes[k])
    n = len(mine)
    if name in ("reshape", "squeeze", "expand_dims"):
        found = reshape_axes(mine, out)
        if found is None:
            return _explicit_move(op, k, shapes)
        ins, outs, sizes = found
        sizes = list(sizes)
        return Labelled(
            out, mine, _axes_of(outs, sizes), _axes_of(ins, sizes), tuple(sizes), (), ONES
        )
    if name == "transpose":
        perm = p["permutation"]
        ins = tuple(((j,), 0) for j in range(n))
        return Labelled(out, mine, tuple(((perm[j],), 0) for j in range(n)), ins, mine, (), ONES)
    if name == "broadcast_in_dim":
        dims = tuple(p["broadcast_dimensions"])
        sizes = list(mine)
        ins = tuple(((j,), 0) for j in range(n))
        outs = []
        for axis, length in enumerate(out):
            if axis in dims and mine[dims.index(axis)] == length:
                outs.append(((dims.index(axis),), 0))
            else:
                sizes.append(length)
                outs.append(((len(sizes) - 1,), 0))
        return Labelled(out, mine, tuple(outs), ins, tuple(sizes), (), ONES)
    if name == "slice":
        strides = p.get("strides") or (1,) * n
        if any(s != 1 for s in strides):
            return _explicit_move(op, k, shapes)
        starts, limits = p["start_indices"], p["limit_indices"]
        sizes = tuple(e - s for s, e in zip(starts, limits, strict=True))
        outs = tuple(((j,), 0) for j in range(n))
        ins = tuple(((j,), starts[j]) for j in range(n))
        return Labelled(out, mine, outs, ins, sizes, (), ONES)
    if name == "pad":
        config = p["padding_config"]
        if any(interior or lo < 0 or hi < 0 for lo, hi, interior in config):
            return _explicit_move(op, k, shapes)
        ins = tuple(((j,), 0) for j in range(n))
        outs = tuple(((j,), config[j][0]) for j in range(n))
        return Labelled(out, mine, outs, ins, mine, (), ONES)
    if name == "concatenate":
        d = p["dimension"]
        offset = sum(shapes[j][d] for j in range(k))
        ins = tuple(((j,), 0) for j in range(n))
        outs = tuple(((j,), offset if j == d else 0) for j in range(n))
        return Labelled(out, mine, outs, ins, mine, (), ONES)
    if name == "stack":  # the new axis: a label of size 1 at offset k
        d = p["axis"]
        ins = tuple(((j,), 0) for j in range(n))
        outs = [((j,), 0) for j in range(n)]
        outs.insert(d, ((n,), k))
        return Labelled(out, mine, tuple(outs), ins, (*mine, 1), (), ONES)
    return _explicit_move(op, k, shapes)


def _explicit_move(op: ArrayOp, k: int, shapes) -> Sparse:
    """A move whose labels do not line up, as its pattern: the operation applied to the
    flat positions (counted from 1) of operand k, zeros for the others — a 0/1 matrix
    with at most one 1 per row."""
    mine = tuple(shapes[k])
    positions = np.arange(1, math.prod(mine) + 1, dtype=float).reshape(mine)
    args = [positions if j == k else np.zeros(shapes[j]) for j in range(len(op.operands))]
    result = np.asarray(_forward(op, args)).reshape(-1)
    rows = np.nonzero(result)[0].astype(np.int64)
    cols = result[rows].astype(np.int64) - 1
    return sparse(op.shape, mine, rows, cols, ONES)


def _cumsum_pattern(op: ArrayOp, mine) -> Sparse:
    """Entry ``i`` along ``axis`` depends on every ``j ≤ i`` (``j ≥ i`` reversed): the
    running sum as a pattern (:class:`~dgraph.blocks.cumulative.CumsumPattern`: its
    triangles counted, listed only where asked for)."""
    return cumsum_pattern(tuple(mine), int(op.param["axis"]), bool(op.param.get("reverse")))


# -- values --------------------------------------------------------------------------------


# operations whose block values are computed from the operands (the others: ones)
RUN_TIME = frozenset(
    {*ELEMENTWISE, "integer_pow", "select_n", "dot_general", "reduce_max", "reduce_min"}
    | extra.EXTRA_OPERATIONS
)


@functools.cache
def _derivative_function(name: str, k: int) -> Callable[..., np.ndarray]:
    derivative = ELEMENTWISE[name][1][k]
    names = {"Heaviside": _heaviside, **extra.SPECIAL_NUMPY}
    return sympy.lambdify(OPERANDS, derivative, modules=[names, "numpy", "scipy"])


@functools.cache
def _magnitude_function(name: str, k: int) -> Callable[..., np.ndarray] | None:
    """The rule's terms by their magnitudes (:func:`~dgraph.blocks.rounding.absolute_terms`)
    as a function of the operands; None for a rule without a sum (its magnitude is its
    value's)."""
    derivative = ELEMENTWISE[name][1][k]
    if not sums_terms(derivative):
        return None
    names = {"Heaviside": _heaviside, **extra.SPECIAL_NUMPY}
    return sympy.lambdify(OPERANDS, absolute_terms(derivative), modules=[names, "numpy", "scipy"])


def block_magnitude(
    op: ArrayOp, k: int, values: Mapping[str, np.ndarray], block: Block
) -> np.ndarray | None:
    """The scale of the rounding in :func:`block_value`'s values, laid out as they are,
    where the rule is a sum whose terms can cancel (``1 - tanh(a)**2``: 0 at a large
    ``a``, its terms' magnitude 2), or where it is a region's (a loop's chain of body
    Jacobians, a branch's: their blocks' magnitudes multiplied along the chain, whose
    sums of products can cancel); None where it is ``|block_value|``."""
    if op.primitive in REGIONS:
        args = [np.asarray(_read(x, values)) for x in op.operands]
        return op.param["region"].block_magnitude(op.param["output"], k, args, block)
    if op.primitive in _linalg.MAGNITUDES:  # det's cofactors: 0 or tiny at a singular matrix
        return _linalg.magnitude(op, k, [np.asarray(_read(x, values)) for x in op.operands])
    if op.primitive not in ELEMENTWISE or _magnitude_function(op.primitive, k) is None:
        return None
    return block_value(op, k, values, block, terms=True)


def block_size(op: ArrayOp, k: int, values: Mapping[str, np.ndarray], block: Block) -> np.ndarray:
    """The magnitude of ∂op/∂(operand k), laid out as :func:`block_value`'s values:
    :func:`block_magnitude`, or ``|block_value|`` where that is None."""
    found = block_magnitude(op, k, values, block)
    if found is None:
        found = block_value(op, k, values, block)
    return np.abs(np.asarray(found, dtype=float))


def _all_operands(args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """An elementwise operation's operands, zeros for those it lacks: one per
    :data:`OPERANDS` (the rules' functions take them all)."""
    return [*args, *[np.zeros_like(args[0])] * (len(OPERANDS) - len(args))]


def _heaviside(x, half=0.5):
    return np.heaviside(x, half)


def block_value(
    op: ArrayOp, k: int, values: Mapping[str, np.ndarray], block: Block, terms: bool = False
) -> np.ndarray:
    """The values of ∂op/∂(operand k) at ``values``: C order over the block's value labels
    (a labelled block), or one per pattern entry (a sparse block); with ``terms``, an
    elementwise rule's terms by their magnitudes (:func:`block_magnitude`)."""
    name = op.primitive
    if name in REGIONS:
        args = [np.asarray(_read(x, values)) for x in op.operands]
        return op.param["region"].block_value(op.param["output"], k, args, block)
    args = [np.asarray(_read(x, values), dtype=float) for x in op.operands]
    if name == convolution.CONV:
        found = convolution.conv_of(op, k, [a.shape for a in args])
        return convolution.conv_value(args[1 - k], found)
    if name in _scatter.SCATTERS:
        return _scatter.values(op, k, args, block)
    if name in _linalg.LINALG:
        return _linalg.values(op, k, args)
    if name in ("sort", extra.DYNAMIC_ADD) or extra.permutes(op, k):  # a run-time
        return extra.extra_value(op, k, args)  # permutation; 1 or a one-hot
    if isinstance(block, Sparse):
        if name == "cumsum" and not terms:  # ones on a triangle: applied as running sums
            axis, reverse = int(op.param["axis"]), bool(op.param.get("reverse"))
            return SumValues(op.shape, axis, reverse, block.nnz)
        if not _narrows(op, k) and name not in CUMULATIVE:  # a move's: ones
            return np.ones(block.nnz)
        shapes = [a.shape for a in args]
        labelled = labelled_block(op, k, shapes)
        found = narrowed(op, k, shapes, labelled)
        if found is None:
            return np.ones(block.nnz)
        v = np.asarray(block_value(op, k, values, labelled, terms), dtype=float)
        return v.reshape(-1)[found.at]
    if not block.value and name not in RUN_TIME:
        return np.asarray(1.0)  # a move or a sum: ones
    if name == "integer_pow":
        y = op.param["y"]
        d = y * integer_power(args[0], y - 1) if y else np.zeros_like(args[0])
    elif name == "select_n":
        d = (np.asarray(args[0]).astype(int) == k - 1).astype(float)
    elif name in ELEMENTWISE:
        rule = _magnitude_function(name, k) if terms else _derivative_function(name, k)
        d = np.asarray(rule(*_all_operands(args)), dtype=float)
    elif name == "dot_general":
        d = _dot_value(op, k, args, block)
    elif name in ("reduce_max", "reduce_min"):
        d = _extreme_value(op, args[0])
    elif name in extra.EXTRA_OPERATIONS:
        d = extra.extra_value(op, k, args)
    else:
        raise InputError(f"{name}: no values for its block")
    if not block.value:  # one number: a 0-d block, or a derivative constant along it
        return np.asarray(float(np.ravel(d)[0]))
    if name in ("dot_general", "reduce_max", "reduce_min", *extra.EXTRA_OPERATIONS):
        return d  # already over the block's value labels
    return np.broadcast_to(d, op.shape).copy() if d.shape != op.shape else d


def stacked_rule(op: ArrayOp, k: int, block: Block) -> str | None:
    """How :func:`stacked_block_value` takes the block's values at many points at once:
    ``"ones"`` (a move or a sum: every value 1, at every point), ``"elementwise"`` (the
    rule on the operands' values), or None (point by point: values of their own)."""
    name = op.primitive
    special = (REGIONS, (convolution.CONV, "sort", extra.DYNAMIC_ADD), _scatter.SCATTERS)
    if any(name in names for names in special) or name in _linalg.LINALG:
        return None  # values of their own (a permutation's among them)
    if extra.permutes(op, k):
        return None
    if isinstance(block, Sparse):
        narrow = _narrows(op, k) or name in CUMULATIVE
        return None if narrow else "ones"
    if not block.value and name not in RUN_TIME:
        return "ones"
    if name not in ELEMENTWISE and name not in ("integer_pow", "select_n"):
        return None
    return "elementwise"


def known_block_value(op: ArrayOp, k: int, block: Block) -> float | None:
    """The one number every value of the block is at every point, where known without
    one: 1 for a move or a sum, an elementwise rule's constant (``add``'s 1, ``neg``'s
    -1); else None."""
    how = stacked_rule(op, k, block)
    if how == "ones":
        return 1.0
    if how == "elementwise" and op.primitive in ELEMENTWISE:
        rule = ELEMENTWISE[op.primitive][1][k]
        if rule.is_number:
            return float(rule)
    return None


def stacked_block_value(
    op: ArrayOp,
    k: int,
    stacked: Mapping[str, np.ndarray],
    block: Block,
    steps: int,
    absolute: bool = False,
) -> np.ndarray | None:
    """:func:`block_value` at ``steps`` points at once: ``stacked[v]`` is vertex v's
    values at each (first axis), the result the values at each point (first axis, then
    C order over the block's value labels, or one number per point where the block
    holds one). None where the operation is not elementwise (nor a block of ones): the
    caller takes those point by point. The same formulas as :func:`block_value`, on
    arrays one axis longer (a loop's steps: :mod:`dgraph.core.region_sweep`); with
    ``absolute``, :func:`block_size`'s magnitudes."""
    how = stacked_rule(op, k, block)
    if how is None:
        return None
    if how == "ones":
        return np.ones((steps, block.nnz if isinstance(block, Sparse) else 1))
    rank = len(op.shape)
    operands = _stacked_operands(op, stacked, rank)
    if operands is None:
        return None
    args = [
        a.reshape((steps, *(1,) * (rank + 1 - a.ndim), *a.shape[1:])) if per_point else a
        for per_point, a in operands
    ]
    d = _elementwise_derivative(op, k, args, absolute)
    flat = np.broadcast_to(d, (steps, *op.shape)).reshape(steps, -1)
    return flat[:, :1] if not block.value else flat


def stacked_block_entries(
    op: ArrayOp,
    k: int,
    stacked: Mapping[str, np.ndarray],
    block: Block,
    at: tuple[np.ndarray, np.ndarray],
    absolute: bool = False,
) -> np.ndarray | None:
    """:func:`stacked_block_value`'s values at some of its (point, value label) pairs
    alone (``at``: the points and the labels), each from the operands' values at that
    entry: the work in the pairs asked, not in the points × the block (a loop step's
    rows: :mod:`dgraph.core.step_entries`). None where it would be None."""
    how = stacked_rule(op, k, block)
    points, labels = at
    if how is None:
        return None
    if how == "ones":
        return np.ones(points.size)
    rank = len(op.shape)
    entry = labels if block.value else np.zeros_like(labels)
    multi = np.unravel_index(entry, op.shape) if rank else ()
    operands = _stacked_operands(op, stacked, rank)
    if operands is None:
        return None
    args = []
    for per_point, a in operands:
        if per_point:
            where = _broadcast_index(multi, a.shape[1:], rank, points.size)
            args.append(a.reshape(a.shape[0], -1)[points, where])
        else:
            args.append(a.reshape(-1)[_broadcast_index(multi, a.shape, rank, points.size)])
    return np.broadcast_to(_elementwise_derivative(op, k, args, absolute), points.shape)


def _stacked_operands(
    op: ArrayOp, stacked: Mapping[str, np.ndarray], rank: int
) -> list[tuple[bool, np.ndarray]] | None:
    """Each operand's values: (True, its stacked values, the points' axis first) or
    (False, a constant); None where one has more axes than the result or is neither."""
    found = []
    for x in op.operands:
        if isinstance(x, str):
            a = np.asarray(stacked[x], dtype=float)
            if a.ndim - 1 > rank:
                return None
            found.append((True, a))
        elif isinstance(x, Const) or not names_read([x]):
            a = np.asarray(_read(x, {}), dtype=float)
            if a.ndim > rank:
                return None
            found.append((False, a))
        else:
            return None
    return found


def _broadcast_index(multi: tuple, shape: tuple[int, ...], rank: int, size: int) -> np.ndarray:
    """The flat positions in an array of ``shape`` (broadcast against ``rank`` axes, as
    NumPy aligns them: from the right) read at the entries ``multi`` (their indices)."""
    if not shape:
        return np.zeros(size, dtype=np.int64)
    lead = rank - len(shape)
    index = [multi[lead + i] if n != 1 else np.zeros(size, np.int64) for i, n in enumerate(shape)]
    return np.ravel_multi_index(index, shape)


def _elementwise_derivative(op: ArrayOp, k: int, args: list, absolute: bool) -> np.ndarray:
    """An elementwise operation's derivative by operand k on its operands' values (any
    shapes that broadcast); with ``absolute``, its terms' magnitudes."""
    name = op.primitive
    if name == "integer_pow":
        y = op.param["y"]
        d = y * integer_power(args[0], y - 1) if y else np.zeros_like(args[0])
    elif name == "select_n":
        d = (args[0].astype(int) == k - 1).astype(float)
    else:
        rule = _magnitude_function(name, k) if absolute else None
        d = np.asarray((rule or _derivative_function(name, k))(*_all_operands(args)), dtype=float)
    return np.abs(d) if absolute else d


def _dot_value(op: ArrayOp, k: int, args, block: Labelled) -> np.ndarray:
    """The other operand, its axes in the order of the block's value labels."""
    (lc, rc), (lb, rb) = op.param["dimension_numbers"]
    other = args[1 - k]
    shapes = [a.shape for a in args]
    oc, ob = (rc, rb) if k == 0 else (lc, lb)
    mine = shapes[k]
    mc, mb = (lc, lb) if k == 0 else (rc, rb)
    n_batch = len(mb)
    n_free_m = len(mine) - len(mc) - len(mb)
    contract = list(range(n_batch + n_free_m, n_batch + n_free_m + len(mc)))
    batch = list(range(n_batch))
    free_o = list(
        range(
            n_batch + n_free_m + len(mc),
            n_batch + n_free_m + len(mc) + other.ndim - len(oc) - len(ob),
        )
    )
    labels = other_labels(other.shape, oc, ob, contract, batch, free_o)
    order = np.argsort(labels)
    return np.transpose(other, order)


def _extreme_value(op: ArrayOp, x: np.ndarray) -> np.ndarray:
    axes = tuple(op.param["axes"])
    best = (np.max if op.primitive == "reduce_max" else np.min)(x, axis=axes, keepdims=True)
    hit = (x == best).astype(float)
    return hit / hit.sum(axis=axes, keepdims=True)


# -- descriptions --------------------------------------------------------------------------


def describe(op: ArrayOp, k: int) -> str:
    """∂op/∂(operand k) as the papers write it: ``diag(exp(u))``, ``I ⊗ Wᵀ``, a selection
    ``S[1:4]``, a reduction ``1ᵀ[axes 1]``.

    >>> describe(ArrayOp("tanh", ("h",), (), (3,)), 0)
    'diag(1 - tanh(h)**2)'
    >>> numbers = (((1,), (0,)), ((), ()))
    >>> dot = ArrayOp("dot_general", ("x", "W"), (("dimension_numbers", numbers),), (5, 4))
    >>> describe(dot, 0), describe(dot, 1)
    ('I ⊗ Wᵀ', 'x ⊗ I')
    """
    name, p = op.primitive, op.param
    names = [_operand_text(x) for x in op.operands]
    if name in REGIONS:  # the chain product of the body's Jacobians: "chain of 50 steps"
        return p["region"].label()
    if name in ELEMENTWISE:
        d = ELEMENTWISE[name][1][k]
        if d.is_Number:
            return "I" if d == 1 else "-I" if d == -1 else f"{d}·I"
        text = sympy.sstr(d.xreplace({A: sympy.Symbol(names[0]), B: sympy.Symbol(names[-1])}))
        return f"diag({text})"
    if name == "integer_pow":
        return f"diag({p['y']}*{names[0]}**{p['y'] - 1})"
    if name == "select_n":
        return f"diag({names[0]} == {k - 1})"
    if name == "dot_general":
        return f"I ⊗ {names[1]}ᵀ" if k == 0 else f"{names[0]} ⊗ I"
    if name == "reduce_sum":
        return f"1ᵀ[axes {', '.join(map(str, p['axes']))}]"
    if name in ("reduce_max", "reduce_min"):
        return f"onehot(arg{name[7:]} over axes {', '.join(map(str, p['axes']))})"
    found = extra.describe_extra(op, names, k)
    if found is not None:
        return found
    if name == "slice":
        bounds = ", ".join(
            f"{s}:{e}" for s, e in zip(p["start_indices"], p["limit_indices"], strict=True)
        )
        return f"S[{bounds}]"
    if name == "pad":
        return f"P[{', '.join(f'{lo}:{hi}' for lo, hi, _ in p['padding_config'])}]"
    if name == "concatenate":
        return f"E[part {k} of axis {p['dimension']}]"
    if name == convolution.CONV:
        return f"conv[{names[1]}]" if k == 0 else f"conv[{names[0]}]"
    if name == "take":
        return f"S[{len(p['indices'])} picks of axis {p['axis']}]"
    if name in _scatter.SCATTERS:
        return _scatter.describe(op, k)
    if name == "broadcast_in_dim":
        return f"B[→{'×'.join(map(str, op.shape))}]"
    if name == "transpose":
        return f"T{tuple(p['permutation'])}"
    if name in ("reshape", "squeeze", "expand_dims"):
        return f"reshape[→{'×'.join(map(str, op.shape))}]"
    return f"∂{name}/∂{names[k]}"


def _operand_text(x: Any) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, Const):
        if x.value.size == 1:  # a 1×1 matrix too (R in a Kalman gain): float() refuses it
            return f"{float(x.value.reshape(()))}"
        return f"const{list(x.shape)}"
    return x.primitive
