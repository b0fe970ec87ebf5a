"""The values of an array program's statements as arrays of polynomials, value-numbered:
what the sparse pattern needs to see that an entry cancels for every input.

Each array an input does not reach is its numbers (the statements that read no input,
evaluated as the module folds them). The inputs are unknowns, one per element. An
operation that only moves, copies or sums entries (a slice, a gather with fixed indices,
reshape, transpose, pad, concatenate, broadcast, a scatter, a segment sum, ``sum``,
``einsum``) moves and adds their polynomials; ``+ − ×`` and integer powers are polynomial
arithmetic. Every other elementwise function of its operands (``sin``, a quotient's
``1/b``, a comparison, a formula's subexpression that is no sum or product) is an
unknown of its own, *value-numbered*: ``f`` of operands whose polynomials are equal is
one unknown, wherever and however often it is computed (``sin(x[:-1])`` twice, or
``sin(x)[:-1]``, is one array of unknowns ``sin x_i``). Anything else (a loop, a sort,
a gather at indices that vary) is a fresh array of unknowns, equal only to itself.
Nothing is evaluated at a point: equal unknowns are equal values by construction, and a
polynomial identity in unknowns holds for whatever values they take.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ...errors import DGraphError
from .. import ir
from ..evaluate import ArrayEvaluator
from ..shapes import ShapeInference
from .poly_arrays import (
    MAX_DEGREE,
    SHIFT,
    GiveUp,
    PolyArray,
    add,
    atom_array,
    broadcast,
    constant,
    gather,
    multiply,
    negate,
    place,
    restricted,
    segment_sum,
    vector,
)

__all__ = ["PolyValues"]

MAX_ROWS = 100_000_000  # terms made in all (seconds at 10⁶ entries): beyond, nothing claimed
# terms of the values kept for a later call on the same program (:meth:`PolyValues.grown`:
# each block of a Jacobian asks of one program, and its long unrolled loops are read by
# every block; the values read last in a call are let go beyond this)
KEEP_ROWS = 1_000_000
_LOW = (1 << SHIFT) - 1
_MOVES = frozenset(
    {
        "reshape", "ravel", "asarray", "array", "transpose", "broadcast_to", "flip",
        "expand_dims", "squeeze", "moveaxis", "swapaxes", "take", "take_along_axis",
        "concatenate", "stack", "tile", "repeat", "roll", "diagonal",
    }
)  # fmt: skip
_SYMPY_NAMES = {  # a formula's function as the array function of the same values
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
    "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "Abs": "abs",
    "Max": "maximum", "Min": "minimum", "erf": "special.erf", "erfc": "special.erfc",
}  # fmt: skip
_CALL_NAMES = {"absolute": "abs", "power": "**", "true_divide": "/", "divide": "/"}


_OPAQUE = object()  # a value that is no array (a loop's tuple of results)


class _Num:
    """A value no input reaches: its numbers (or a literal)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class PolyValues:
    """Polynomial values (module docstring) of the nodes of one program.

    Parameters
    ----------
    statements
        The program's statements, in order.
    numbers
        The value of every name no input reaches (constants, statements) that the nodes
        asked for read.
    shaped
        Every name's :class:`~dgraph.codegen.shapes.Shaped` (for the shape of an
        operation that is not modelled).
    varying
        The names whose values read an input.
    """

    def __init__(
        self,
        statements: Iterable[ir.ArrayStatement],
        numbers: Mapping[str, Any],
        shaped: Mapping[str, Any],
        varying: set[str],
    ) -> None:
        self.varying = varying
        self.atoms: dict[Any, int] = {}
        self.contents: dict[tuple, int] = {}
        self.values: dict[str, PolyArray] = {}
        self.made = 0
        # kept for a later :meth:`of` of the same program grown (:meth:`grown`): by
        # statement, the terms making its value cost, and the statement of each value kept
        self.cost: dict[int, int] = {}
        self.kept: dict[str, int] = {}
        self.kept_rows = 0
        self.grown(statements, numbers, shaped)

    def grown(
        self,
        statements: Iterable[ir.ArrayStatement],
        numbers: Mapping[str, Any],
        shaped: Mapping[str, Any],
    ) -> PolyValues:
        """This instance for the same program with statements appended since (a later
        block's cancellation pass): the values kept of the statements before are reused,
        with their unknowns' numbers, those of a name stored into since let go."""
        self.statements = list(statements)
        self.targets = {s.target for s in self.statements}
        self.stored = {s.target for s in self.statements if s.at}
        self.numbers = numbers
        self.inference = ShapeInference(shaped)
        for name, k in list(self.kept.items()):
            same = k < len(self.statements) and self.statements[k].target == name
            if name in self.stored or not same:
                self._let_go(name)
        return self

    # -- entry ----------------------------------------------------------------------------

    def of(self, nodes: list[ir.Node]) -> list[PolyArray]:
        """The polynomial values of ``nodes`` (the statements they read, in order, once
        each; each value dropped after its last reader unless kept, :data:`KEEP_ROWS`).
        A value kept from an earlier call is not made again, and the terms it cost then
        are counted again (:data:`MAX_ROWS`: the same limit as made afresh)."""
        self.made = 0
        known = {s.target: k for k, s in enumerate(self.statements) if not s.at}
        needed: set[int] = set()  # every statement read, as made afresh
        made: set[int] = set()  # those not kept: made here
        todo = [(n, True) for node in nodes for n in ir.names_in(node)]
        while todo:
            name, make = todo.pop()
            k = known.get(name)
            if k is None or name not in self.varying or name in self.stored:
                continue
            make = make and self.kept.get(name) != k
            if k in needed and (k in made or not make):
                continue
            needed.add(k)
            if make:
                made.add(k)
            todo.extend((n, make) for n in ir.names_in(self.statements[k].value))
        for k in needed - made:
            self._spent_before(k)
        order = sorted(made)
        last: dict[str, int] = {
            n: len(self.statements) for node in nodes for n in ir.names_in(node)
        }
        for k in order:
            for name in ir.names_in(self.statements[k].value):
                last.setdefault(name, k)
                last[name] = max(last[name], k)
        for k in order:
            s = self.statements[k]
            before = self.made
            self.values[s.target] = self.node(s.value)
            self.cost[k] = self.made - before
            for name in ir.names_in(s.value):
                if last.get(name) == k:
                    self._read_last(name, known.get(name))
        out = [self.node(n) for n in nodes]
        for name in {n for node in nodes for n in ir.names_in(node)}:
            self._read_last(name, known.get(name))
        return out

    def _spent_before(self, k: int) -> None:
        """Count the terms statement ``k``'s value cost when it was made (kept since)."""
        self.made += self.cost[k]
        if self.made > MAX_ROWS:
            raise GiveUp("too many terms")

    def _read_last(self, name: str, k: int | None) -> None:
        """``name`` read for the last time in this call: kept for a later call where its
        terms fit in :data:`KEEP_ROWS`, else let go."""
        value = self.values.get(name)
        if name in self.kept or value is None:
            return
        if k is not None and self.kept_rows + value.rows <= KEEP_ROWS:
            self.kept[name] = k
            self.kept_rows += value.rows
        else:
            self.values.pop(name, None)

    def _let_go(self, name: str) -> None:
        """Drop the value kept of ``name``."""
        self.kept.pop(name, None)
        value = self.values.pop(name, None)
        if value is not None:
            self.kept_rows -= value.rows

    def node(self, node: ir.Node) -> PolyArray:
        """``node``'s polynomial value (the statements it reads done already)."""
        value = ir.fold(node, self._combine, self._whole)
        return self._poly(value)

    # -- atoms ------------------------------------------------------------------------------

    def atom(self, key: Any) -> int:
        """The number of the array of unknowns ``key`` names (a new one for a new key)."""
        if key not in self.atoms:
            self.atoms[key] = len(self.atoms) + 1
            if len(self.atoms) >= 1 << 30:
                raise GiveUp("too many arrays of unknowns")
        return self.atoms[key]

    def fresh(self, shape: tuple[int, ...]) -> PolyArray:
        """An array of unknowns equal only to themselves."""
        return atom_array(self.atom(("fresh", len(self.atoms))), shape)

    def _spent(self, p: PolyArray) -> PolyArray:
        self.made += p.rows
        if self.made > MAX_ROWS:
            raise GiveUp("too many terms")
        return p

    def _poly(self, value: Any) -> PolyArray:
        if isinstance(value, PolyArray):
            return value
        if isinstance(value, _Num):
            try:
                return constant(np.asarray(value.value, dtype=float))
            except (TypeError, ValueError):
                raise GiveUp("not a numeric array") from None
        raise GiveUp(f"not an array: {type(value).__name__}")

    def apply(self, key: Any, args: list[Any], shape: tuple[int, ...]) -> PolyArray:
        """``key`` (an elementwise function) of ``args``: one value-numbered unknown per
        entry (module docstring). Where every operand is a number or a number times one
        unknown, those of one element, the unknown is ``key`` of those arrays and numbers
        at that element (so ``f(x)[i]`` is ``f(x[i])``); elsewhere it is numbered by the
        operands' polynomials."""
        if not args:
            return broadcast(atom_array(self.atom((key,)), ()), shape)
        polys = [broadcast(self._poly(a), shape) for a in args]
        n = math.prod(shape)
        taint = np.zeros(n, dtype=bool)
        for p in polys:
            taint |= p.taint
        described = [p.described() for p in polys]
        element = np.max([d[3] for d in described], axis=0)
        fast = ~taint
        for kind, _, _, elem in described:
            fast &= (kind < 3) & ((kind != 2) | (elem == element))
        keys = np.full(n, -1, dtype=np.int64)
        where = np.flatnonzero(fast)
        if where.size:
            columns = []
            for kind, atom, coef, _ in described:
                columns += [kind[where].astype(np.int64), atom[where], coef[where].view(np.int64)]
            first, inverse = _distinct_rows(columns)
            if first.size > 200_000:
                raise GiveUp("too many distinct operands")
            combos = np.stack([c[first] for c in columns], axis=1).tolist()
            ids = np.array([self.atom((key, *c)) for c in combos], dtype=np.int64)
            keys[where] = (ids[inverse] << SHIFT) | np.maximum(element[where], 0)
        rest = np.flatnonzero((keys < 0) & ~taint)
        if rest.size:
            keys[rest] = self._numbered(key, polys, rest)
        out = PolyArray(shape, np.arange(n, dtype=np.int64), keys[:, None], np.ones(n), taint)
        if taint.any():
            out = add(restricted(out, ~taint), restricted(self.fresh(shape), taint))
        return self._spent(out)

    def _numbered(self, key: Any, polys: list[PolyArray], positions: np.ndarray) -> np.ndarray:
        """The unknowns ``key(polys)`` at ``positions``, numbered by the operands'
        polynomials there (equal polynomials: one unknown): each position's rows, of
        every operand, laid out in one row of int64 words (the operands' count, then
        per operand its width, its number of rows there, their factor keys and their
        coefficients' bits, padded to the most rows any position has), whose bytes are
        its content; formed in a few passes, not per position."""
        if positions.size > 200_000:
            raise GiveUp("too many distinct operands")
        atom = self.atom((key, "numbered"))
        n = positions.size
        columns = [np.full((n, 1), len(polys), dtype=np.int64)]
        for p in polys:
            counts = p.counts()
            taken = counts[positions]
            starts = (np.cumsum(counts) - counts)[positions]
            widest, width = int(taken.max(initial=0)), p.fac.shape[1]
            at = np.repeat(np.arange(n), taken)
            slot = np.arange(at.size) - np.repeat(np.cumsum(taken) - taken, taken)
            rows = starts[at] + slot
            fac = np.zeros((n, widest, width), dtype=np.int64)
            coef = np.zeros((n, widest), dtype=np.int64)
            fac[at, slot] = p.fac[rows]
            coef[at, slot] = p.coef[rows].view(np.int64)
            columns += [np.full((n, 1), width, np.int64), taken[:, None].astype(np.int64)]
            columns += [fac.reshape(n, -1), coef]
        table = np.ascontiguousarray(np.hstack(columns))
        raw, step = table.tobytes(), table.shape[1] * 8
        contents = self.contents
        out = np.empty(n, dtype=np.int64)
        for k in range(n):
            out[k] = contents.setdefault(raw[k * step : (k + 1) * step], len(contents))
        if out.size and int(out.max()) > _LOW:
            raise GiveUp("too many distinct operands")
        return (np.int64(atom) << SHIFT) | out

    # -- nodes ------------------------------------------------------------------------------

    def _whole(self, node: ir.Node) -> Any:
        """A value no input reaches: its numbers, not descended into."""
        if isinstance(node, ir.Const):
            return _Num(node.value)
        if ir.names_in(node) & self.varying:
            return None
        try:
            with np.errstate(all="ignore"):
                return _Num(ArrayEvaluator().value(node, self.numbers))
        except (DGraphError, ArithmeticError, ValueError, TypeError, IndexError) as e:
            raise GiveUp(f"constant not evaluated: {e}") from None

    def _shape(self, node: ir.Node) -> tuple[int, ...]:
        try:
            return tuple(self.inference.shape(node))
        except (DGraphError, ValueError, TypeError, IndexError) as e:
            raise GiveUp(f"no shape: {e}") from None

    def _combine(self, node: ir.Node, values: list[Any]) -> Any:
        kind = type(node).__name__
        rule = getattr(self, f"_node_{kind}", None)
        out = None if rule is None else rule(node, values)
        if out is None:  # not modelled: unknowns of its own
            if isinstance(node, ir.Seq):
                return values
            if isinstance(node, (ir.Loop, ir.While, ir.Cond, ir.Dict)):
                return _OPAQUE  # its parts (Item) are unknowns of their own
            out = self.fresh(self._shape(node))
        return self._spent(out) if isinstance(out, PolyArray) else out

    def _node_Name(self, node: ir.Name, values: list) -> Any:
        name = node.id
        if name in self.stored:
            return None
        if name in self.values:
            return self.values[name]
        if name in self.targets:
            raise GiveUp(f"{name} read before it is computed")
        return atom_array(self.atom(("argument", name)), self._shape(node))

    def _node_BinOp(self, node: ir.BinOp, values: list) -> Any:
        a, b = values
        shape = self._broadcast_shape(a, b)
        if node.op == "+":
            return add(self._poly(a), self._poly(b))
        if node.op == "-":
            return add(self._poly(a), negate(self._poly(b)))
        if node.op == "*":
            return multiply(self._poly(a), self._poly(b))
        if node.op == "/":
            return self._divide(a, b, shape)
        if node.op == "**":
            return self._power(a, b, shape)
        return self.apply(("op", node.op), [a, b], shape)

    def _node_UnaryOp(self, node: ir.UnaryOp, values: list) -> Any:
        if node.op == "-":
            return negate(self._poly(values[0]))
        return self.apply(("unary", node.op), values, self._poly(values[0]).shape)

    def _node_AsType(self, node: ir.AsType, values: list) -> Any:
        p = self._poly(values[0])
        return p if node.dtype == "float" else self.apply(("astype", node.dtype), [p], p.shape)

    def _node_Formula(self, node: ir.Formula, values: list) -> Any:
        polys = [self._poly(v) for v in values]
        shape = tuple(np.broadcast_shapes(*(p.shape for p in polys))) if polys else ()
        known = {s: broadcast(p, shape) for (s, _), p in zip(node.operands, polys, strict=True)}
        formula = _Formula(self, known, shape)
        return formula.value(node.expr)

    def _node_Call(self, node: ir.Call, values: list) -> Any:
        func = node.func
        args = values[: len(node.args)]
        keywords = dict(zip((k for k, _ in node.keywords), values[len(node.args) :], strict=True))
        if func in _MOVES:
            return self._moved(node, args, keywords)
        if func == "pad":
            return self._pad(args, keywords)
        if func == "einsum":
            return self._einsum(args)
        if func == "sum":
            return self._sum(args, keywords)
        if func == "where" and len(args) == 3 and not keywords:
            return self._where(*args)
        name = _CALL_NAMES.get(func, func)
        if name in ("add", "subtract", "multiply", "negative", "square", "/", "**"):
            if keywords:
                return None
            polys = [self._poly(a) for a in args]
            if name == "add":
                return add(*polys)
            if name == "subtract":
                return add(polys[0], negate(polys[1]))
            if name == "multiply":
                return multiply(*polys)
            if name == "negative":
                return negate(polys[0])
            if name == "square":
                return multiply(polys[0], polys[0])
            shape = self._broadcast_shape(*args)
            return self._divide(*args, shape) if name == "/" else self._power(*args, shape)
        if _elementwise(func) and not keywords and args:
            return self.apply(("call", name), args, self._broadcast_shape(*args))
        return None

    def _node_Index(self, node: ir.Index, values: list) -> Any:
        data, items = values[0], values[1:]
        if any(isinstance(i, PolyArray) for i in items):
            return None  # a gather at indices that vary
        p = self._poly(data)
        if not all(isinstance(i, _Num) for i in items):
            return None
        key = [i.value for i in items]
        codes = np.arange(p.size, dtype=np.int64).reshape(p.shape)
        picked = np.asarray(codes[key[0] if len(key) == 1 and not isinstance(key[0], slice)
                                  else tuple(key)])  # fmt: skip
        return gather(p, picked.reshape(-1), tuple(picked.shape))

    def _node_Scatter(self, node: ir.Scatter, values: list) -> Any:
        flat, data = values
        if not isinstance(flat, _Num):
            return None
        where = np.asarray(flat.value, dtype=np.int64).reshape(-1)
        p = vector(broadcast(self._poly(data), np.shape(flat.value)))
        return place(p, where, node.size)

    def _node_ScatterAdd(self, node: ir.ScatterAdd, values: list) -> Any:
        total = vector(self._poly(values[0]))
        rest = values[1:]
        for flat, data in zip(rest[::2], rest[1::2], strict=True):
            if not isinstance(flat, _Num):
                return None
            where = np.asarray(flat.value, dtype=np.int64).reshape(-1)
            part = vector(broadcast(self._poly(data), np.shape(flat.value)))
            total = add(total, place(part, where, total.size))
        return total

    def _node_SegmentSum(self, node: ir.SegmentSum, values: list) -> Any:
        data, ids = values
        if not isinstance(ids, _Num):
            return None
        ids = np.asarray(ids.value, dtype=np.int64).reshape(-1)
        return segment_sum(vector(broadcast(self._poly(data), (ids.size,))), ids, node.n)

    def _node_Entries(self, node: ir.Entries, values: list) -> Any:
        polys = [self._poly(v) for v in values]
        if any(p.size != 1 for p in polys):
            return None
        n = len(polys)
        total = constant(np.zeros(n))
        for k, p in enumerate(polys):
            total = add(total, place(vector(p), np.array([k]), n))
        return _reshaped(total, node.shape)

    # -- operations -----------------------------------------------------------------------

    def _broadcast_shape(self, *values: Any) -> tuple[int, ...]:
        shapes = [self._poly(v).shape for v in values]
        return tuple(np.broadcast_shapes(*shapes))

    def _divide(self, a: Any, b: Any, shape: tuple[int, ...]) -> PolyArray:
        """``a / b``: a product with a power of two, else with the unknowns ``1/b``."""
        if isinstance(b, _Num):
            d = np.asarray(b.value, dtype=float)
            if d.size and np.all(np.isfinite(d)) and np.all(d != 0):
                mantissa, _ = np.frexp(d)
                if np.all(np.abs(mantissa) == 0.5):  # 1/d is exact
                    return multiply(self._poly(a), constant(1.0 / d))
        recip = self.apply(("call", "reciprocal"), [b], self._poly(b).shape)
        return multiply(self._poly(a), recip)

    def _power(self, a: Any, b: Any, shape: tuple[int, ...]) -> PolyArray:
        """``a ** b``: a product for a small whole exponent, else an unknown."""
        if isinstance(b, _Num):
            e = np.unique(np.asarray(b.value, dtype=float))
            if e.size == 1 and float(e[0]).is_integer() and 0 < abs(e[0]) <= MAX_DEGREE:
                k = int(e[0])
                base = self._poly(a)
                if k < 0:
                    base = self.apply(("call", "reciprocal"), [base], base.shape)
                out = base
                for _ in range(abs(k) - 1):
                    out = multiply(out, base)
                return broadcast(out, shape)
        return self.apply(("op", "**"), [a, b], shape)

    def _where(self, condition: Any, a: Any, b: Any) -> PolyArray:
        """``where(c, a, b)``: a choice per entry where c reads no input, else an unknown."""
        shape = self._broadcast_shape(condition, a, b)
        if not isinstance(condition, _Num):
            return self.apply(("call", "where"), [condition, a, b], shape)
        chosen = np.broadcast_to(np.asarray(condition.value, dtype=bool), shape).reshape(-1)
        left = restricted(vector(broadcast(self._poly(a), shape)), chosen)
        right = restricted(vector(broadcast(self._poly(b), shape)), ~chosen)
        return _reshaped(add(left, right), shape)

    def _moved(self, node: ir.Call, args: list, keywords: dict) -> Any:
        """An operation that only moves entries: applied to each entry's number, then
        each entry of the result is the polynomial of the entry it holds."""
        if node.func in ("concatenate", "stack"):
            if not args or not isinstance(args[0], list):
                return None
            pieces, rest = args[0], args[1:]
        else:
            pieces, rest = args[:1], args[1:]
        if any(isinstance(v, (PolyArray, list)) for v in [*rest, *keywords.values()]):
            return None
        polys = [self._poly(p) for p in pieces]
        offset, coded = 0, []
        for p in polys:
            coded.append(np.arange(offset, offset + p.size, dtype=np.int64).reshape(p.shape))
            offset += p.size
        first = coded if node.func in ("concatenate", "stack") else coded[0]
        plain = {k: v.value for k, v in keywords.items()}
        if node.func in ("asarray", "array"):
            plain.pop("dtype", None)
        try:
            codes = np.asarray(getattr(np, node.func)(first, *(v.value for v in rest), **plain))
        except (TypeError, ValueError, IndexError) as e:
            raise GiveUp(f"{node.func}: {e}") from None
        if codes.dtype != np.int64:
            return None
        whole = _joined(polys)
        return gather(whole, codes.reshape(-1), tuple(codes.shape))

    def _pad(self, args: list, keywords: dict) -> Any:
        if len(args) != 2 or not isinstance(args[1], _Num):
            return None
        mode = keywords.get("mode")
        if mode is not None and (not isinstance(mode, _Num) or mode.value != "constant"):
            return None
        fill = keywords.get("constant_values", _Num(0.0))
        if not isinstance(fill, _Num) or np.size(fill.value) != 1:
            return None
        p = self._poly(args[0])
        codes = np.pad(np.arange(1, p.size + 1, dtype=np.int64).reshape(p.shape), args[1].value)
        inside = codes.reshape(-1) > 0
        out = gather(p, np.maximum(codes.reshape(-1) - 1, 0), (codes.size,))
        out = restricted(out, inside)
        value = float(np.asarray(fill.value, dtype=float).reshape(-1)[0])
        if value != 0.0:
            out = add(out, constant(np.where(inside, 0.0, value)))
        return _reshaped(out, tuple(codes.shape))

    def _sum(self, args: list, keywords: dict) -> Any:
        if len(args) != 1 or set(keywords) - {"axis", "keepdims"}:
            return None
        if any(not isinstance(v, _Num) for v in keywords.values()):
            return None
        p = self._poly(args[0])
        axis = keywords.get("axis", _Num(None)).value
        keep = bool(keywords.get("keepdims", _Num(False)).value)
        axes = range(len(p.shape)) if axis is None else np.atleast_1d(axis).tolist()
        axes = {int(a) % max(1, len(p.shape)) for a in axes}
        kept = tuple(1 if k in axes else n for k, n in enumerate(p.shape))
        ids = np.broadcast_to(np.arange(math.prod(kept), dtype=np.int64).reshape(kept), p.shape)
        shape = kept if keep else tuple(n for k, n in enumerate(p.shape) if k not in axes)
        return _reshaped(segment_sum(vector(p), ids.reshape(-1), math.prod(kept)), shape)

    def _einsum(self, args: list) -> Any:
        """A contraction: each point of the index space a product of the operands'
        entries there, summed into its result entry."""
        if not args or not isinstance(args[0], _Num) or not isinstance(args[0].value, str):
            return None
        spec = args[0].value.replace(" ", "")
        polys = [self._poly(a) for a in args[1:]]
        sources, arrow, result = spec.partition("->")
        parts = sources.split(",")
        if not arrow or "." in spec or len(parts) != len(polys):
            return None
        extent: dict[str, int] = {}
        for letters, p in zip(parts, polys, strict=True):
            if len(letters) != len(p.shape):
                return None
            for c, n in zip(letters, p.shape, strict=True):
                extent.setdefault(c, n)
        letters = sorted(extent)
        space = math.prod(extent[c] for c in letters)
        if space > 4_000_000:
            raise GiveUp("einsum too large")
        grid = np.indices([extent[c] for c in letters], dtype=np.int64).reshape(len(letters), -1)
        axis = {c: grid[k] for k, c in enumerate(letters)}

        def flat_index(subscripts: str, shape: tuple[int, ...]) -> np.ndarray:
            index = np.zeros(space, dtype=np.int64)
            for c, stride in zip(subscripts, _strides(shape), strict=True):
                index += axis[c] * stride
            return index

        product = None
        for letters_k, p in zip(parts, polys, strict=True):
            factor = gather(p, flat_index(letters_k, p.shape), (space,))
            product = factor if product is None else multiply(product, factor)
        shape = tuple(extent[c] for c in result)
        ids = flat_index(result, shape)
        return _reshaped(segment_sum(product, ids, math.prod(shape)), shape)


