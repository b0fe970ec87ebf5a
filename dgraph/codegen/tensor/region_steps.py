"""Pieces of the code of a region's step, shared by loops and branches: a body output no
derivative reaches as a node, a body statement without NumPy's copies, the seeds of the
tangent sweep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...blocks.arrays import ArrayOp
from ...errors import DGraphError, InputError
from .. import ir
from ..ir import ArrayStatement, Call, Const, Name, Node
from .forward import forward_expression

__all__ = [
    "MATRIX",
    "body_operation",
    "colour_seed",
    "identity_seed",
    "matrix_product",
    "reshaped_to",
    "without_copies",
]

MATRIX = Const("ab,bw->aw")
TRANSPOSED = Const("ab,aw->bw")
BLAS_ENTRIES = 4096  # a step's matrix of at least this many entries: NumPy's einsum through BLAS


def matrix_product(matrix: Node, seed: Node, entries: int, transposed: bool = False) -> Node:
    """``matrix · seed`` (``einsum("ab,bw->aw")``; ``matrixᵀ · seed`` where ``transposed``,
    an adjoint sweep's), through BLAS (``optimize=True``) where the matrix has
    :data:`BLAS_ENTRIES` entries or more: NumPy's einsum of two operands runs its own loops
    otherwise, ten and more times slower than a matrix product at n = 100, while
    ``optimize`` costs tens of microseconds a call, more than a small product. (The
    NumPy printer writes the untransposed product as ``numpy.matmul``, BLAS at every
    size: :mod:`dgraph.codegen.printing`.)"""
    optimize = (("optimize", Const(True)),) if entries >= BLAS_ENTRIES else ()
    return Call("einsum", (TRANSPOSED if transposed else MATRIX, matrix, seed), optimize)


def invariant(
    constants, names: list[str], operands: list[Node], fresh: Callable[[], str]
) -> Callable[[Any], Node]:
    """:func:`body_operation`'s ``arrays``: a constant array a while loop's condition reads
    (``max|z + a·exp(z) − x| > tol``) as a module constant passed to the loop, a fresh
    name appended to ``names`` and the constant to ``operands``."""

    def named(value: Any) -> Node:
        names.append(fresh())
        operands.append(constants.add(np.asarray(value)))
        return Name(names[-1])

    return named


def body_operation(
    op, arguments: dict[str, str], shape, where: str, arrays: Callable[[Any], Node] | None = None
) -> Node:
    """A while loop's condition (a nested operation over the carries and the condition's
    constants) or a body output that is a number (or a constant array of one number, the
    zeros a gradient's loop resets a carry to), as a node over their argument names.
    ``arrays`` names a constant array the operation reads (a condition's folded data,
    ``max|z + a·exp(z) − x| > tol``): a loop invariant of the caller's; without it such an
    array is refused.
    A body's other outputs no derivative reaches (a counter, a mask, a nested cond's or
    loop's value) are computed by the body's program
    (:func:`~dgraph.codegen.tensor.module.extra_values`)."""
    if isinstance(op, str):
        if op not in arguments:
            raise DGraphError(f"{where}: a loop output computed from the body's vertices")
        return Name(arguments[op])
    if not isinstance(op, ArrayOp):  # a Const: one number, or an array of one (zeros)
        value = np.asarray(op.value)
        if value.size == 0 or not np.array_equal(value, np.full_like(value, value.flat[0]), True):
            raise DGraphError(f"{where}: a loop output that is a constant array")
        number = value.flat[0].item()
        return Call("full", (Const(tuple(shape)), Const(number)))
    pending: list[tuple[Any, bool]] = [(op, False)]
    done: dict[int, Node] = {}
    while pending:  # innermost first, without recursion
        current, ready = pending.pop()
        if id(current) in done:
            continue
        if current.primitive in ("cond", "loop"):  # a region: a program, not a node
            what = "cond or switch" if current.primitive == "cond" else "loop"
            raise InputError(
                f"{where}: a {what} inside a while_loop's condition is not printed in"
                " generated code (compute it in the loop's body and carry its result)"
            )
        inner = [x for x in current.operands if isinstance(x, ArrayOp)]
        if not ready and inner:
            pending.append((current, True))
            pending += [(x, False) for x in inner]
            continue
        args, shapes = [], []
        for x in current.operands:
            if isinstance(x, ArrayOp):
                args.append(done[id(x)])
                shapes.append(tuple(x.shape))
            elif isinstance(x, str):
                args.append(body_operation(x, arguments, (), where))
                shapes.append(())
            else:
                value = np.asarray(x.value)
                if value.size == 1:
                    args.append(Const(value.reshape(()).item()))
                elif arrays is not None:
                    args.append(arrays(value))
                else:
                    raise DGraphError(f"{where}: a loop output reading a constant array")
                shapes.append(tuple(value.shape))
        done[id(current)] = forward_expression(current, args, shapes, top=False)
    return done[id(op)]


def without_copies(statement: ArrayStatement) -> ArrayStatement:
    """The body's value outputs without NumPy's defensive copies (``array``): nothing
    writes into a loop's values, and the C values read ``asarray`` as a view."""
    copies = {
        n: Call("asarray", n.args, n.keywords)
        for n in ir.walk(statement.value)
        if isinstance(n, Call) and n.func == "array"
    }
    if not copies:
        return statement
    return ArrayStatement(statement.target, ir.substituted(statement.value, copies), statement.at)


def reshaped_to(node: Node, shape: tuple[int, ...]) -> Node:
    if isinstance(node, Const):
        return node
    return Call("reshape", (node, Const(tuple(shape))))


def identity_seed(size: int, width: int, at: int, active: bool) -> np.ndarray:
    """Rows ``size`` of the identity at column ``at`` of ``width`` (zeros: inactive)."""
    return colour_seed(at + np.arange(size) if active else np.zeros(0, np.int64), width, size)


def colour_seed(columns, width: int, size: int) -> np.ndarray:
    """Rows ``size`` of the identity's ``columns`` (one a row; none: zeros), ``width``
    wide: an operand's seed, each entry's column its colour in a compressed sweep (-1: a
    row of zeros, an entry no output reads)."""
    seed = np.zeros((size, width))
    if len(columns):
        columns = np.asarray(columns)
        kept = columns >= 0
        seed[np.arange(size)[kept], columns[kept]] = 1.0
    return seed
