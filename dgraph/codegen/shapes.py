"""The shapes and types of array nodes, inferred from those of the program's arguments
and constants, without running the program.

What a printer must know about its program at generation — the shape and dtype of each
statement (the C and CUDA printers size their buffers and loops by them) and the values
that are constants of the program (a gather's index array, a sparse result's pattern) —
follows from the node kinds of :mod:`dgraph.codegen.ir` alone: one ``_shape_<Kind>``
method per node kind, as :class:`~dgraph.codegen.evaluate.ArrayEvaluator` has one
``_eval_<Kind>`` and the printers one ``_print_<Kind>``. An array function that is not
elementwise has its rule in the call-shape table both inferences read
(:mod:`dgraph.codegen.call_shapes`) or, where it makes an array from literals
(``zeros``, ``arange``), one ``_call_<name>`` here; an elementwise one is a NumPy or SciPy
ufunc, whose broadcasting and type resolution NumPy states without computing anything.

A node's inferred value is a :class:`Shaped` (shape, dtype, and the array itself where the
node is a constant of the program), or, for a literal, the literal (a number, a shape, a
string, a :class:`slice`, a list for :class:`~dgraph.codegen.ir.Seq`). The types are
NumPy's: what the NumPy printing of the node would give.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special

from ..errors import DGraphError
from . import ir
from .call_shapes import CALL_SHAPES, Operand, call_shape, table_name
from .evaluate import ArrayEvaluator

__all__ = ["ShapeError", "ShapeInference", "Shaped", "program_shapes"]

_UFUNCS = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.true_divide,
    "**": np.power,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
_FLOAT = np.dtype(np.float64)


class ShapeError(DGraphError):
    """A node whose shape has no rule (an array function the inference does not know)."""


@dataclass(frozen=True)
class Shaped:
    """An array's shape and dtype; ``value``: the array itself where it is a constant of
    the program (read from its constants, never computed)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    value: np.ndarray | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @classmethod
    def of(cls, array: Any) -> Shaped:
        """The shape, dtype and value of a constant array."""
        array = np.asarray(array)
        return cls(tuple(array.shape), array.dtype, array)


def program_shapes(program: ir.ArrayProgram) -> dict[str, Any]:
    """Every name of ``program`` (arguments, constants, statement targets) -> its
    :class:`Shaped` (arguments are float64 arrays of their shapes)."""
    inference = ShapeInference(arguments(program))
    return inference.run(program.statements)


def arguments(program: ir.ArrayProgram) -> dict[str, Any]:
    """The names a program's statements read before they assign any: its arguments
    (float64 arrays of their shapes) and its constants (their arrays; a literal as
    itself)."""
    env: dict[str, Any] = {}
    for name, value in program.constants.items():
        env[name] = Shaped.of(value) if isinstance(value, np.ndarray) else value
    for name, shape in zip(program.arguments, program.shapes, strict=True):
        env[name] = Shaped(tuple(shape), _FLOAT)
    return env


