"""Determinants and decompositions of one real matrix (a stack's: the same formulas
broadcast over its batch axes, :mod:`dgraph.blocks.linalg`), each result an
array operation with a dense block, its values the tangent map applied to every basis
direction (as :mod:`dgraph.blocks.linalg`, which dispatches here):

* ``det`` and ``logabsdet`` (``log|det A|``, ``jnp.linalg.slogdet``'s second result) of a
  square matrix: ``d det A = tr(adj(A)·dA)`` (Jacobi's formula; ``adj(A)ᵀ`` the cofactor
  matrix, :func:`cofactors`, defined at every matrix: ``det A·A⁻ᵀ`` where A is invertible,
  rank one at rank n-1, 0 at rank n-2 and lower) and ``d log|det A| = tr(A⁻¹·dA)`` (infinite
  at a singular matrix: NaN there, as JAX gives); the sign of ``det`` has no derivative;
* ``qr_q`` and ``qr_r``, the reduced QR of an m×n matrix, m ≥ n: with ``C = Qᵀ·dA·R⁻¹``
  and ``Ω = L - Lᵀ``, ``L`` the strict lower triangle of C (the skew-symmetric part that
  keeps Q orthonormal), ``dQ = Q·(Ω - C) + dA·R⁻¹`` and ``dR = (C - Ω)·R`` (JAX's rule
  for the reduced QR, ``qr_jvp_rule``); R must be invertible;
* ``svd_values``, ``svd_u``, ``svd_vt``: the reduced SVD ``A = U·diag(s)·Vᵀ`` of an m×n
  matrix, k = min(m, n) values in descending order. With ``S = Uᵀ·dA·V``:
  ``ds = diag(S)``; ``dU = U·(F ∘ (S·diag(s) + diag(s)·Sᵀ))`` and
  ``dV = V·(F ∘ (diag(s)·S + Sᵀ·diag(s)))``, ``F_ij = 1/(s_j² - s_i²)`` off the diagonal and
  0 on it; for m > n, ``dU`` also takes ``(I - U·Uᵀ)·dA·V·diag(s)⁻¹``, for n > m ``dV``
  takes ``(I - V·Vᵀ)·dAᵀ·U·diag(s)⁻¹`` (JAX's ``_svd_jvp_rule``, real case);
* ``lu``: the packed factors ``L + U - I`` of ``P·A = L·U`` for a square matrix, by
  partial pivoting (:func:`factor`: at step k the first row at or below k of the largest
  magnitude in column k, as LAPACK's ``getrf``); ``lu_pivots`` and ``lu_permutation`` its
  integer pivots and permutation (no derivative). With the rows held (P is discrete: the
  rule is the derivative only where no two candidate pivots tie, and nothing here claims
  more), ``X = L⁻¹·P·dA·U⁻¹`` and ``dLU = L·tril(X, -1) + triu(X)·U`` (JAX's
  ``lu_jvp_rule``), P·dA the rows of dA in the permutation's order and L⁻¹, U⁻¹ inverses
  of the triangles (not ``U·A⁻¹`` for ``L⁻¹·P``, equal in exact arithmetic: reading A⁻¹
  made the tangent's error 40 times larger at condition 10¹⁰).

The singular vectors' derivatives exist only where the singular values are distinct and
nonzero (F and diag(s)⁻¹ are then finite), as the eigenvectors' (``eigh``) only where the
eigenvalues are distinct: at a repeated value the formulas give infinities or numbers
that are no derivative, which the value check (:mod:`dgraph.core.value_check`) reports.
At a repeated singular value the values' own ``diag(S)`` is JAX's answer for the basis
LAPACK returned (a repeated value is not differentiable; JAX gives the same numbers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InputError

__all__ = ["DECOMPOSITIONS", "LU_DATA", "check", "cofactors", "factor", "forward", "tangent"]

DECOMPOSITIONS = frozenset({"det", "logabsdet", "qr_q", "qr_r", "svd_values", "svd_u", "svd_vt"})
DECOMPOSITIONS |= {"lu"}
LU_DATA = ("lu_pivots", "lu_permutation")  # lu's integer results: no derivative


def check(op: Any, shapes: Sequence[tuple[int, ...]]) -> None:
    """One matrix (a stack's is checked so by :func:`dgraph.blocks.linalg.check`): square
    for a determinant and for ``lu``, at least as many rows as columns for QR.

    Raises
    ------
    InputError
        For another shape.
    """
    a = tuple(shapes[0])
    name = op.primitive
    if len(a) != 2 or 0 in a:
        raise InputError(
            f"{name}: one matrix, or a stack of them (the result's batch axes first), is"
            f" supported, not an operand of shape {a}"
        )
    if name in ("det", "logabsdet", "lu", *LU_DATA) and a[0] != a[1]:
        raise InputError(f"{name}: the matrix must be square, not of shape {a}")
    if name.startswith("qr") and a[0] < a[1]:
        raise InputError(f"{name}: QR of a wide matrix (shape {a}) is not supported")


def _same(x: Any) -> Any:
    return x


def cofactors(a: Any, n: int, xp: Any) -> Any:
    """The cofactor matrix ``adj(A)ᵀ = ∂ det A/∂A`` of the n×n matrix ``a``, at every matrix,
    singular or not, from the SVD ``A = U·diag(s)·Vᵀ``:
    ``adj(A)ᵀ = det U·det Vᵀ·U·diag(∏_{j≠i} s_j)·Vᵀ`` (``adj`` is multiplicative and
    ``adj(diag(s)) = diag(∏_{j≠i} s_j)``; Stewart, "On the adjugate matrix", Linear Algebra
    Appl. 283, 1998). No division: rank one at rank n-1 (one ``s_j`` is 0), 0 at rank n-2
    and lower. The singular vectors' signs cancel (a pair flipped flips one of the dets)."""
    triple = xp.svd(a)
    u, s, vt = xp.part(triple, 0), xp.part(triple, 1), xp.part(triple, 2)
    others = xp.last_prod(xp.where(xp.eq(xp.eye(n), 1.0), 1.0, xp.row(s)))  # ∏_{j≠i} s_j
    sign = xp.column(xp.column(xp.scale(xp.det(u), xp.det(vt))))  # of each matrix of a stack
    return xp.scale(sign, xp.matmul(xp.scale(u, xp.row(others)), vt))


def factor(a: Any, n: int, xp: Any, emit: Callable[[Any], Any] = _same) -> tuple[Any, Any, Any]:
    """The packed factors, pivots and permutation of the n×n matrix ``a`` by Gaussian
    elimination with partial pivoting, one step per column (JAX's ``_lu_unblocked``):
    the first row at or below k of the largest magnitude in column k swapped with row k,
    the column below the pivot divided by it (where it is not 0), the outer product
    subtracted from the rest. ``emit`` names each step's matrix (generated code)."""
    rows = emit(xp.arange(n))
    permutation, pivots = rows, []
    for k in range(n):
        magnitude = xp.where(xp.ge(rows, k), xp.abs(xp.take(a, k, 1)), -1.0)
        i = emit(xp.argmax(magnitude))
        pivots.append(i)
        swap = emit(xp.where(xp.eq(rows, k), i, xp.where(xp.eq(rows, i), k, rows)))
        a = emit(xp.take(a, swap, 0))
        permutation = emit(xp.take(permutation, swap, 0))
        if k == n - 1:
            break
        column = xp.take(a, k, 1)
        pivot = xp.take(column, k, 0)
        divided = xp.div(column, xp.where(xp.eq(pivot, 0.0), 1.0, pivot))
        column = emit(xp.where(xp.gt(rows, k), divided, column))
        a = xp.where(xp.eq(xp.row(rows), k), xp.column(column), a)
        below_right = xp.both(xp.gt(xp.column(rows), k), xp.gt(xp.row(rows), k))
        outer = xp.mul(xp.column(column), xp.row(xp.take(a, k, 0)))
        a = emit(xp.sub(a, xp.where(below_right, outer, 0.0)))
    return a, emit(xp.stack(pivots)), permutation


def forward(op: Any, args: Sequence[Any], xp: Any, emit: Callable[[Any], Any] = _same) -> Any:
    """The result, over the array vocabulary ``xp`` (:class:`dgraph.blocks.linalg.NumPyOps`)."""
    name, a = op.primitive, args[0]
    if name in ("lu", *LU_DATA):
        return factor(a, op.shape[0], xp, emit)[("lu", *LU_DATA).index(name)]
    if name == "det":
        return xp.det(a)
    if name == "logabsdet":
        return xp.part(xp.slogdet(a), 1)
    if name.startswith("qr"):
        return xp.part(xp.qr(a), 0 if name == "qr_q" else 1)
    return xp.part(xp.svd(a), {"svd_u": 0, "svd_values": 1, "svd_vt": 2}[name])


def tangent(
    op: Any, args: Sequence[Any], d: Any, result: Any, xp: Any, emit: Callable[[Any], Any] = _same
) -> Any:
    """The result's tangents for tangents ``d`` of the matrix (a leading axis of
    directions), ``result`` the primal result; ``lu``'s permutation the elimination's
    again, its steps named by ``emit`` (generated code computes them once)."""
    name, a = op.primitive, args[0]
    if name == "det":  # tr(adj(A)·dA)
        return xp.last_sum(xp.last_sum(xp.scale(xp.cofactors(a), d)))
    if name == "logabsdet":  # tr(A⁻¹·dA)
        return xp.last_sum(xp.last_sum(xp.scale(xp.swap(xp.inv(a)), d)))
    if name.startswith("qr"):
        return _qr(name, a, d, xp)
    if name == "lu":
        return _lu(op.shape[0], factor(a, op.shape[0], xp, emit)[2], d, result, xp)
    return _svd(op, a, d, xp)


def _lu(n: int, permutation: Any, d: Any, packed: Any, xp: Any) -> Any:
    """``dLU = L·tril(X, -1) + triu(X)·U``, ``X = L⁻¹·P·dA·U⁻¹`` (module docstring)."""
    lower, upper = xp.add(xp.tril(packed, -1), xp.eye(n)), xp.triu(packed)
    rows = xp.take(d, permutation, -2)  # P·dA
    x = xp.matmul(xp.matmul(xp.inv(lower), rows), xp.inv(upper))
    return xp.add(xp.matmul(lower, xp.tril(x, -1)), xp.matmul(xp.triu(x), upper))


def _qr(name: str, a: Any, d: Any, xp: Any) -> Any:
    pair = xp.qr(a)
    q, r = xp.part(pair, 0), xp.part(pair, 1)
    d_rinv = xp.matmul(d, xp.inv(r))
    c = xp.matmul(xp.swap(q), d_rinv)
    lower = xp.tril(c, -1)
    omega = xp.sub(lower, xp.swap(lower))
    if name == "qr_q":
        return xp.add(xp.matmul(q, xp.sub(omega, c)), d_rinv)
    return xp.matmul(xp.sub(c, omega), r)


def _svd(op: Any, a: Any, d: Any, xp: Any) -> Any:
    """The SVD's tangents; k, and whether the matrix is tall or wide, read off the result's
    shape (U is m×k, Vᵀ is k×n, k = min(m, n))."""
    name, shape = op.primitive, tuple(op.shape)
    triple = xp.svd(a)
    u, s, vt = xp.part(triple, 0), xp.part(triple, 1), xp.part(triple, 2)
    v = xp.swap(vt)
    k = shape[1] if name == "svd_u" else shape[0]
    inner = xp.matmul(xp.matmul(xp.swap(u), d), v)  # S = Uᵀ·dA·V, k×k
    if name == "svd_values":
        return xp.last_sum(xp.mul(inner, xp.eye(k)))
    squares = xp.mul(s, s)
    gaps = xp.add(xp.sub(xp.row(squares), xp.column(squares)), xp.eye(k))
    # 1/(s_j² - s_i²), 0 on the diagonal by a mask: a compiler that contracts s_j·s_j -
    # s_i·s_i into one fused multiply-add (XLA) leaves 1e-12 there, not 0, and where the
    # SVD's terms cancel (Kabsch's RMSD at its optimal rotation) that was 1e-9 of J
    f = xp.where(xp.eq(xp.eye(k), 1.0), 0.0, xp.div(1.0, gaps))
    if name == "svd_u":
        scaled = xp.mul(xp.row(s), inner)  # S·diag(s)
        du = xp.matmul(u, xp.mul(f, xp.add(scaled, xp.swap(scaled))))
        if shape[0] > k:  # tall
            dav = xp.matmul(d, v)
            rest = xp.sub(dav, xp.matmul(u, xp.matmul(xp.swap(u), dav)))
            du = xp.add(du, xp.div(rest, xp.row(s)))
        return du
    scaled = xp.mul(xp.column(s), inner)  # diag(s)·S
    dv = xp.matmul(v, xp.mul(f, xp.add(scaled, xp.swap(scaled))))
    if shape[1] > k:  # wide
        dau = xp.matmul(xp.swap(d), u)
        rest = xp.sub(dau, xp.matmul(v, xp.matmul(vt, dau)))
        dv = xp.add(dv, xp.div(rest, xp.row(s)))
    return xp.swap(dv)