class _Formula:
    """A :class:`~dgraph.codegen.ir.Formula`'s sympy expression over polynomial arrays."""

    def __init__(self, values: PolyValues, operands: dict, shape: tuple[int, ...]) -> None:
        self.values, self.shape = values, shape
        self.done: dict = dict(operands)

    def value(self, expr: sympy.Basic) -> PolyArray:
        return ir.bottom_up(expr, self._combine, self.done)

    def _combine(self, e: sympy.Basic, args: list) -> Any:
        v = self.values
        if e.is_Symbol:
            raise GiveUp(f"the formula reads {e}, unbound")
        if e in (sympy.oo, -sympy.oo, sympy.nan, sympy.zoo):
            return constant(np.full(self.shape, np.nan))  # tainted: nothing claimed
        if e.is_Number:
            exact = _double(e)
            if exact is not None:
                return broadcast(constant(np.asarray(exact)), self.shape)
            return v.apply(("number", sympy.srepr(e)), [], self.shape)
        if isinstance(e, sympy.Expr) and e.is_number and not e.free_symbols:
            return v.apply(("number", sympy.srepr(e)), [], self.shape)
        if e.is_Add:
            out = args[0]
            for a in args[1:]:
                out = add(out, a)
            return v._spent(out)
        if e.is_Mul:
            out = args[0]
            for a in args[1:]:
                out = multiply(out, a)
            return v._spent(out)
        if e.is_Pow and e.exp.is_Integer and 0 < abs(int(e.exp)) <= MAX_DEGREE:
            base = args[0]
            if e.exp < 0:
                base = v.apply(("call", "reciprocal"), [base], self.shape)
            out = base
            for _ in range(abs(int(e.exp)) - 1):
                out = multiply(out, base)
            return v._spent(out)
        if isinstance(e, sympy.Function) and all(isinstance(a, PolyArray) for a in args):
            name = type(e).__name__
            return v.apply(("call", _SYMPY_NAMES.get(name, name)), args, self.shape)
        if not isinstance(e, sympy.Expr) and not isinstance(e, sympy.logic.boolalg.Boolean):
            return None  # a part of a larger expression (a Piecewise's pair), read by it
        return self._expression(e)

    def _expression(self, e: sympy.Basic) -> PolyArray:
        """A subexpression that is no sum, product or function of sums and products: one
        unknown per entry, numbered by its text and its operands' polynomials."""
        free = sorted(e.free_symbols, key=str)
        if any(s not in self.done for s in free):
            raise GiveUp(f"the formula reads {free}, unbound")
        names = {s: sympy.Symbol(f"_operand{k}") for k, s in enumerate(free)}
        key = ("expression", sympy.srepr(e.xreplace(names)))
        return self.values.apply(key, [self.done[s] for s in free], self.shape)


