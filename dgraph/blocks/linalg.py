"""Linear algebra by its implicit rules: ``cholesky``, ``eigh`` and ``triangular_solve`` of one
matrix (of a stack: below), each block dense, its values the tangent map JAX differentiates
them by, applied to every basis direction at once.

* ``cholesky``: ``L = chol(A)`` (the jaxpr symmetrizes A before);
  ``dL = L·φ(L⁻¹·dA·L⁻ᵀ)``, φ the lower triangle with the diagonal halved;
* ``eigh`` (``eigh_values`` w and ``eigh_vectors`` V, ascending, of the symmetrized
  matrix): ``dw = diag(Vᵀ·dA·V)``, ``dV = V·(F ∘ (Vᵀ·dA·V))``, ``F_ij = 1/(w_j - w_i)``
  off the diagonal, 0 on it (distinct eigenvalues); V's signs are LAPACK's for the
  triangle it reads, the lower one unless ``eigh_vectors`` has ``lower=False``
  (``eigh(a, "U")``: the same symmetric matrix, other signs; the formulas read their V);
* ``eig_real``, ``eig_imag``: the real and imaginary parts of the eigenvalues λ of a real
  nonsymmetric matrix, in LAPACK's order (``geev``: NumPy's and JAX's alike), with
  ``A = V·diag(λ)·V⁻¹``: ``dλ = diag(V⁻¹·dA·V)`` (``u_iᴴ·dA·v_i / (u_iᴴ·v_i)``, the rows of
  V⁻¹ the left eigenvectors so scaled; JAX's ``eig_jvp_rule``), its parts; NaN where an
  eigenvalue is repeated exactly (no derivative there: :func:`_ties`);
* ``sqrtm``: the principal square root X of a real matrix whose real eigenvalues are
  positive (X real; NaN where a real eigenvalue is 0 or negative: no real root), SciPy's
  (the Schur method); ``dX`` solves the Sylvester equation ``X·dX + dX·X = dA``, by the
  eigendecomposition ``A = V·diag(λ)·V⁻¹``: ``dX = V·((V⁻¹·dA·V) / (√λ_i + √λ_j))·V⁻¹``;
* ``logm``: the principal logarithm X of a real matrix whose real eigenvalues are
  positive (X real; NaN where one is 0 or negative), ``V·diag(log λ)·V⁻¹``; its derivative by the
  divided differences of log (Daleckii and Krein): ``dX = V·((V⁻¹·dA·V) ∘ L)·V⁻¹``,
  ``L_ij = (log λ_i - log λ_j) / (λ_i - λ_j)``, ``1/λ_i`` where ``λ_i = λ_j``;
* ``triangular_solve``: ``x = M⁻¹·b`` (``left_side``) or ``b·M⁻¹``, ``M`` the triangle
  of ``a`` it reads (``lower``; its diagonal 1 where ``unit_diagonal``), transposed where
  ``transpose_a``: ``dx = M⁻¹·db`` and ``dx = -M⁻¹·dM·x`` (left), ``db·M⁻¹`` and
  ``-x·dM·M⁻¹`` (right);
* ``linear_solve`` (``custom_linear_solve`` whose matvec is a matrix product, as
  ``jnp.linalg.solve`` and ``inv`` write it): ``x = A⁻¹·b``, the columns of ``b`` or, with
  ``rows``, its rows (a vector is a row): ``dx = A⁻¹·(db - dA·x)`` (JAX's rule for it).

The blocks of ``cholesky``, ``triangular_solve``, ``linear_solve`` (``jnp.linalg.inv``
among them), ``det``, ``logabsdet`` and ``eigh`` (:data:`APPLIED`) are
:class:`~dgraph.blocks.Applied`: a product with rows on their left (a gradient, a
cotangent) applies :func:`cotangent` to each row, one with columns on their right applies
:func:`tangent` to each column, O(n³) each where the n²×n² block's values cost O(n⁵)
(:class:`Applier` holds the values so; pricing, values and generated code take the same
products). Their dense values, where read, are the cheaper of the tangent on every basis
direction and the cotangent on every basis row (:func:`by_rows`: a determinant's one row).

Each formula is written once over an array vocabulary ``xp`` (:class:`NumPyOps` here;
:mod:`dgraph.codegen.tensor.linalg_code` prints the same calls as array statements), so
that the values and the generated code cannot differ. A triangle's inverse applied
(``solve_left``, ``solve_right``) is its inverse's product in NumPy and
``jax.scipy.linalg.solve_triangular`` in JAX code.

A stack of matrices ``(..., m, n)`` is one operation (:data:`BATCHED`): its batch axes
are those of the result beyond the operation's own rank (:func:`batch_rank`), every
matrix operand has them, a right-hand side has them or none (its one matrix shared). The
formulas are the one matrix's (:func:`core`: the operation at one matrix) broadcast over
the batch axes, and the block is block diagonal over them (:func:`operand_block`: the
batch axes' labels shared by result and operand, each matrix's own dense Jacobian, K small
blocks for K matrices, not one dense matrix), its values the tangent map applied to every
basis direction of one matrix, all matrices at once (:func:`batched_values`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from . import GENERAL, Block, Labelled, applied, dense
from . import decompositions as _dec
from .operator_values import OperatorValues

__all__ = [
    "APPLIED",
    "BATCHED",
    "BATCHED_ENTRIES",
    "COND_MOST",
    "LINALG",
    "LU_DATA",
    "MAGNITUDES",
    "AbsoluteOps",
    "Applier",
    "KeptOps",
    "NumPyOps",
    "batch_rank",
    "batched",
    "batched_values",
    "by_rows",
    "check",
    "cofactor_scale",
    "core",
    "cotangent",
    "eigenvector_condition",
    "forward",
    "lu_data",
    "magnitude",
    "operand_block",
    "rule_costs",
    "tangent",
    "values",
]

LINALG = frozenset({"cholesky", "triangular_solve", "eigh_values", "eigh_vectors"})
LINALG |= {"eig_real", "eig_imag", "sqrtm", "logm"}
LINALG |= {"linear_solve"} | _dec.DECOMPOSITIONS  # det, logabsdet, qr_*, svd_*, lu
LU_DATA = _dec.LU_DATA  # lu's pivots and permutation: integers, no derivative

_RANK = {"cholesky": 2, "triangular_solve": 2, "eigh_values": 1, "eigh_vectors": 2}
_RANK |= {"det": 0, "logabsdet": 0, "qr_q": 2, "qr_r": 2, "svd_values": 1, "svd_u": 2}
_RANK |= {"svd_vt": 2, "linear_solve": 2, "eig_real": 1, "eig_imag": 1}
BATCHED = frozenset(_RANK)  # read of a stack of matrices as one operation (not lu)


BATCHED_ENTRIES = 4096
"""The most entries of one matrix's block (result entries times operand entries) for
which a stack is read as one operation (:func:`batched`): its block holds that many
values per matrix (an 8×8 inverse's, a 16×16 ``eigvalsh``'s); a stack of larger matrices
is read one operation per matrix, each block applied by its rules (:class:`Applier`)."""


def batched(out_core: Sequence[int], *operand_cores: Sequence[int]) -> bool:
    """Whether a stack whose matrices' results are ``out_core`` and whose operands' are
    ``operand_cores`` is read as one operation (:data:`BATCHED_ENTRIES`)."""
    size = math.prod(out_core)
    return all(size * math.prod(c) <= BATCHED_ENTRIES for c in operand_cores)


def batch_rank(op: Any) -> int:
    """The batch axes of a :data:`BATCHED` operation: its result's axes beyond one
    matrix's result (0 for one matrix; ``linear_solve`` of a vector is one matrix's)."""
    if op.primitive not in BATCHED:
        return 0
    return max(0, len(op.shape) - _RANK[op.primitive])


def core(op: Any) -> Any:
    """The operation at one matrix of its stack (``op`` itself for one matrix)."""
    rank = batch_rank(op)
    return op if not rank else dataclasses.replace(op, shape=tuple(op.shape)[rank:])


def _core_shapes(op: Any, shapes: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The operands' shapes at one matrix: without the batch axes of those that have
    them."""
    rank = batch_rank(op)
    return [tuple(s)[rank:] if len(s) >= rank + 2 else tuple(s) for s in shapes]


