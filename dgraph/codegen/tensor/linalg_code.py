"""``cholesky``, ``eigh``, ``triangular_solve``, ``linear_solve`` and the determinants and
decompositions, ``lu`` and its pivots and permutation among them
(:mod:`dgraph.blocks.linalg`, :mod:`dgraph.blocks.decompositions`) as array statements: the
same formulas, over calls of the array module (``matmul``, ``linalg.inv``, ``tril``, ...),
so that NumPy and JAX print them; the C printers have no such calls and refuse them in one
line."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ...blocks.linalg import forward, tangent
from ..ir import BinOp, Call, Const, Index, Node, Seq, UnaryOp

__all__ = ["linalg_forward", "linalg_values"]


def _node(x: Node | float) -> Node:
    return Const(float(x)) if isinstance(x, (int, float)) else x


def _exact(x: Node | float) -> Node:
    """A number as written: an int stays one (a row, a position)."""
    return Const(x) if isinstance(x, (int, float)) else x


class IROps:
    """The array vocabulary of :mod:`dgraph.blocks.linalg`'s formulas, as IR nodes."""

    @staticmethod
    def matmul(a: Node, b: Node) -> Node:
        return Call("matmul", (a, b))

    @staticmethod
    def inv(a: Node) -> Node:
        return Call("linalg.inv", (a,))

    @staticmethod
    def cholesky(a: Node) -> Node:
        return Call("linalg.cholesky", (a,))

    @staticmethod
    def eigh(a: Node) -> Node:
        return Call("linalg.eigh", (a,))

    @staticmethod
    def det(a: Node) -> Node:
        return Call("linalg.det", (a,))

    @staticmethod
    def slogdet(a: Node) -> Node:
        return Call("linalg.slogdet", (a,))

    @staticmethod
    def qr(a: Node) -> Node:
        return Call("linalg.qr", (a,))

    @staticmethod
    def svd(a: Node) -> Node:
        return Call("linalg.svd", (a,), (("full_matrices", Const(False)),))

    @staticmethod
    def part(pair: Node, i: int) -> Node:
        return Index(pair, (Const(i),))

    @staticmethod
    def column(w: Node) -> Node:
        return Call("expand_dims", (w, Const(-1)))

    @staticmethod
    def row(w: Node) -> Node:
        return Call("expand_dims", (w, Const(-2)))

    @staticmethod
    def last_sum(a: Node) -> Node:
        return Call("sum", (a,), (("axis", Const(-1)),))

    @staticmethod
    def div(a: Node | float, b: Node) -> Node:
        return BinOp("/", _node(a), b)

    @staticmethod
    def tril(a: Node, k: int = 0) -> Node:
        return Call("tril", (a,), (("k", Const(k)),) if k else ())

    @staticmethod
    def triu(a: Node, k: int = 0) -> Node:
        return Call("triu", (a,), (("k", Const(k)),) if k else ())

    @staticmethod
    def eye(n: int) -> Node:
        return Call("eye", (Const(int(n)),))

    @staticmethod
    def swap(a: Node) -> Node:
        return Call("swapaxes", (a, Const(-1), Const(-2)))

    @staticmethod
    def mul(a: Node, b: Node | float) -> Node:
        return BinOp("*", a, _node(b))

    @staticmethod
    def add(a: Node, b: Node) -> Node:
        return BinOp("+", a, b)

    @staticmethod
    def sub(a: Node, b: Node) -> Node:
        return BinOp("-", a, b)

    @staticmethod
    def neg(a: Node) -> Node:
        return UnaryOp("-", a)

    @staticmethod
    def abs(a: Node) -> Node:
        return Call("abs", (a,))

    @staticmethod
    def arange(n: int) -> Node:
        return Call("arange", (Const(int(n)),))

    @staticmethod
    def argmax(a: Node) -> Node:
        return Call("argmax", (a,))

    @staticmethod
    def where(c: Node, a: Node | float, b: Node | float) -> Node:
        return Call("where", (c, _exact(a), _exact(b)))

    @staticmethod
    def eq(a: Node, b: Node | float) -> Node:
        return BinOp("==", a, _exact(b))

    @staticmethod
    def gt(a: Node, b: Node | float) -> Node:
        return BinOp(">", a, _exact(b))

    @staticmethod
    def ge(a: Node, b: Node | float) -> Node:
        return BinOp(">=", a, _exact(b))

    @staticmethod
    def both(a: Node, b: Node) -> Node:
        return Call("logical_and", (a, b))

    @staticmethod
    def take(a: Node, i: Node | int, axis: int) -> Node:
        return Call("take", (a, _exact(i)), (("axis", Const(int(axis))),))

    @staticmethod
    def stack(items: Sequence[Node]) -> Node:
        return Call("stack", (Seq(tuple(items)),))


def linalg_forward(op, args: Sequence[Node], emit: Callable[[Node], Node] | None = None) -> Node:
    """The result, as one expression (``lu``'s steps each assigned by ``emit``)."""
    return forward(op, args, IROps, emit)


def linalg_values(op, k: int, args: Sequence[Node], shapes, emit: Callable[[Node], Node]) -> Node:
    """The dense block's values: the tangent map applied to every basis direction,
    C order over (result axes, operand axes)."""
    mine = tuple(shapes[k])
    size = math.prod(mine)
    basis = Call("reshape", (Call("eye", (Const(size),)), Const((size, *mine))))
    result = emit(linalg_forward(op, args, emit))
    out = emit(tangent(op, k, args, basis, result, IROps, emit))
    moved = Call("moveaxis", (out, Const(0), Const(-1)))
    return Call("reshape", (moved, Const((*op.shape, *mine))))
