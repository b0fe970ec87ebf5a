"""Determinants and decompositions of a jaxpr as array operations
(:mod:`dgraph.blocks.decompositions`):

* ``qr`` (reduced, or square; m ≥ n; no pivoting): ``qr_q`` and ``qr_r``;
* ``svd`` (reduced, or square, or values only): ``svd_values``, ``svd_u``, ``svd_vt``;
* the ``custom_jvp`` calls that compute ``jnp.linalg.slogdet`` and ``jnp.linalg.det`` of an
  n×n matrix, or a stack of them, from its ``lu`` factors (n ≥ 4 for ``det``; JAX writes
  smaller ones out; a stack one operation per matrix, as NumPy's reader reads it):
  ``logabsdet``, ``sign(det)`` (no derivative) and ``det``. Which function a call is, is
  found as :func:`.jaxpr_rewrites.read_linear_solve` finds a solve's matrix: by evaluating
  it once on a random matrix and comparing with NumPy's ``slogdet`` / ``det``; a call that
  is neither is read as before (its ``lu`` as :mod:`.jaxpr_rewrites` reads it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..blocks import linalg
from ..blocks.arrays import ArrayOp, Const
from ..errors import InputError

__all__ = [
    "DECOMPOSED",
    "STACK_MOST",
    "determinant_of",
    "matrices_of",
    "read_decomposition",
    "read_determinant",
    "stacked",
]

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
    """A ``custom_jvp`` call of one traced square matrix, or of a stack of them (shape
    ``(..., n, n)``), that JAX's ``slogdet`` or ``det`` computes from ``lu``, as
    ``sign(det)`` and ``logabsdet``, or ``det``; None for any other call. A stack of small
    matrices is one operation over the stack (:func:`dgraph.blocks.linalg.batched`), of
    larger ones one operation per matrix, stacked into the batch axes, as NumPy's reader
    reads ``np.linalg.det`` of a stack (its ``lu`` and the custom rule's
    ``triangular_solve`` are not read)."""
    if len(ins) != 1 or not isinstance(ins[0], str):
        return None
    which = determinant_of(eqn, reader.eagerly)
    if which is None:
        return None
    rank = len(eqn.invars[0].aval.shape) - 2
    batch = _shape(eqn.invars[0])[:rank]
    if rank and linalg.batched((), _shape(eqn.invars[0])[rank:]):  # one operation
        whole = reader.operand(ins[0])
        if which == "det":
            return [reader.result(ArrayOp("det", (whole,), (), batch), eqn.outvars[0].aval)]
        sign = ArrayOp("sign", (ArrayOp("det", (whole,), (), batch),), (), batch)
        log = ArrayOp("logabsdet", (whole,), (), batch)
        return [reader.result(op, v.aval) for op, v in zip((sign, log), eqn.outvars, strict=True)]
    matrices = matrices_of(reader, reader.operand(ins[0]), eqn.invars[0].aval, rank)
    if which == "det":
        dets = [reader.result(ArrayOp("det", (x,), (), ()), eqn.outvars[0].aval) for x in matrices]
        return [stacked(reader, dets, (), eqn.outvars[0].aval)]
    signs = [ArrayOp("sign", (ArrayOp("det", (x,), (), ()),), (), ()) for x in matrices]
    logs = [
        reader.result(ArrayOp("logabsdet", (x,), (), ()), eqn.outvars[1].aval) for x in matrices
    ]
    return [
        stacked(reader, signs, (), eqn.outvars[0].aval),
        stacked(reader, logs, (), eqn.outvars[1].aval),
    ]


def determinant_of(eqn, run: Callable[..., list[Any]]) -> str | None:
    """``"det"`` or ``"slogdet"`` where ``eqn`` is the ``custom_jvp`` call by which JAX's
    ``det`` or ``slogdet`` computes one square matrix's, or a stack's (of small matrices,
    :func:`dgraph.blocks.linalg.batched`; else at most :data:`STACK_MOST` matrices), from
    its ``lu`` factors; else None. ``run(jaxpr, consts, args)``: how its program is run
    on a NumPy matrix (:func:`~.jaxpr_arrays.run_eagerly`, which reads this module)."""
    if eqn.primitive.name != "custom_jvp_call" or len(eqn.invars) != 1:
        return None
    a = _shape(eqn.invars[0])
    outs = [_shape(v) for v in eqn.outvars]
    if len(a) < 2 or a[-1] != a[-2] or any(o != a[:-2] for o in outs) or len(outs) > 2:
        return None
    many = math.prod(a[:-2]) > STACK_MOST and not linalg.batched((), a[-2:])
    if len(a) > 2 and (a[-1] == 0 or many):  # a stack of small matrices: one operation
        return None
    return _determinant(eqn.params["call_jaxpr"], a, run)


STACK_MOST = 4096
"""Matrices a stacked ``det``/``slogdet`` may hold (one operation each), as NumPy's reader
allows (:data:`dgraph.frontends.array_tracer.STACK_MOST`)."""


def matrices_of(reader, x: Any, aval, rank: int) -> list[Any]:
    """The matrices of ``x`` (its axes after the first ``rank``, the batch axes) in
    row-major order of the batch axes: ``[x]`` for one matrix; else the batch axes made
    one (a reshape) and each matrix sliced out of it, or NumPy's of a constant."""
    shape = tuple(int(n) for n in aval.shape)
    if rank == 0:
        return [x]
    core, count = shape[rank:], math.prod(shape[:rank])
    if isinstance(x, np.ndarray):
        return list(np.asarray(x).reshape((count, *core)))
    flat = reader.operand(reader.result(ArrayOp("reshape", (x,), (), (count, *core)), aval))
    parts = []
    for k in range(count):
        params = (("start_indices", (k, *(0 for _ in core))), ("limit_indices", (k + 1, *core)),
                  ("strides", None))  # fmt: skip
        one = reader.result(ArrayOp("slice", (flat,), params, (1, *core)), aval)
        parts.append(reader.operand(reader.result(
            ArrayOp("reshape", (reader.operand(one),), (), core), aval)))  # fmt: skip
    return parts