class ShapeInference:
    """The :class:`Shaped` of array nodes, from those of the names they read.

    Parameters
    ----------
    env
        Name -> :class:`Shaped` (or a literal) of the arguments and constants; each
        statement's target is added by :meth:`run`.

    Examples
    --------
    >>> k = np.array([2, 0], dtype=np.int32)
    >>> inference = ShapeInference({"x": Shaped((3, 4), np.dtype(float)), "k": Shaped.of(k)})
    >>> gather = ir.Index(ir.Call("ravel", (ir.Name("x"),)), (ir.Name("k"),))
    >>> inference.of(ir.BinOp("*", gather, ir.Const(2))).shape
    (2,)
    >>> inference.of(ir.Call("sum", (ir.Name("k"),))).dtype
    dtype('int64')
    """

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env: dict[str, Any] = dict(env)

    # -- programs -------------------------------------------------------------------------

    def run(self, statements: Iterable[ir.ArrayStatement]) -> dict[str, Any]:
        """Infer ``statements`` in order into :attr:`env` and return it (a store
        ``target[at] = value`` keeps its target's shape and type)."""
        for s in statements:
            self.statement(s)
        return self.env

    def statement(self, s: ir.ArrayStatement) -> Any:
        """The target's :class:`Shaped` after ``s`` (added to :attr:`env`)."""
        if s.at:
            self.of(s.value)
            return self.env[s.target]
        self.env[s.target] = self.of(s.value)
        return self.env[s.target]

    def of(self, node: ir.Node) -> Any:
        """The :class:`Shaped` (or literal) of ``node`` (without recursion)."""

        def combine(n: ir.Node, values: list[Any]) -> Any:
            rule = getattr(self, f"_shape_{type(n).__name__}", None)
            if rule is None:
                raise ShapeError(f"no shape rule for the node kind {type(n).__name__}")
            return rule(n, values)

        return ir.fold(node, combine)

    def shape(self, node: ir.Node) -> tuple[int, ...]:
        """``node``'s shape (a literal's: that of its array)."""
        return _shaped(self.of(node)).shape

    # -- one method per node kind: ``values`` are its children's, in field order ----------

    def _shape_Name(self, node: ir.Name, values: list) -> Any:
        try:
            return self.env[node.id]
        except KeyError:
            raise DGraphError(f"inferring shapes: {node.id} is not defined") from None

    def _shape_Const(self, node: ir.Const, values: list) -> Any:
        return node.value

    def _shape_BinOp(self, node: ir.BinOp, values: list) -> Any:
        return _elementwise(_UFUNCS[node.op], values)

    def _shape_UnaryOp(self, node: ir.UnaryOp, values: list) -> Any:
        if node.op != "-":
            raise ShapeError(f"no shape rule for unary {node.op}")
        return _elementwise(np.negative, values)

    def _shape_Call(self, node: ir.Call, values: list) -> Any:
        args = values[: len(node.args)]
        keywords = dict(zip((k for k, _ in node.keywords), values[len(node.args) :], strict=True))
        _, special, name = node.func.rpartition("special.")
        rule = None if special else getattr(self, f"_call_{name}", None)
        if rule is not None:
            return rule(*args, **keywords)
        table = None if special else table_name(node.func)
        if table is not None:
            return _from_table(node.func, args, keywords)
        function = getattr(scipy.special if special else np, name, None)
        if isinstance(function, np.ufunc) and not keywords:
            return _elementwise(function, args)
        if node.func == "_lambertw" and len(args) == 1 and not keywords:  # ..lambertw_code
            return _elementwise(np.exp, args)  # one float operand, its shape
        if special and name == "polygamma" and len(args) == 2 and not keywords:
            # scipy's polygamma(n, x) is a Python function, elementwise over both
            return Shaped(np.broadcast_shapes(*(_shaped(v).shape for v in args)), _FLOAT)
        raise ShapeError(f"no shape rule for the array function {node.func}")

    def _shape_AsType(self, node: ir.AsType, values: list) -> Shaped:
        dtype = {"int": np.dtype(int), "float": _FLOAT}.get(node.dtype)
        if dtype is None:
            raise ShapeError(f"no shape rule for astype({node.dtype})")
        return Shaped(_shaped(values[0]).shape, dtype)

    def _shape_Slice(self, node: ir.Slice, values: list) -> slice:
        return slice(node.lower, node.upper, node.step)

    def _shape_Index(self, node: ir.Index, values: list) -> Shaped:
        if isinstance(values[0], list) and len(values) == 2:  # one of several results
            return values[0][values[1]]
        base, items = _shaped(values[0]), values[1:]
        arrays = [k for k, item in enumerate(items) if isinstance(item, Shaped)]
        if arrays:  # a gather: one integer array over the first axis
            if len(items) != 1 or not base.shape:
                raise ShapeError("no shape rule for an index of arrays beside other items")
            return Shaped(items[0].shape + base.shape[1:], base.dtype)
        return Shaped(_basic_index(base.shape, items), base.dtype)

    def _shape_Seq(self, node: ir.Seq, values: list) -> list:
        return list(values)

    def _shape_Dict(self, node: ir.Dict, values: list) -> dict:
        return dict(zip((k for k, _ in node.items), values, strict=True))

    def _shape_Formula(self, node: ir.Formula, values: list) -> Shaped:
        """Its operands broadcast together; the type NumPy gives the formula's printed
        form, found on one entry of each operand's type."""
        shapes = [_shaped(v).shape for v in values]
        ones = {
            s: (np.ones((), v.dtype) if isinstance(v, Shaped) else v)
            for (s, _), v in zip(node.operands, values, strict=True)
        }
        with np.errstate(all="ignore"):
            one = ArrayEvaluator().formula(node.expr, ones)
        return Shaped(np.broadcast_shapes(*shapes), np.asarray(one).dtype)

    def _shape_Entries(self, node: ir.Entries, values: list) -> Shaped:
        items = [_shaped(v) for v in values]
        dtype = np.result_type(*(_weak(v) for v in values)) if values else _FLOAT
        batch = np.broadcast_shapes(*(i.shape for i in items)) if items else ()
        return Shaped(tuple(node.shape) + batch, dtype)

    def _shape_Scatter(self, node: ir.Scatter, values: list) -> Shaped:
        return Shaped((node.size,), _FLOAT)

    def _shape_ScatterAdd(self, node: ir.ScatterAdd, values: list) -> Shaped:
        return Shaped(_shaped(values[0]).shape, _FLOAT)

    def _shape_SegmentSum(self, node: ir.SegmentSum, values: list) -> Shaped:
        return Shaped((node.n,), _FLOAT)

    def _shape_Loop(self, node: ir.Loop, values: list) -> tuple:
        """The final carries (the initial ones' shapes and types), then each y stacked
        along a new first axis: the body's shapes inferred from its arguments'."""
        init, rest = values[: node.carries], values[node.carries :]
        xs, invariants = rest[: len(node.xs)], rest[len(node.xs) :]
        steps = [Shaped(_shaped(x).shape[1:], _shaped(x).dtype) for x in xs]
        inner = ShapeInference(
            dict(zip(node.body.arguments, [*init, *steps, *invariants], strict=True))
        )
        inner.run(node.body.statements)
        ys = [_shaped(inner.env[r]) for r in node.body.results[node.carries :]]
        carries = [_shaped(c) for c in init]
        return (*carries, *(Shaped((node.length, *y.shape), y.dtype) for y in ys))

    def _shape_While(self, node: ir.While, values: list) -> tuple:
        """The final carries: the initial ones' shapes and types."""
        return tuple(_shaped(c) for c in values[: node.carries])

    def _shape_Cond(self, node: ir.Cond, values: list) -> tuple:
        """The first branch's results' shapes and types (every branch returns the same
        shapes)."""
        part = node.branches[0]
        inner = ShapeInference(dict(zip(part.arguments, values[1:], strict=True)))
        inner.run(part.statements)
        return tuple(_shaped(inner.env[r]) for r in part.results)

    def _shape_Item(self, node: ir.Item, values: list) -> Any:
        return values[0][node.index]

    def _shape_SparseMatrix(self, node: ir.SparseMatrix, values: list) -> Shaped:
        return Shaped(tuple(node.shape), _FLOAT)

    # -- array functions that are not elementwise: one method per name --------------------

    def _call_asarray(self, x: Any, dtype: Any = None) -> Shaped:
        if not isinstance(x, Shaped):  # a literal: its array is a constant
            return Shaped.of(np.asarray(x, dtype=dtype))
        return Shaped(x.shape, x.dtype if dtype is None else np.dtype(dtype))

    def _call_array(self, x: Any, dtype: Any = None) -> Shaped:
        return self._call_asarray(x, dtype)

    def _call_where(self, condition: Any, a: Any, b: Any) -> Shaped:
        shape = np.broadcast_shapes(*(_shaped(v).shape for v in (condition, a, b)))
        return Shaped(shape, np.result_type(_weak(a), _weak(b)))

    def _call_full(self, shape: Any, fill: Any, dtype: Any = None) -> Shaped:
        kind = _shaped(fill).dtype if dtype is None else np.dtype(dtype)
        return Shaped(_as_shape(shape), kind)

    def _call_zeros(self, shape: Any, dtype: Any = None) -> Shaped:
        return Shaped(_as_shape(shape), _FLOAT if dtype is None else np.dtype(dtype))

    def _call_ones(self, shape: Any, dtype: Any = None) -> Shaped:
        return self._call_zeros(shape, dtype)

    def _call_zeros_like(self, x: Any) -> Shaped:
        x = _shaped(x)
        return Shaped(x.shape, x.dtype)

    def _call_eye(self, n: Any, dtype: Any = None) -> Shaped:
        return Shaped((int(n), int(n)), _FLOAT if dtype is None else np.dtype(dtype))

    def _call_arange(self, *bounds: Any, dtype: Any = None) -> Shaped:
        if any(isinstance(b, Shaped) for b in bounds):
            raise ShapeError("no shape rule for arange of arrays")
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        n = max(0, math.ceil((stop - start) / step))
        kind = np.result_type(*bounds) if dtype is None else np.dtype(dtype)
        return Shaped((n,), kind)

    def _call_result_type(self, *xs: Any) -> np.dtype:
        return np.result_type(*(_weak(x) for x in xs))

    def _call_round(self, x: Any) -> Shaped:
        x = _shaped(x)
        return Shaped(x.shape, x.dtype)


