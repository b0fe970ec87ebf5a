"""Determinants and decompositions of a jaxpr as array operations
(:mod:`dgraph.blocks.decompositions`):

* ``qr`` (reduced, or square; m ≥ n; no pivoting): ``qr_q`` and ``qr_r``;
* ``svd`` (reduced, or square, or values only): ``svd_values``, ``svd_u``, ``svd_vt``;
* the ``custom_jvp`` calls that compute ``jnp.linalg.slogdet`` and ``jnp.linalg.det`` of an
  n×n matrix from its ``lu`` factors (n ≥ 4 for ``det``; JAX writes smaller ones out):
  ``logabsdet``, ``sign(det)`` (no derivative) and ``det``. Which function a call is, is
  found as :func:`.jaxpr_rewrites.read_linear_solve` finds a solve's matrix: by evaluating
  it once on a random matrix and comparing with NumPy's ``slogdet`` / ``det``; a call that
  is neither is read as before (its ``lu`` as :mod:`.jaxpr_rewrites` reads it).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..blocks import linalg
from ..blocks.arrays import ArrayOp, Const
from ..errors import InputError
from .jaxpr_values import jax_module

__all__ = ["DECOMPOSED", "read_decomposition", "read_determinant"]

DECOMPOSED = frozenset({"qr", "svd"})


def _operand(x: Any) -> Any:
    return Const.of(np.asarray(x, dtype=float)) if isinstance(x, np.ndarray) else x


def _shape(var) -> tuple[int, ...]:
    return tuple(int(n) for n in var.aval.shape)


def read_decomposition(eqn, ins: list[Any], where: str) -> list[ArrayOp]:
    """``qr``'s Q and R, ``svd``'s s (and U, Vᵀ), one operation each.

    Raises
    ------
    InputError
        For a form whose derivative JAX itself does not define (full matrices of a
        non-square matrix, a wide QR is left out here) or that is not plain (pivoting, a
        subset of the values).
    """
    name, p = eqn.primitive.name, eqn.params
    a = _shape(eqn.invars[0])
    square = len(a) == 2 and a[0] == a[1]
    if name == "qr":
        if p.get("pivoting") or (p.get("full_matrices") and not square):
            raise InputError(f"{where}: qr is supported in its reduced form without pivoting")
        names = ("qr_q", "qr_r")
    else:
        uv = bool(p.get("compute_uv", True))
        if p.get("subset_by_index") is not None or (uv and p.get("full_matrices") and not square):
            raise InputError(
                f"{where}: svd is supported as values only, or reduced"
                " (full_matrices=False), of a whole matrix"
            )
        names = ("svd_values", "svd_u", "svd_vt") if uv else ("svd_values",)
    x = _operand(ins[0])
    ops = [ArrayOp(n, (x,), (), _shape(v)) for n, v in zip(names, eqn.outvars, strict=True)]
    for op in ops:
        linalg.check(op, [a])
    return ops


def _reads_lu(closed) -> bool:
    """Whether a closed jaxpr or one it calls has an ``lu`` equation."""
    stack = [closed.jaxpr]
    while stack:
        jaxpr = stack.pop()
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "lu":
                return True
            for value in eqn.params.values():
                inner = getattr(value, "jaxpr", value)
                if hasattr(inner, "eqns"):
                    stack.append(inner)
    return False


def read_determinant(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """A ``custom_jvp`` call of one traced square matrix that JAX's ``slogdet`` or ``det``
    computes from ``lu``, as ``sign(det)`` and ``logabsdet``, or ``det``; None for any
    other call."""
    if eqn.primitive.name != "custom_jvp_call" or len(ins) != 1 or not isinstance(ins[0], str):
        return None
    a = _shape(eqn.invars[0])
    outs = [_shape(v) for v in eqn.outvars]
    if len(a) != 2 or a[0] != a[1] or any(o != () for o in outs) or len(outs) > 2:
        return None
    which = _determinant(eqn.params["call_jaxpr"], a)
    if which is None:
        return None
    x = reader.operand(ins[0])
    if which == "det":
        return [reader.result(ArrayOp("det", (x,), (), ()), eqn.outvars[0].aval)]
    sign = ArrayOp("sign", (ArrayOp("det", (x,), (), ()),), (), ())
    return [sign, reader.result(ArrayOp("logabsdet", (x,), (), ()), eqn.outvars[1].aval)]


@functools.lru_cache(maxsize=64)
def _determinant(closed, shape: tuple[int, int]) -> str | None:
    """``"det"``, ``"slogdet"`` or None: what a call that reads ``lu`` computes, by its
    values at one random matrix (once per jaxpr: JAX reuses a function's jaxpr, and
    evaluating it op by op is slow)."""
    if not _reads_lu(closed):
        return None
    m = np.random.default_rng(0).standard_normal(shape)
    try:
        got = [float(v) for v in jax_module().core.eval_jaxpr(closed.jaxpr, closed.consts, m)]
    except Exception:
        return None
    tol = 1e-9 if closed.in_avals[0].dtype == np.float64 else 1e-4
    if len(got) == 1 and np.isclose(got[0], np.linalg.det(m), rtol=tol, atol=0):
        return "det"
    if len(got) == 2 and np.allclose(got, np.linalg.slogdet(m), rtol=tol, atol=tol * 1e-3):
        return "slogdet"
    return None
