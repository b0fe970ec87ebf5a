"""A JAX program's dense factorizations run by SciPy's LAPACK where their operands are in
host memory: the ``J·v`` of a function that solves, inverts or decomposes a matrix
(``lu``, ``triangular_solve``, ``cholesky``, ``eigh``, ``svd``, ``qr``) then compiles
nothing (:mod:`.jaxpr_numpy`).

JAX's CPU kernels for these primitives call the LAPACK routines SciPy exports
(``getrf``, ``trsm``, ``potrf``, ``syevd``, ``gesdd``, ``geqrf`` and ``orgqr``); each is
called here through :mod:`scipy.linalg.lapack` or :mod:`scipy.linalg.blas` on every
matrix of a stack, so the factors are the same (the pivots, the eigenvectors' and the
singular vectors' signs). Where the routine reports a failure (``info`` not 0: a matrix
that is not positive definite, an iteration that did not converge), or the equation asks
for what is not done here (pivoted ``qr``, a subset of eigen- or singular values, another
SVD algorithm), the equation is left to XLA: None."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["BATCH_MOST", "LINALG", "linalg_equation", "linalg_taken"]


def _each(x: np.ndarray, rank: int, function: Callable[..., list[np.ndarray] | None],
          *others: np.ndarray) -> list[np.ndarray] | None:  # fmt: skip
    """``function`` on each matrix of the stacks ``x`` and ``others`` (their last
    ``rank`` axes), its results stacked again; None where one is None."""
    batch = x.shape[: x.ndim - rank]
    found: list[list[np.ndarray]] = []
    for at in np.ndindex(*batch):
        one = function(x[at], *(o[at] for o in others))
        if one is None:
            return None
        found.append(one)
    if not found:
        return None
    return [np.stack([f[k] for f in found]).reshape(batch + found[0][k].shape)
            for k in range(len(found[0]))]  # fmt: skip


def _lapack(name: str, x: np.ndarray) -> Callable[..., Any]:
    from scipy.linalg import lapack

    return getattr(lapack, ("s" if x.dtype == np.float32 else "d") + name)


def _lu(x: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``lu``: LAPACK's packed factors, its 0-based pivots and the row permutation they
    make (``lax.linalg.lu``'s three results)."""
    m = x.shape[-2]

    def one(a: np.ndarray) -> list[np.ndarray]:
        lu, piv, _ = _lapack("getrf", a)(a)  # info > 0 (a zero pivot): factors still made
        perm = np.arange(m)
        for i, j in enumerate(piv):
            perm[i], perm[j] = perm[j], perm[i]
        return [lu, piv.astype(np.int32), perm.astype(np.int32)]

    return _each(x, 2, one)