def _double(e: sympy.Number) -> float | None:
    """A finite sympy number as the double it is exactly, else None."""
    if e.is_Rational:
        exact = Fraction(int(e.p), int(e.q))
    elif e.is_Float:
        sign, mantissa, exponent, _ = e._mpf_
        if not mantissa:
            return 0.0 if e == 0 else None
        exact = Fraction(mantissa) * Fraction(2) ** exponent
        exact = -exact if sign else exact
    else:
        return None
    try:
        value = float(exact)
    except OverflowError:
        return None
    return value if math.isfinite(value) and Fraction(value) == exact else None


def _elementwise(func: str) -> bool:
    """Whether a called array function is a NumPy or SciPy ufunc (elementwise): not a
    generalized one (``matmul``'s signature ``(n,k),(k,m)->(n,m)``)."""
    import scipy.special

    module, _, short = func.rpartition(".")
    function = getattr(scipy.special if module == "special" else np, short, None)
    if module not in ("", "special") or not isinstance(function, np.ufunc):
        return False
    return function.signature is None


def _distinct_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of equal-length integer ``columns`` told apart: the first index of each
    distinct row, and each row's number among them (one column's distinct values at a
    time, numbered into one key while the key fits; a sort of whole rows beyond)."""
    key = np.zeros(columns[0].size, dtype=np.int64)
    room = 1
    for c in columns:
        values, inverse = np.unique(c, return_inverse=True)
        if room * values.size >= 1 << 62:
            _, key = np.unique(np.stack([key, inverse.reshape(-1)], axis=1), axis=0,
                               return_inverse=True)  # fmt: skip
            key, room = key.reshape(-1).astype(np.int64), int(key.max()) + 1
        key = key * values.size + inverse.reshape(-1)
        room *= values.size
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return strides[::-1]


def _reshaped(p: PolyArray, shape: tuple[int, ...]) -> PolyArray:
    return PolyArray(tuple(shape), p.pos, p.fac, p.coef, p.taint)


def _joined(polys: list[PolyArray]) -> PolyArray:
    """The entries of ``polys`` one after another in one vector."""
    if len(polys) == 1:
        return vector(polys[0])
    width = max(p.fac.shape[1] for p in polys)
    offsets = np.cumsum([0, *(p.size for p in polys)])
    facs = []
    for p in polys:
        pad = np.full((p.rows, width - p.fac.shape[1]), -1, dtype=np.int64)
        facs.append(np.hstack([pad, p.fac]))
    return PolyArray(
        (int(offsets[-1]),),
        np.concatenate([p.pos + o for p, o in zip(polys, offsets, strict=False)]),
        np.vstack(facs),
        np.concatenate([p.coef for p in polys]),
        np.concatenate([p.taint for p in polys]),
    )
