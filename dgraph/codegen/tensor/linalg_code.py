"""``cholesky``, ``eigh``, ``triangular_solve``, ``linear_solve`` and the determinants and
decompositions, ``lu`` and its pivots and permutation among them
(:mod:`dgraph.blocks.linalg`, :mod:`dgraph.blocks.decompositions`) as array statements: the
same formulas, over calls of the array module (``matmul``, ``linalg.inv``, ``tril``, ...),
so that NumPy and JAX print them; the C values
(:mod:`dgraph.codegen.tensor.c_values`) print ``linalg.inv``, ``cholesky``, ``det`` and
``slogdet`` as calls of :mod:`dgraph.codegen.c_linalg`'s helpers and refuse ``eigh``,
``qr`` and ``svd`` in one line. A triangle's inverse applied (:meth:`IROps.solve_left`)
is its inverse's product in NumPy (faster there than a triangular solve: RESULTS.md, inv22) and
``jax.scipy.linalg.solve_triangular`` in JAX (:class:`JaxIROps`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ...blocks.decompositions import cofactors
from ...blocks.linalg import batch_rank, batched_values, by_rows, cotangent, forward, tangent
from ...errors import DGraphError
from ..ir import (
    ArrayStatement,
    BinOp,
    Call,
    Cond,
    Const,
    Index,
    Item,
    LoopBody,
    Name,
    Node,
    Seq,
    UnaryOp,
)

__all__ = ["IROps", "JaxIROps", "linalg_forward", "linalg_values", "vocabulary"]


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
    def eigh(a: Node, uplo: str = "L") -> Node:
        return Call("linalg.eigh", (a,), () if uplo == "L" else (("UPLO", Const(uplo)),))

    @staticmethod
    def eig(a: Node) -> Node:
        return Call("linalg.eig", (a,))

    @staticmethod
    def sqrtm(a: Node) -> Node:
        """SciPy's principal root, its real part (JAX's is complex)."""
        return Call("real", (Call("scipy.linalg.sqrtm", (a,)),))

    @staticmethod
    def sqrt(a: Node) -> Node:
        return Call("sqrt", (a,))

    @staticmethod
    def log(a: Node) -> Node:
        return Call("log", (a,))

    @staticmethod
    def real(a: Node) -> Node:
        return Call("real", (a,))

    @staticmethod
    def imag(a: Node) -> Node:
        return Call("imag", (a,))

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
    def last_prod(a: Node) -> Node:
        return Call("prod", (a,), (("axis", Const(-1)),))

    order = 0  # the operand's n (an n×n matrix): :func:`vocabulary` sets it
    emit: Callable[[Node], Node] | None = None  # names a statement: :func:`vocabulary`

    @classmethod
    def cofactors(cls, a: Node) -> Node:
        """``adj(A)ᵀ``: one :class:`~dgraph.codegen.ir.Cond` on ``det A == 0`` run at run
        time, ``det A·A⁻ᵀ`` where it is not (one LU, the cost of Jacobi's formula), the SVD
        (:func:`dgraph.blocks.decompositions.cofactors`) where it is (an exactly zero
        pivot: ``linalg.inv`` would raise or give NaN); the SVD alone without ``emit``."""
        if cls.order < 1:
            raise DGraphError("the cofactors of a matrix of unknown order")
        if cls.emit is None:
            return cofactors(a, cls.order, cls)
        det = cls.emit(cls.det(a))
        index = Call("where", (BinOp("==", det, Const(0.0)), Const(1), Const(0)))
        matrix, scale = Name("_cof_a"), Name("_cof_d")
        inverse = BinOp("*", scale, cls.swap(cls.inv(matrix)))
        branches = tuple(
            LoopBody((matrix.id, scale.id), (ArrayStatement("_cof", value),), ("_cof",))
            for value in (inverse, cofactors(matrix, cls.order, cls))
        )
        return Item(cls.emit(Cond(index, (a, det), branches)), 0)

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
    def scale(a: Node, b: Node) -> Node:
        return BinOp("*", a, b)

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
    def le(a: Node, b: Node | float) -> Node:
        return BinOp("<=", a, _exact(b))

    @staticmethod
    def both(a: Node, b: Node) -> Node:
        return Call("logical_and", (a, b))

    @staticmethod
    def take(a: Node, i: Node | int, axis: int) -> Node:
        return Call("take", (a, _exact(i)), (("axis", Const(int(axis))),))

    @staticmethod
    def stack(items: Sequence[Node]) -> Node:
        return Call("stack", (Seq(tuple(items)),))

    @staticmethod
    def reshape(a: Node, shape: Sequence[int]) -> Node:
        return Call("reshape", (a, Const(tuple(int(n) for n in shape))))

    @staticmethod
    def moveaxis(a: Node, source: int, destination: int) -> Node:
        return Call("moveaxis", (a, Const(int(source)), Const(int(destination))))

    @classmethod
    def solve_left(cls, t: Node, b: Node, lower: bool, trans: bool) -> Node:
        """``op(T)⁻¹·b`` by T's inverse (one ``linalg.inv`` of T, shared by the module's
        common subexpressions), as :meth:`dgraph.blocks.linalg.NumPyOps.solve_left`."""
        inverse = cls.inv(t)
        return cls.matmul(cls.swap(inverse) if trans else inverse, b)

    @classmethod
    def solve_right(cls, b: Node, t: Node, lower: bool, trans: bool) -> Node:
        """``b·op(T)⁻¹``, as :meth:`solve_left`."""
        inverse = cls.inv(t)
        return cls.matmul(b, cls.swap(inverse) if trans else inverse)


class JaxIROps(IROps):
    """:class:`IROps` for JAX: a triangle's inverse applied by
    ``jax.scipy.linalg.solve_triangular`` (a stack of right-hand sides broadcast)."""

    @staticmethod
    def solve_left(t: Node, b: Node, lower: bool, trans: bool) -> Node:
        keywords = (("lower", Const(bool(lower))), ("trans", Const(int(trans))))
        return Call("scipy.linalg.solve_triangular", (t, b), keywords)

    @classmethod
    def solve_right(cls, b: Node, t: Node, lower: bool, trans: bool) -> Node:
        """``b·op(T)⁻¹ = (op(T)⁻ᵀ·bᵀ)ᵀ``."""
        return cls.swap(cls.solve_left(t, cls.swap(b), lower, not trans))

    @classmethod
    def cofactors(cls, a: Node) -> Node:
        """``adj(A)ᵀ`` as :meth:`IROps.cofactors`, ``det A`` and ``A⁻ᵀ`` from one
        ``jax.scipy.linalg.lu_factor`` (``jnp.linalg.det`` writes n ≤ 3 out: its rounding
        near a singular matrix is not the inverse's, and their product would not be the
        cofactors)."""
        if cls.order < 1 or cls.emit is None:
            return super().cofactors(a)
        n = cls.order
        factors = cls.emit(Call("scipy.linalg.lu_factor", (a,)))
        lu, pivots = Index(factors, (Const(0),)), Index(factors, (Const(1),))
        swapped = BinOp("!=", pivots, Call("arange", (Const(n),)))  # a row swap: -1
        sign = Call("prod", (Call("where", (swapped, Const(-1.0), Const(1.0))),))
        det = cls.emit(BinOp("*", sign, Call("prod", (Call("diagonal", (lu,)),))))
        index = Call("where", (BinOp("==", det, Const(0.0)), Const(1), Const(0)))
        names = ("_cof_a", "_cof_d", "_cof_lu", "_cof_p")
        pair = Seq((Name(names[2]), Name(names[3])))
        solved = Call(
            "scipy.linalg.lu_solve", (pair, Call("eye", (Const(n),))), (("trans", Const(1)),)
        )
        branches = tuple(
            LoopBody(names, (ArrayStatement("_cof", value),), ("_cof",))
            for value in (BinOp("*", Name(names[1]), solved), cofactors(Name(names[0]), n, cls))
        )
        return Item(cls.emit(Cond(index, (a, det, lu, pivots), branches)), 0)


def vocabulary(
    lang: str, operand: Sequence[int] = (), emit: Callable[[Node], Node] | None = None
) -> type[IROps]:
    """The formulas' vocabulary for a target language (``python``: NumPy; ``jax``); of an
    n×n ``operand`` (its shape) knowing n, and with ``emit`` naming statements (``det``'s
    cofactors: an n×n mask, a run-time choice of formula)."""
    base = JaxIROps if lang == "jax" else IROps
    if len(operand) < 2:
        return base
    bound = {"order": int(operand[-1]), "emit": None if emit is None else staticmethod(emit)}
    return type(base.__name__, (base,), bound)


def linalg_forward(
    op, args: Sequence[Node], emit: Callable[[Node], Node] | None = None, lang: str = "python"
) -> Node:
    """The result, as one expression (``lu``'s steps each assigned by ``emit``)."""
    return forward(op, args, vocabulary(lang), emit)


def linalg_values(
    op, k: int, args: Sequence[Node], shapes, emit: Callable[[Node], Node], lang: str = "python"
) -> Node:
    """The dense block's values: the tangent map applied to every basis direction (the
    cotangent map to every basis row of the result where
    :func:`~dgraph.blocks.linalg.by_rows`), C order over (result axes, operand axes); of
    a stack, :func:`~dgraph.blocks.linalg.batched_values`."""
    mine = tuple(shapes[k])
    result = emit(linalg_forward(op, args, emit, lang))
    if batch_rank(op):  # a stack's: ``det``'s cofactors by the SVD (no branch per matrix)
        return batched_values(op, k, args, shapes, result, vocabulary(lang, shapes[0]))
    if by_rows(op, k, shapes):
        size = math.prod(op.shape)
        basis = Call("reshape", (Call("eye", (Const(size),)), Const((size, *op.shape))))
        out = emit(cotangent(op, k, args, basis, result, vocabulary(lang, shapes[0], emit)))
        return Call("reshape", (out, Const((*op.shape, *mine))))
    size = math.prod(mine)
    basis = Call("reshape", (Call("eye", (Const(size),)), Const((size, *mine))))
    out = emit(tangent(op, k, args, basis, result, vocabulary(lang, shapes[0], emit), emit))
    moved = Call("moveaxis", (out, Const(0), Const(-1)))
    return Call("reshape", (moved, Const((*op.shape, *mine))))