# -- rules shared by several kinds ----------------------------------------------------------


def _shaped(value: Any) -> Shaped:
    """A :class:`Shaped` as it is; a literal (a number, a nested tuple) as its array."""
    if isinstance(value, Shaped):
        return value
    if isinstance(value, (list, slice, dict, str)) or value is None:
        raise DGraphError(f"inferring shapes: {value!r} is not an array")
    return Shaped.of(value)


def _weak(value: Any) -> Any:
    """What NumPy's type promotion sees: a Python number stays weak (NEP 50), an array
    its dtype."""
    if isinstance(value, Shaped):
        return value.dtype
    if isinstance(value, (bool, int, float, complex)):
        return value
    return np.asarray(value).dtype


def _elementwise(ufunc: np.ufunc, values: list) -> Shaped:
    """A ufunc's result: its operands broadcast, the type it resolves for theirs."""
    if len(values) != ufunc.nin:
        raise ShapeError(f"no shape rule for {ufunc.__name__} of {len(values)} operands")
    types = tuple(type(v) if isinstance(_weak(v), (int, float)) else _weak(v) for v in values)
    try:
        dtype = ufunc.resolve_dtypes((*types, None))[-1]
    except (TypeError, np.exceptions.DTypePromotionError) as error:
        raise ShapeError(f"{ufunc.__name__} of {types}: {error}") from None
    shape = np.broadcast_shapes(*(_shaped(v).shape for v in values))
    return Shaped(shape, dtype)