def stacked(reader, parts: list[Any], core: tuple[int, ...], aval) -> Any:
    """``parts`` (one array of shape ``core`` per matrix) stacked into ``aval``'s shape,
    the batch axes first (``parts[0]`` itself for one matrix)."""
    shape = tuple(int(n) for n in aval.shape)
    if shape == core:
        return parts[0]
    ones = [
        reader.operand(
            reader.result(ArrayOp("reshape", (reader.operand(p),), (), (1, *core)), aval)
        )
        for p in parts
    ]
    joined = ArrayOp("concatenate", tuple(ones), (("dimension", 0),), (len(parts), *core))
    flat = reader.operand(reader.result(joined, aval))
    return reader.result(ArrayOp("reshape", (flat,), (), shape), aval)


@functools.lru_cache(maxsize=64)
def _determinant(closed, shape: tuple[int, ...], run: Callable[..., list[Any]]) -> str | None:
    """``"det"``, ``"slogdet"`` or None: what a call that reads ``lu`` computes, by its
    values at one random matrix (once per jaxpr: JAX reuses a function's jaxpr), run by
    ``run`` (LU by LAPACK as XLA's, the rest by NumPy: ``eval_jaxpr`` compiled a kernel
    per operation, some 5)."""
    if not _reads_lu(closed):
        return None
    m = np.random.default_rng(0).standard_normal(shape)
    try:
        got = [np.asarray(v, dtype=float) for v in run(closed.jaxpr, closed.consts, [m])]
    except Exception:
        return None
    tol = 1e-9 if closed.in_avals[0].dtype == np.float64 else 1e-4
    if len(got) == 1 and np.allclose(got[0], np.linalg.det(m), rtol=tol, atol=0):
        return "det"
    if len(got) == 2 and all(
        np.allclose(g, w, rtol=tol, atol=tol * 1e-3)
        for g, w in zip(got, np.linalg.slogdet(m), strict=True)
    ):
        return "slogdet"
    return None