def _triangular_solve(a: np.ndarray, b: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``triangular_solve``: ``op(a) x = b`` (``left_side``) or ``x op(a) = b``, ``op``
    the transpose where ``transpose_a``, by BLAS's ``trsm`` as XLA's CPU kernel."""
    from scipy.linalg import blas

    trsm = blas.strsm if a.dtype == np.float32 else blas.dtrsm
    left, lower, trans = p["left_side"], p["lower"], p["transpose_a"]
    unit = p["unit_diagonal"]

    def one(a1: np.ndarray, b1: np.ndarray) -> list[np.ndarray]:
        x = trsm(1.0, a1, b1, side=0 if left else 1, lower=int(lower),
                 trans_a=int(trans), diag=int(unit))  # fmt: skip
        return [np.asarray(x)]

    return _each(a, 2, one, b)


def _cholesky(x: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``cholesky``: the lower factor of the lower triangle, zeros above it."""

    def one(a: np.ndarray) -> list[np.ndarray] | None:
        c, info = _lapack("potrf", a)(a, lower=1, clean=1)
        return None if info != 0 else [c]

    return _each(x, 2, one)


def _eigh(x: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``eigh``: the eigenvectors, then the eigenvalues (ascending), by ``syevd`` of the
    triangle ``lower`` names."""
    if p.get("subset_by_index") not in (None, (0, x.shape[-1])) or p.get("algorithm"):
        return None
    lower = int(p["lower"])

    def one(a: np.ndarray) -> list[np.ndarray] | None:
        w, v, info = _lapack("syevd", a)(a, compute_v=1, lower=lower)
        return None if info != 0 else [v, w]

    return _each(x, 2, one)


def _svd(x: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``svd``: the singular values (descending), then ``u`` and ``vt`` where
    ``compute_uv``, by ``gesdd``."""
    k = min(x.shape[-2:])
    if p.get("subset_by_index") not in (None, (0, k)) or p.get("algorithm") is not None:
        return None
    uv, full = bool(p["compute_uv"]), int(bool(p["full_matrices"]))

    def one(a: np.ndarray) -> list[np.ndarray] | None:
        u, s, vt, info = _lapack("gesdd", a)(a, compute_uv=int(uv), full_matrices=full)
        if info != 0:
            return None
        return [s, u, vt] if uv else [s]

    return _each(x, 2, one)


def _qr(x: np.ndarray, p: dict) -> list[np.ndarray] | None:
    """``qr`` without pivoting: ``q`` (``m × m`` where ``full_matrices``, else ``m × k``)
    and ``r``, by ``geqrf`` and ``orgqr``."""
    if p.get("pivoting"):
        return None
    m, n = x.shape[-2:]
    k = m if p["full_matrices"] else min(m, n)

    def one(a: np.ndarray) -> list[np.ndarray] | None:
        packed, tau, _, info = _lapack("geqrf", a)(a)
        if info != 0:
            return None
        r = np.triu(packed[:k, :])
        wide = np.zeros((m, k), dtype=a.dtype)
        wide[:, : min(m, n)] = packed[:, : min(m, n)]
        q, _, info = _lapack("orgqr", a)(wide, tau)
        return None if info != 0 else [q, r]

    return _each(x, 2, one)


LINALG: dict[str, Callable[..., list[np.ndarray] | None]] = {
    "lu": _lu,
    "cholesky": _cholesky,
    "eigh": _eigh,
    "svd": _svd,
    "qr": _qr,
}
"""The one-operand factorizations, each ``lax`` name to its function of (matrix stack,
params); ``triangular_solve`` (two operands) besides them."""


BATCH_MOST = 64
"""The most matrices in a stack taken here: each is one LAPACK call from Python (some
10-30 µs), where XLA's kernel loops over a stack in one call."""


def linalg_taken(
    name: str, kinds: list[str], dtypes: list[np.dtype], shapes: list[tuple[int, ...]]
) -> bool:
    """Whether :func:`linalg_equation` takes an equation ``name`` on operands of these
    NumPy kinds, dtypes (real floats, single or double, alike) and shapes (matrices, at
    most :data:`BATCH_MOST` in a stack)."""
    if name not in LINALG and name != "triangular_solve":
        return False
    if any(len(s) < 2 for s in shapes) or int(np.prod(shapes[0][:-2])) > BATCH_MOST:
        return False
    if any(k != "f" for k in kinds) or len({np.dtype(d) for d in dtypes}) != 1:
        return False
    if np.dtype(dtypes[0]) not in (np.dtype(np.float32), np.dtype(np.float64)):
        return False
    return len(kinds) == (2 if name == "triangular_solve" else 1)


def linalg_equation(name: str, xs: list[np.ndarray], params: dict) -> list[np.ndarray] | None:
    """The factorization ``name`` on ``xs`` by LAPACK (module docstring); its results as
    a list, None where it is left to XLA."""
    if not linalg_taken(name, [x.dtype.kind for x in xs], [x.dtype for x in xs],
                        [x.shape for x in xs]):  # fmt: skip
        return None
    if name == "triangular_solve":
        return _triangular_solve(xs[0], xs[1], params)
    return LINALG[name](xs[0], params)