def _from_table(func: str, args: list, keywords: dict) -> Any:
    """A call's :class:`Shaped` by the shared table (:mod:`dgraph.codegen.call_shapes`):
    its shape from the operands', its type by the table's dtype rule."""
    name = table_name(func)
    try:
        shape = call_shape(func, [_operand(a) for a in args],
                           {k: _operand(v) for k, v in keywords.items()})  # fmt: skip
    except (TypeError, ValueError, IndexError) as error:
        raise ShapeError(f"inferring shapes: {name}: {error}") from None
    kind = CALL_SHAPES[name][1]
    if kind == "frexp":
        return [Shaped(shape[0], _FLOAT), Shaped(shape[1], np.dtype(np.int32))]
    if kind == "joined":
        dtype = np.result_type(*(_weak(p) for p in args[0]))
    elif kind == "operands":
        dtype = np.result_type(*(_shaped(o).dtype for o in args[1:]))
    elif kind == "index":  # of any operands (lexsort's: a list of keys)
        dtype = np.dtype(np.intp)
    else:
        first = _shaped(args[0]).dtype if args else _FLOAT
        dtype = {
            "same": first,
            "summed": _summed(first),
            "float": np.result_type(first, _FLOAT),
        }[kind]
    if isinstance(shape, list):
        return [Shaped(tuple(s), dtype) for s in shape]
    return Shaped(tuple(shape), dtype)


def _operand(value: Any) -> Any:
    """What the call-shape table reads: an array's :class:`Operand`, a literal as itself."""
    if isinstance(value, list):
        return [_operand(v) for v in value]
    return Operand(value.shape) if isinstance(value, Shaped) else value


def _as_shape(value: Any) -> tuple[int, ...]:
    if isinstance(value, Shaped):
        raise ShapeError("no shape rule for a shape that is computed")
    return (int(value),) if np.ndim(value) == 0 else tuple(int(n) for n in value)


def _summed(dtype: np.dtype) -> np.dtype:
    """NumPy's type of a sum: booleans and narrower integers widen to the default int."""
    if dtype.kind == "b" or (dtype.kind in "iu" and dtype.itemsize < np.dtype(int).itemsize):
        return np.dtype(int) if dtype.kind in "bi" else np.dtype(np.uint)
    return dtype


def _basic_index(shape: tuple[int, ...], items: list) -> tuple[int, ...]:
    """The shape ``x[items]`` has for integers, slices, ``...`` and ``None``."""
    free = sum(1 for i in items if i is not None and i is not Ellipsis)
    if free > len(shape):
        raise DGraphError(f"inferring shapes: {free} indices for the shape {shape}")
    out: list[int] = []
    axis = 0
    for item in items:
        if item is Ellipsis:
            skip = len(shape) - free
            out += shape[axis : axis + skip]
            axis += skip
        elif item is None:
            out.append(1)
        elif isinstance(item, slice):
            out.append(len(range(*item.indices(shape[axis]))))
            axis += 1
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not -shape[axis] <= item < shape[axis]:
                raise DGraphError(f"inferring shapes: index {item} of an axis of {shape[axis]}")
            axis += 1
        else:
            raise ShapeError(f"no shape rule for the index {item!r}")
    return (*out, *shape[axis:])