def _or_nan(f):
    """``f``, NaN where LAPACK refuses (a singular or indefinite matrix), as JAX gives."""

    def safe(a):
        try:
            return f(a)
        except np.linalg.LinAlgError:
            return np.full(np.shape(a), np.nan)

    return staticmethod(safe)


def _eig(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """λ and V of ``a`` (complex); NaN where LAPACK does not converge (a NaN entry)."""
    try:
        w, v = np.linalg.eig(a)
    except np.linalg.LinAlgError:
        *batch, n, _ = np.shape(a)
        return np.full((*batch, n), np.nan + 0j), np.full((*batch, n, n), np.nan + 0j)
    return w.astype(complex), v.astype(complex)


def _sqrtm(a: np.ndarray) -> np.ndarray:
    """SciPy's principal square root, its real part (the imaginary part is rounding where
    the real eigenvalues are positive)."""
    import scipy.linalg

    with np.errstate(all="ignore"):
        return np.real(scipy.linalg.sqrtm(a))


def _reduced_svd(a: np.ndarray) -> tuple[np.ndarray, ...]:
    """U, s, Vᵀ of the reduced SVD; NaN where LAPACK does not converge (a NaN entry)."""
    try:
        return tuple(np.linalg.svd(a, full_matrices=False))
    except np.linalg.LinAlgError:
        *batch, m, n = np.shape(a)
        k = min(m, n)
        return tuple(np.full((*batch, *shape), np.nan) for shape in ((m, k), (k,), (k, n)))


def _cofactors(a: Any) -> np.ndarray:
    """``adj(A)ᵀ`` (:func:`dgraph.blocks.decompositions.cofactors`): ``det A·A⁻ᵀ`` where
    LAPACK inverts A and the product is finite (one LU for both: the last pivot cancels,
    so it stays accurate near a singular matrix), else by the SVD (an exactly zero pivot:
    rank n-1 and lower)."""
    a = np.asarray(a, dtype=float)
    with np.errstate(all="ignore"):
        try:
            found = np.linalg.det(a)[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)
        except np.linalg.LinAlgError:
            found = None
    if found is not None and np.all(np.isfinite(found)):
        return found
    if not np.all(np.isfinite(a)):  # of a stack, the matrices each
        if np.ndim(a) > 2:
            return np.stack([_cofactors(m) for m in a]).reshape(np.shape(a))
        return np.full(np.shape(a), np.nan)
    return _dec.cofactors(a, np.shape(a)[-1], NumPyOps)


def cofactor_scale(a: Any) -> np.ndarray:
    """``‖A‖_F^(n-1)`` in every entry of an n×n matrix: each cofactor is a determinant of
    n-1 rows of A, at most that (Hadamard's inequality), and it is the scale of the
    cofactors' rounding, by LU or SVD, where they are 0 or tiny (A singular: ``|adj(A)|``
    there would count rounding as an error)."""
    a = np.asarray(a, dtype=float)
    bound = np.linalg.norm(a, axis=(-2, -1)) ** (np.shape(a)[-1] - 1)
    return np.broadcast_to(np.expand_dims(bound, (-2, -1)), np.shape(a)).copy()


MAGNITUDES = frozenset({"det"})  # rules whose values' rounding is not relative to them


def magnitude(op: Any, k: int, args: Sequence[np.ndarray]) -> np.ndarray:
    """The scale of the rounding of :func:`values` for the operations of
    :data:`MAGNITUDES`, laid out as they are: ``det``'s cofactors by :func:`cofactor_scale`."""
    return cofactor_scale(args[0])


class NumPyOps:
    """The array vocabulary of the formulas, in NumPy."""

    matmul = staticmethod(np.matmul)
    inv = _or_nan(np.linalg.inv)
    cholesky = _or_nan(np.linalg.cholesky)
    eigh = staticmethod(np.linalg.eigh)
    eigh_upper = staticmethod(lambda a: np.linalg.eigh(a, "U"))
    eigvalsh = staticmethod(np.linalg.eigvalsh)  # the values alone: a third cheaper
    eig = staticmethod(lambda a: _eig(a))
    sqrtm = staticmethod(lambda a: _sqrtm(a))
    sqrt = staticmethod(np.sqrt)  # of complex numbers: the principal root
    log = staticmethod(np.log)  # of complex numbers: the principal branch
    real = staticmethod(np.real)
    imag = staticmethod(np.imag)
    det = staticmethod(np.linalg.det)
    slogdet = staticmethod(np.linalg.slogdet)
    qr = staticmethod(np.linalg.qr)
    svd = staticmethod(lambda a: _reduced_svd(a))
    part = staticmethod(lambda pair, i: pair[i])
    column = staticmethod(lambda w: np.reshape(w, (*np.shape(w), 1)))
    row = staticmethod(lambda w: np.reshape(w, (*np.shape(w)[:-1], 1, np.shape(w)[-1])))
    last_sum = staticmethod(lambda a: np.sum(a, axis=-1))
    last_prod = staticmethod(lambda a: np.prod(a, axis=-1))
    cofactors = staticmethod(lambda a: _cofactors(a))
    div = staticmethod(np.divide)
    tril = staticmethod(np.tril)
    triu = staticmethod(np.triu)
    eye = staticmethod(np.eye)
    swap = staticmethod(lambda a: np.swapaxes(a, -1, -2))
    mul = staticmethod(np.multiply)
    scale = staticmethod(np.multiply)  # two signed factors (mul: a mask or a constant)
    sub = staticmethod(np.subtract)
    add = staticmethod(np.add)
    neg = staticmethod(np.negative)
    abs = staticmethod(np.abs)
    arange = staticmethod(np.arange)
    argmax = staticmethod(np.argmax)
    where = staticmethod(np.where)
    eq = staticmethod(np.equal)
    gt = staticmethod(np.greater)
    ge = staticmethod(np.greater_equal)
    le = staticmethod(np.less_equal)
    both = staticmethod(np.logical_and)
    take = staticmethod(lambda a, i, axis: np.take(a, i, axis=axis))
    stack = staticmethod(np.stack)
    reshape = staticmethod(np.reshape)
    moveaxis = staticmethod(np.moveaxis)

    @classmethod
    def solve_left(cls, t: Any, b: Any, lower: bool, trans: bool) -> Any:
        """``op(T)⁻¹·b`` (``op`` the transpose where ``trans``) for the triangle ``T``
        (``lower`` or upper), ``b`` a matrix or a stack of them: by ``T``'s inverse (in
        generated NumPy code a triangular solve is slower: RESULTS.md, inv22)."""
        return cls.matmul(_op_inverse(cls, t, trans), b)

    @classmethod
    def solve_right(cls, b: Any, t: Any, lower: bool, trans: bool) -> Any:
        """``b·op(T)⁻¹``, as :meth:`solve_left`."""
        return cls.matmul(b, _op_inverse(cls, t, trans))


def _op_inverse(xp: Any, t: Any, trans: bool) -> Any:
    """``T⁻¹`` or ``T⁻ᵀ`` (one inverse of T either way: a vocabulary that keeps it,
    :class:`KeptOps`, computes it once)."""
    inverse = xp.inv(t)
    return xp.swap(inverse) if trans else inverse


def lu_data(name: str, a: np.ndarray) -> np.ndarray:
    """``lu_pivots`` or ``lu_permutation`` of the square matrix ``a``."""
    a = np.asarray(a, dtype=float)
    return _dec.factor(a, a.shape[0], NumPyOps)[1 + LU_DATA.index(name)]


def check(op: Any, shapes: Sequence[tuple[int, ...]]) -> None:
    """One matrix's shapes, or a stack's (:data:`BATCHED`): the batch axes the result's,
    on every matrix operand, on a right-hand side or not at all.

    Raises
    ------
    InputError
        For another shape.
    """
    rank = batch_rank(op)
    if rank:
        batch = tuple(op.shape[:rank])
        for k, s in enumerate(shapes):
            own = tuple(s)[: len(s) - 2]
            if own != batch and (k == 0 or own):
                raise InputError(
                    f"{op.primitive}: operand {k} of shape {tuple(s)} for a stack of shape {batch}"
                )
        if op.primitive == "linear_solve" and op.param.get("rows") is not False:
            raise InputError("linear_solve: a stack solves for columns (rows=False)")
        check(core(op), _core_shapes(op, shapes))
        return
    if op.primitive in _dec.DECOMPOSITIONS:
        _dec.check(op, shapes)
        return
    a = tuple(shapes[0])
    if len(a) != 2 or a[0] != a[1]:
        raise InputError(
            f"{op.primitive}: one square matrix, or a stack of them (the result's batch axes"
            f" first), is supported, not an operand of shape {a}"
        )
    if op.primitive == "triangular_solve":
        _flags(op)
    if op.primitive == "linear_solve":
        b, rows = tuple(shapes[1]), op.param.get("rows")
        if not isinstance(rows, bool) or len(b) not in (1, 2) or b[-1 if rows else 0] != a[0]:
            raise InputError(f"linear_solve: a right-hand side of shape {b} for {a}")
    if op.primitive == "triangular_solve" and len(shapes[1]) != 2:
        raise InputError(f"triangular_solve: the right-hand side must be a matrix, not {shapes[1]}")


def _flags(op: Any) -> None:
    """That triangular_solve says which triangle and side (a dgraph/1 file may not)."""
    p = op.param
    if not all(isinstance(p.get(k), bool) for k in _FLAGS):
        raise InputError(f"triangular_solve: params {', '.join(_FLAGS)} must be booleans")


_FLAGS = ("left_side", "lower", "transpose_a", "unit_diagonal")


def _size(op: Any) -> int:
    return op.shape[0] if op.param["left_side"] else op.shape[1]


def _triangle(op: Any, a: Any, xp: Any) -> Any:
    """The triangle of ``a`` triangular_solve reads (without the diagonal where it is
    taken as ones), transposed where asked: linear in ``a``."""
    p = op.param
    m = xp.tril(a) if p["lower"] else xp.triu(a)
    if p["unit_diagonal"]:
        m = xp.sub(m, xp.mul(m, xp.eye(_size(op))))
    return xp.swap(m) if p["transpose_a"] else m


def _solved(op: Any, a: Any, xp: Any) -> Any:
    """``T``: the triangle of ``a`` triangular_solve solves by (its diagonal 1 where
    ``unit_diagonal``), not transposed: ``M = op(T)``, ``op`` the transpose where
    ``transpose_a``."""
    p = op.param
    t = xp.tril(a) if p["lower"] else xp.triu(a)
    if p["unit_diagonal"]:
        eye = xp.eye(_size(op))
        t = xp.add(xp.sub(t, xp.mul(t, eye)), eye)
    return t


def _solve(op: Any, a: Any, b: Any, xp: Any, transposed: bool = False) -> Any:
    """``M⁻¹·b`` (``left_side``) or ``b·M⁻¹``; ``M⁻ᵀ`` where ``transposed``."""
    p = op.param
    t, trans = _solved(op, a, xp), p["transpose_a"] != transposed
    if p["left_side"]:
        return xp.solve_left(t, b, p["lower"], trans)
    return xp.solve_right(b, t, p["lower"], trans)


def _eigh(op: Any, a: Any, xp: Any) -> Any:
    """``eigh`` of the symmetric ``a`` reading the triangle ``op`` names (its vectors'
    signs: LAPACK's for that triangle)."""
    return xp.eigh(a) if op.param.get("lower", True) else xp.eigh(a, "U")


def forward(op: Any, args: Sequence[Any], xp: Any = NumPyOps, emit: Any = None) -> Any:
    """The result (``emit``: names a step's value, where the vocabulary prints code)."""
    op = core(op)
    if op.primitive in _dec.DECOMPOSITIONS or op.primitive in _dec.LU_DATA:
        return _dec.forward(op, args, xp, emit or (lambda x: x))
    if op.primitive == "cholesky":
        return xp.cholesky(args[0])
    if op.primitive == "eigh_values" and hasattr(xp, "eigvalsh"):  # NumPy's values
        return xp.eigvalsh(args[0])
    if op.primitive.startswith("eigh"):
        return xp.part(_eigh(op, args[0], xp), 0 if op.primitive == "eigh_values" else 1)
    if op.primitive in ("sqrtm", "logm"):
        pair = xp.eig(args[0])
        w = xp.part(pair, 0)
        x = xp.sqrtm(args[0]) if op.primitive == "sqrtm" else _logm(pair, xp)
        return xp.add(x, xp.column(xp.column(_no_real_root(w, xp))))
    if op.primitive in ("eig_real", "eig_imag"):
        w = xp.part(xp.eig(args[0]), 0)
        return xp.real(w) if op.primitive == "eig_real" else xp.imag(w)
    if op.primitive == "linear_solve":
        inverse = xp.inv(args[0])
        if op.param["rows"]:
            return xp.matmul(args[1], xp.swap(inverse))
        return xp.matmul(inverse, args[1])
    _flags(op)
    return _solve(op, args[0], args[1], xp)


def tangent(
    op: Any, k: int, args: Sequence[Any], d: Any, result: Any, xp: Any = NumPyOps, emit: Any = None
) -> Any:
    """The result's tangents for tangents ``d`` of operand k (a leading axis of
    directions), ``result`` the primal result (``emit`` as for :func:`forward`)."""
    op = core(op)
    if op.primitive in _dec.DECOMPOSITIONS:
        return _dec.tangent(op, args, d, result, xp, emit or (lambda x: x))
    if op.primitive == "cholesky":  # L⁻¹·dA·L⁻ᵀ
        inner = xp.solve_right(xp.solve_left(result, d, True, False), result, True, True)
        diagonal = xp.mul(xp.mul(inner, xp.eye(op.shape[0])), 0.5)
        return xp.matmul(result, xp.add(xp.tril(inner, -1), diagonal))
    if op.primitive.startswith("eigh"):
        pair = _eigh(op, args[0], xp)
        w, v = xp.part(pair, 0), xp.part(pair, 1)
        n = op.shape[0]
        inner = xp.matmul(xp.matmul(xp.swap(v), d), v)
        if op.primitive == "eigh_values":
            return xp.last_sum(xp.mul(inner, xp.eye(n)))
        return xp.matmul(v, xp.scale(_gaps(w, n, xp), inner))
    if op.primitive in ("eig_real", "eig_imag"):
        return _eig_tangent(op, args[0], d, xp)
    if op.primitive in ("sqrtm", "logm"):
        return _sqrtm_tangent(op, args[0], d, xp)
    if op.primitive == "linear_solve":
        return _solve_tangent(op, k, args, d, result, xp)
    if k == 1:
        return _solve(op, args[0], d, xp)
    dm = _triangle(op, d, xp)
    moved = xp.matmul(dm, result) if op.param["left_side"] else xp.matmul(result, dm)
    return xp.neg(_solve(op, args[0], moved, xp))


def _gaps(w: Any, n: int, xp: Any) -> Any:
    """``F``: ``1/(w_j - w_i)`` off the diagonal, 0 on it."""
    gaps = xp.add(xp.sub(xp.row(w), xp.column(w)), xp.eye(n))
    return xp.sub(xp.div(1.0, gaps), xp.eye(n))


def _eig_tangent(op: Any, a: Any, d: Any, xp: Any) -> Any:
    """``dλ = diag(V⁻¹·dA·V)``, its real or imaginary part, NaN at a repeated λ and
    where V is ill conditioned (:func:`_defective`)."""
    pair = xp.eig(a)
    w, v = xp.part(pair, 0), xp.part(pair, 1)
    n = op.shape[0]
    inverse = xp.inv(v)
    inner = xp.matmul(xp.matmul(inverse, d), v)
    dw = xp.last_sum(xp.mul(inner, xp.eye(n)))
    part = xp.real(dw) if op.primitive == "eig_real" else xp.imag(dw)
    return xp.add(xp.add(part, _ties(w, n, xp)), xp.column(_defective(v, inverse, xp)))


def _logm(pair: Any, xp: Any) -> Any:
    """``Re(V·diag(log λ)·V⁻¹)`` of the eigendecomposition ``pair``: the principal
    logarithm where the real eigenvalues are positive (SciPy's inverse scaling and
    squaring took 0.14 s a 3×3 matrix, the value check evaluates it at every step)."""
    v = xp.part(pair, 1)
    inverse = xp.inv(v)
    x = xp.real(xp.matmul(xp.scale(v, xp.row(xp.log(xp.part(pair, 0)))), inverse))
    return xp.add(x, xp.column(xp.column(_defective(v, inverse, xp))))


COND_MOST = 2.0**26
"""The largest condition number ``‖V‖_F·‖V⁻¹‖_F`` of the eigenvectors at which the
formulas through ``A = V·diag(λ)·V⁻¹`` are used (1/√ε: half the digits lost): past it A
is defective or nearly so ([[1, 1], [0, 1]]: V singular, ``V·diag(log λ)·V⁻¹`` is 0 where
``logm`` is [[0, 1], [0, 0]]), and the result is NaN rather than a wrong number."""


def eigenvector_condition(a: np.ndarray) -> np.ndarray:
    """``‖V‖_F·‖V⁻¹‖_F`` of the eigenvectors of each matrix of the stack ``a`` (inf
    where V is singular): what the code compares with :data:`COND_MOST`
    (:func:`_defective`), for the checks made at a point."""
    _, v = np.linalg.eig(a)
    try:
        with np.errstate(all="ignore"):
            inverse = np.linalg.inv(v)
    except np.linalg.LinAlgError:
        return np.full(np.shape(a)[:-2], math.inf)
    return np.linalg.norm(v, axis=(-2, -1)) * np.linalg.norm(inverse, axis=(-2, -1))


def _defective(v: Any, inverse: Any, xp: Any) -> Any:
    """0 per matrix whose eigenvectors ``v`` (``inverse`` = V⁻¹) are well conditioned,
    NaN past :data:`COND_MOST`."""
    size = xp.last_sum(xp.last_sum(xp.mul(xp.abs(v), xp.abs(v))))
    size_inverse = xp.last_sum(xp.last_sum(xp.mul(xp.abs(inverse), xp.abs(inverse))))
    return xp.where(xp.gt(xp.mul(size, size_inverse), COND_MOST**2), math.nan, 0.0)


def _no_real_root(w: Any, xp: Any) -> Any:
    """0 where no eigenvalue ``w`` is real and at most 0, else NaN (per matrix): a real
    matrix with such an eigenvalue has no real principal square root."""
    bad = xp.both(xp.eq(xp.imag(w), 0.0), xp.le(xp.real(w), 0.0))
    return xp.last_sum(xp.where(bad, math.nan, 0.0))


def _sqrtm_tangent(op: Any, a: Any, d: Any, xp: Any) -> Any:
    """``dX = V·((V⁻¹·dA·V) ∘ F)·V⁻¹``, its real part: for ``sqrtm`` the solution of
    ``X·dX + dX·X = dA`` (``X = V·diag(√λ)·V⁻¹``: ``F_ij = 1/(√λ_i + √λ_j)``), for ``logm``
    the divided differences of log (:func:`_divided`); NaN where the matrix has no real
    root or V is ill conditioned (:func:`_defective`)."""
    pair = xp.eig(a)
    w, v = xp.part(pair, 0), xp.part(pair, 1)
    inverse = xp.inv(v)
    inner = xp.matmul(xp.matmul(inverse, d), v)
    dx = xp.real(xp.matmul(xp.matmul(v, xp.mul(inner, _divided(op, w, xp))), inverse))
    nan = xp.add(_no_real_root(w, xp), _defective(v, inverse, xp))
    return xp.add(dx, xp.column(xp.column(nan)))


def _divided(op: Any, w: Any, xp: Any) -> Any:
    """The matrix function's first divided differences at the eigenvalues ``w`` (the
    Daleckii-Krein matrix, symmetric): ``1/(√λ_i + √λ_j)`` for ``sqrtm``;
    ``(log λ_i - log λ_j)/(λ_i - λ_j)`` for ``logm``, ``1/λ_i`` where the two are equal."""
    if op.primitive == "sqrtm":
        roots = xp.sqrt(w)
        return xp.div(1.0, xp.add(xp.column(roots), xp.row(roots)))
    logs = xp.log(w)
    gaps = xp.sub(xp.column(w), xp.row(w))
    same = xp.eq(gaps, 0.0)
    quotient = xp.div(xp.sub(xp.column(logs), xp.row(logs)), xp.where(same, 1.0, gaps))
    return xp.where(same, xp.div(1.0, xp.column(w)), quotient)


def _ties(w: Any, n: int, xp: Any) -> Any:
    """0 for an eigenvalue that no other equals, NaN for one that another does: a
    repeated eigenvalue of a nonsymmetric matrix has no derivative (its directional
    derivatives, the eigenvalues of a block of dA, are not linear in dA), so the value
    check reports the function not verified there rather than a number."""
    gaps = xp.add(xp.sub(xp.row(w), xp.column(w)), xp.eye(n))  # 1 on the diagonal
    return xp.last_sum(xp.where(xp.eq(gaps, 0.0), math.nan, 0.0))


def _solve_tangent(op: Any, k: int, args: Sequence[Any], d: Any, x: Any, xp: Any) -> Any:
    """``linear_solve``'s tangent: ``A⁻¹·db`` for b, ``-A⁻¹·dA·x`` for A (transposed
    where the solved vectors are rows)."""
    inverse = xp.inv(args[0])
    if op.param["rows"]:
        if k == 1:
            return xp.matmul(d, xp.swap(inverse))
        return xp.neg(xp.matmul(xp.matmul(x, xp.swap(d)), xp.swap(inverse)))
    if len(op.shape) == 1:  # b a vector: d·A⁻ᵀ keeps a leading axis of directions
        if k == 1:
            return xp.matmul(d, xp.swap(inverse))
        return xp.neg(xp.matmul(xp.matmul(d, x), xp.swap(inverse)))
    if k == 1:
        return xp.matmul(inverse, d)
    return xp.neg(xp.matmul(inverse, xp.matmul(d, x)))


def cotangent(
    op: Any, k: int, args: Sequence[Any], bar: Any, result: Any, xp: Any = NumPyOps
) -> Any:
    """Operand k's cotangents for cotangents ``bar`` of the result (a leading axis of
    rows): the transpose of :func:`tangent`'s map, for the operations of
    :data:`APPLIED` (Giles, "An extended collection of matrix derivative results for
    forward and reverse mode algorithmic differentiation", 2008; Murray, "Differentiation
    of the Cholesky decomposition", 2016):

    * ``cholesky``: ``Ā = L⁻ᵀ·φ(Lᵀ·L̄)·L⁻¹`` (φ is self-adjoint; not symmetrized: the
      tangent reads all of dA, the jaxpr symmetrizes A before);
    * ``triangular_solve``: ``b̄ = M⁻ᵀ·x̄`` and ``ā = T*(-M⁻ᵀ·x̄·xᵀ)`` (left), ``b̄ = x̄·M⁻ᵀ``
      and ``ā = T*(-xᵀ·x̄·M⁻ᵀ)`` (right), T* the adjoint of the triangle read
      (:func:`_triangle`: transposed back, the unit diagonal dropped, the triangle kept);
    * ``linear_solve``: ``b̄ = A⁻ᵀ·x̄``, ``Ā = -A⁻ᵀ·x̄·xᵀ`` (columns; rows and a vector alike);
    * ``logabsdet`` and ``det``: ``Ā = w̄·A⁻ᵀ`` and ``Ā = w̄·adj(A)ᵀ`` (Jacobi's formula;
      the cofactor matrix ``adj(A)ᵀ``, ``det A·A⁻ᵀ`` where A is invertible, defined at
      every matrix: :func:`dgraph.blocks.decompositions.cofactors`);
    * ``eigh_values``: ``Ā = V·diag(w̄)·Vᵀ``; ``eigh_vectors``: ``Ā = V·(F ∘ (Vᵀ·V̄))·Vᵀ``
      (the adjoints of the tangents as written: ``F ∘ ·`` is self-adjoint; not
      symmetrized, as the tangent reads all of dA).
    """
    op = core(op)
    name = op.primitive
    if name in ("eig_real", "eig_imag", "sqrtm", "logm"):
        return _eig_cotangent(op, args[0], bar, xp)
    if name == "det":
        return xp.scale(xp.column(xp.column(bar)), xp.cofactors(args[0]))
    if name == "logabsdet":
        return xp.scale(xp.column(xp.column(bar)), xp.swap(xp.inv(args[0])))
    if name.startswith("eigh"):
        pair = _eigh(op, args[0], xp)
        w, v = xp.part(pair, 0), xp.part(pair, 1)
        if name == "eigh_values":
            return xp.matmul(xp.scale(v, xp.row(bar)), xp.swap(v))
        inner = xp.scale(_gaps(w, op.shape[0], xp), xp.matmul(xp.swap(v), bar))
        return xp.matmul(xp.matmul(v, inner), xp.swap(v))
    if name == "cholesky":
        inner = xp.matmul(xp.swap(result), bar)
        diagonal = xp.mul(xp.mul(inner, xp.eye(op.shape[0])), 0.5)
        middle = xp.solve_left(result, xp.add(xp.tril(inner, -1), diagonal), True, True)
        return xp.solve_right(middle, result, True, False)
    if name == "linear_solve":
        return _solve_cotangent(op, k, args, bar, result, xp)
    solved = _solve(op, args[0], bar, xp, transposed=True)  # M⁻ᵀ·x̄ or x̄·M⁻ᵀ
    if k == 1:
        return solved
    if op.param["left_side"]:
        g = xp.neg(xp.matmul(solved, xp.swap(result)))
    else:
        g = xp.neg(xp.matmul(xp.swap(result), solved))
    p = op.param
    if p["transpose_a"]:
        g = xp.swap(g)
    if p["unit_diagonal"]:
        g = xp.sub(g, xp.mul(g, xp.eye(_size(op))))
    return xp.tril(g) if p["lower"] else xp.triu(g)


def _eig_cotangent(op: Any, a: Any, bar: Any, xp: Any) -> Any:
    """The eigenvalues' and ``sqrtm``'s cotangents (:func:`_eig_tangent` and
    :func:`_sqrtm_tangent` transposed; W = V⁻¹): ``Ā = Re((V·diag(λ̄)·W)ᵀ)`` for the real
    parts, its imaginary part for the imaginary parts; ``Ā = Re(Wᵀ·((Vᵀ·X̄·Wᵀ) / (√λ_i +
    √λ_j))·Vᵀ)`` for ``sqrtm``, ``logm``'s alike with its divided differences; NaN as the
    tangents are."""
    pair = xp.eig(a)
    w, v = xp.part(pair, 0), xp.part(pair, 1)
    inverse = xp.inv(v)
    n = op.shape[-1]
    if op.primitive in ("sqrtm", "logm"):
        inner = xp.mul(xp.matmul(xp.matmul(xp.swap(v), bar), xp.swap(inverse)), _divided(op, w, xp))
        out = xp.real(xp.matmul(xp.matmul(xp.swap(inverse), inner), xp.swap(v)))
        nan = xp.add(_no_real_root(w, xp), _defective(v, inverse, xp))
        return xp.add(out, xp.column(xp.column(nan)))
    z = xp.swap(xp.matmul(xp.scale(v, xp.row(bar)), inverse))
    out = xp.real(z) if op.primitive == "eig_real" else xp.imag(z)
    nan = xp.add(xp.last_sum(_ties(w, n, xp)), _defective(v, inverse, xp))
    return xp.add(out, xp.column(xp.column(nan)))


def _solve_cotangent(op: Any, k: int, args: Sequence[Any], bar: Any, x: Any, xp: Any) -> Any:
    """``linear_solve``'s cotangents (:func:`_solve_tangent` transposed)."""
    inverse = xp.inv(args[0])
    if len(op.shape) == 1:  # b a vector (a row or a column: x = A⁻¹·b)
        u = xp.matmul(bar, inverse)  # rows of (A⁻ᵀ·x̄)ᵀ
        return u if k == 1 else xp.neg(xp.matmul(xp.column(u), xp.row(x)))
    if op.param["rows"]:  # x = b·A⁻ᵀ
        if k == 1:
            return xp.matmul(bar, inverse)
        return xp.neg(xp.matmul(xp.matmul(xp.swap(inverse), xp.swap(bar)), x))
    if k == 1:
        return xp.matmul(xp.swap(inverse), bar)
    return xp.neg(xp.matmul(xp.matmul(xp.swap(inverse), bar), xp.swap(x)))


APPLIED = frozenset({"cholesky", "triangular_solve", "linear_solve", "det", "logabsdet"})
APPLIED |= {"eigh_values", "eigh_vectors"}  # with a cotangent rule
APPLIED |= {"eig_real", "eig_imag", "sqrtm", "logm"}


def rule_costs(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> tuple[int, int, int]:
    """The multiplications of :func:`cotangent` and :func:`tangent` as they are computed
    (an n×n inverse counted n³, a product of m×k and k×n matrices m·k·n): shared by a
    product's rows or columns (the inverse), then per row, then per column."""
    op, shapes = core(op), _core_shapes(op, shapes)
    name = op.primitive
    if name == "cholesky":
        n = op.shape[0]
        return n**3, 3 * n**3, 3 * n**3
    if name in ("det", "logabsdet"):  # the inverse; a row scales it, a column reads it
        n = shapes[0][0]
        return n**3, n * n, n * n
    if name in ("eig_real", "eig_imag", "sqrtm", "logm"):  # the decomposition, V⁻¹; products
        n = shapes[0][0]
        return 2 * n**3, (1 if name.startswith("eig") else 3) * n**3 + n * n, 3 * n**3 + n * n
    if name.startswith("eigh"):  # the decomposition; V·(·)·Vᵀ or Vᵀ·(·)·V products
        n = shapes[0][0]
        row = (1 if name == "eigh_values" else 3) * n**3
        column = (2 if name == "eigh_values" else 3) * n**3
        return n**3, row + n * n, column + n * n
    n = shapes[0][0]
    if name == "triangular_solve":
        other = op.shape[1] if op.param["left_side"] else op.shape[0]
    else:
        other = 1 if len(op.shape) == 1 else op.shape[0 if op.param["rows"] else 1]
    each = n * n * other * (1 if k == 1 else 2)
    return n**3, each, each


def operand_block(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> Block:
    """Dense: every entry of the result reads every entry of the operand; for the
    operations of :data:`APPLIED` an :class:`~dgraph.blocks.Applied` block (applied to
    rows and columns by :func:`cotangent` and :func:`tangent`); of a stack, block diagonal
    over its batch axes (:func:`_batched_block`)."""
    check(op, shapes)
    if batch_rank(op):
        return _batched_block(op, k, shapes)
    if op.primitive in APPLIED:
        rule = (op.primitive, tuple(sorted(op.param.items())), k, tuple(map(tuple, shapes)))
        return applied(tuple(op.shape), tuple(shapes[k]), rule, rule_costs(op, k, shapes))
    return dense(tuple(op.shape), tuple(shapes[k]), GENERAL)


def _batched_block(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> Block:
    """The block of a stack's operation: the batch axes' labels on both sides (block
    diagonal; on the result's side only for a right-hand side without them, each matrix's
    block reading the one shared), every matrix's own dense block over the rest."""
    rank, mine = batch_rank(op), tuple(shapes[k])
    out_core, in_core = tuple(op.shape[rank:]), _core_shapes(op, shapes)[k]
    sizes = (*op.shape[:rank], *out_core, *in_core)
    labels = [((j,), 0) for j in range(len(sizes))]
    batch, outs, ins = (
        labels[:rank],
        labels[rank : rank + len(out_core)],
        labels[rank + len(out_core) :],
    )
    shared = batch if len(mine) > len(in_core) else []
    return Labelled(
        tuple(op.shape), mine, (*batch, *outs), (*shared, *ins), sizes, tuple(range(len(sizes)))
    )


def batched_values(
    op: Any, k: int, args: Sequence[Any], shapes: Sequence[tuple[int, ...]], result: Any, xp: Any
) -> Any:
    """The values of a stack's block (:func:`_batched_block`), C order over (batch axes,
    result's matrix axes, operand's matrix axes): the tangent map of every matrix applied
    to every basis direction of one matrix at once (or the cotangent map to every basis
    row, where :func:`by_rows`), broadcast over the batch axes. ``xp`` the vocabulary (an
    array module's calls: NumPy here, array statements in generated code)."""
    rank = batch_rank(op)
    out_core, in_core = tuple(op.shape[rank:]), _core_shapes(op, shapes)[k]
    ones = (1,) * rank
    if by_rows(op, k, shapes):
        size = math.prod(out_core)
        basis = xp.reshape(xp.eye(size), (size, *ones, *out_core))
        out = xp.moveaxis(cotangent(op, k, args, basis, result, xp), 0, rank)
    else:
        size = math.prod(in_core)
        basis = xp.reshape(xp.eye(size), (size, *ones, *in_core))
        out = xp.moveaxis(tangent(op, k, args, basis, result, xp), 0, -1)
    return xp.reshape(out, (*op.shape, *in_core))


def values(op: Any, k: int, args: Sequence[np.ndarray]) -> Any:
    """The dense block's values, C order over (result axes, operand axes); for the
    operations of :data:`APPLIED` an :class:`Applier` (read as those values where asked);
    of a stack, :func:`batched_values`."""
    args = [np.asarray(a, dtype=float) for a in args]
    if batch_rank(op):  # the stack's decomposition once, for the result and the tangents
        shapes, xp = [a.shape for a in args], KeptOps()
        return np.asarray(batched_values(op, k, args, shapes, forward(op, args, xp), xp))
    if op.primitive in APPLIED:
        return Applier(op, k, args)
    return _basis_values(op, k, args, forward(op, args))


def by_rows(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> bool:
    """Whether the dense values of an :data:`APPLIED` block are the cotangent rule on
    every basis row of the result (cheaper than the tangent on every basis direction of
    the operand: ``det`` of an n×n matrix, one row of n³ against n² directions of n²)."""
    if op.primitive not in APPLIED:
        return False
    _, row, column = rule_costs(op, k, shapes)
    return math.prod(core(op).shape) * row < math.prod(_core_shapes(op, shapes)[k]) * column


def _basis_values(op: Any, k: int, args: Sequence[Any], result: Any, xp: Any = NumPyOps) -> Any:
    """The tangent map applied to every basis direction of operand k (or, where
    :func:`by_rows`, the cotangent map to every basis row of the result)."""
    mine = np.shape(args[k])
    if by_rows(op, k, [np.shape(a) for a in args]):
        size = math.prod(op.shape)
        basis = np.eye(size).reshape(size, *op.shape)
        return np.reshape(cotangent(op, k, args, basis, result, xp), (*op.shape, *mine))
    size = math.prod(mine)
    basis = np.eye(size).reshape(size, *mine)
    out = tangent(op, k, args, basis, result, xp)
    return np.moveaxis(out, 0, -1).reshape(*op.shape, *mine)


class KeptOps(NumPyOps):
    """:class:`NumPyOps` keeping each inverse and eigendecomposition it computed (by the
    matrix's bytes): an :class:`Applier` holds one, so that a block's inverse is computed
    once however many rows or columns it applies (the GP's sparse Hessian at 30 points:
    24 inverses, not 600)."""

    def __init__(self, inverses: dict[bytes, Any] | None = None) -> None:
        self._inverses = {} if inverses is None else inverses

    def _kept(self, name: str, a: Any) -> Any:
        a = np.asarray(a, dtype=complex if np.iscomplexobj(a) else float)  # eig's V: complex
        key = name.encode() + repr(a.shape).encode() + a.tobytes()
        if key not in self._inverses:
            self._inverses[key] = getattr(NumPyOps, name)(a)
        return self._inverses[key]

    def inv(self, a: Any) -> np.ndarray:
        return self._kept("inv", a)

    def cofactors(self, a: Any) -> np.ndarray:
        return self._kept("cofactors", a)

    def eigh(self, a: Any, uplo: str = "L") -> Any:
        return self._kept("eigh", a) if uplo == "L" else self._kept("eigh_upper", a)

    def eig(self, a: Any) -> Any:
        return self._kept("eig", a)

    def sqrtm(self, a: Any) -> Any:
        return self._kept("sqrtm", a)

    def eigvalsh(self, a: Any) -> Any:
        """The kept decomposition's values (its vectors are the tangent's)."""
        return self.eigh(a)[0]

    def solve_left(self, t: Any, b: Any, lower: bool, trans: bool) -> Any:
        return self.matmul(_op_inverse(self, t, trans), b)

    def solve_right(self, b: Any, t: Any, lower: bool, trans: bool) -> Any:
        return self.matmul(b, _op_inverse(self, t, trans))


class AbsoluteOps(KeptOps):
    """The vocabulary by magnitudes: every product of matrices and every inverse taken
    by its entries' absolute values (``|A|·|B|``, ``|A⁻¹|``, so ``|op(T)⁻¹|·|B|`` for a
    triangular solve), a negation dropped, each product of signed factors (``scale``)
    taken by magnitudes; the masks and the sums of the formulas exact (they build M from
    ``a`` and add parts of one sign). :func:`cotangent` over it
    bounds ``|w|ᵀ·|J|`` and :func:`tangent` ``|J|·|v|`` entry by entry, the scale of the
    rounding the value check allows. Made from a :class:`KeptOps`, it shares its inverses."""

    matmul = staticmethod(lambda a, b: np.matmul(np.abs(a), np.abs(b)))
    scale = staticmethod(lambda a, b: np.abs(np.multiply(a, b)))
    neg = staticmethod(lambda a: np.abs(a))
    real = imag = staticmethod(lambda a: np.abs(a))  # |Re z|, |Im z| ≤ |z|

    def inv(self, a: Any) -> np.ndarray:
        return np.abs(super().inv(a))

    def cofactors(self, a: Any) -> np.ndarray:
        return cofactor_scale(a)


class Applier(OperatorValues):
    """An :class:`~dgraph.blocks.Applied` block's values, held as its operation and
    operands: rows applied by :func:`cotangent` (:meth:`applied_rows`), columns by
    :func:`tangent` (:meth:`applied_columns`), O(n³) a row; anything else reads them as
    the dense array (``numpy.asarray``, attributes, other ufuncs: the tangent applied to
    every basis direction). ``numpy.abs`` of it gives the same map by
    :class:`AbsoluteOps`."""

    OWN = ("op", "k", "args", "xp", "result")

    def __init__(self, op: Any, k: int, args: Sequence[np.ndarray], xp: Any = None) -> None:
        self.op, self.k, self.args = op, k, list(args)
        self.xp = KeptOps() if xp is None else xp  # one inverse per matrix, kept
        self._result: np.ndarray | None = None
        self._entries: np.ndarray | None = None
        self._absolute: Applier | None = None

    @property
    def result(self) -> np.ndarray:
        if self._result is None:  # by the kept inverses (not by the magnitudes')
            plain = self.xp if type(self.xp) is KeptOps else NumPyOps
            self._result = np.asarray(forward(self.op, self.args, plain), dtype=float)
        return self._result

    def applied_rows(self, bar: np.ndarray) -> np.ndarray:
        """``bar · block`` for rows ``bar`` (rows × result entries): rows × operand entries."""
        bar = np.asarray(bar, dtype=float)
        rows = bar.reshape(-1, *self.op.shape)
        out = cotangent(self.op, self.k, self.args, rows, self.result, self.xp)
        return np.reshape(out, (rows.shape[0], -1))

    def applied_columns(self, dirs: np.ndarray) -> np.ndarray:
        """``block · dirsᵀ`` for directions ``dirs`` (columns × operand entries), one row
        per direction: columns × result entries."""
        dirs = np.asarray(dirs, dtype=float)
        given = dirs.reshape(-1, *np.shape(self.args[self.k]))
        out = tangent(self.op, self.k, self.args, given, self.result, self.xp)
        return np.reshape(out, (given.shape[0], -1))

    def applied(self, vector: np.ndarray) -> np.ndarray:
        """``block · vector``, flat in and out."""
        return self.applied_columns(np.reshape(vector, (1, -1)))[0]

    def applied_transposed(self, vector: np.ndarray) -> np.ndarray:
        """``vectorᵀ · block``, flat in and out."""
        return self.applied_rows(np.reshape(vector, (1, -1)))[0]

    @property
    def entries(self) -> np.ndarray:
        """The dense values (made once)."""
        if self._entries is None:
            found = _basis_values(self.op, self.k, self.args, self.result, self.xp)
            self._entries = np.asarray(found, dtype=float)
        return self._entries

    def _kept(self) -> dict | None:
        return getattr(self.xp, "_inverses", None)

    def absolute(self) -> Applier:
        """The same map by :class:`AbsoluteOps` (the result shared; made once, so that
        it keeps its inverses)."""
        if self._absolute is None:
            self._absolute = Applier(self.op, self.k, self.args, AbsoluteOps(self._kept()))
            self._absolute._result = self.result
        return self._absolute
