"""Generated ``jvp``/``vjp`` of a tensor graph checked before they are returned, where
values are checked (:mod:`dgraph.core.value_check`: the user's point, then a random one),
along a random tangent (and cotangent): against the Jacobian blocks of an expression set
(:func:`~dgraph.core.block_values.jacobian_blocks`, materialized with
:func:`~dgraph.blocks.to_matrix`: rounding only), and against the value check's
reference (JAX's ``jvp`` of the user's function, or differences of the array program),
which shares no derivative code: J·v directly; wᵀ·J through the blocks it matches and
by the dot-product test wᵀ(J v) = (wᵀJ) v. Errors are measured against the magnitudes
(|J|·|v|, |w|ᵀ·|J|, |w|ᵀ·|J|·|v|)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np

from ...blocks import to_matrix
from ...core.block_values import jacobian_blocks, jvp_of_expressions
from ...core.expressions import ExpressionSet
from ...core.value_check import FLOOR, Point, check_values
from ..check import CodeCheck
from .check import BLOCK_TOLERANCE

__all__ = ["check_sweep"]


def _relative(got: np.ndarray, expected: np.ndarray, scale: np.ndarray) -> float:
    """max |got - expected| over the magnitude of the terms (``FLOOR`` of the largest at
    least); NaN as infinity."""
    scale = np.abs(np.ravel(scale))
    unit = scale + FLOOR * float(scale.max(initial=0.0)) + np.finfo(float).tiny
    error = float(np.max(np.abs(np.ravel(got) - np.ravel(expected)) / unit, initial=0.0))
    return math.inf if math.isnan(error) else error


def check_sweep(
    function: Callable[..., dict], mode: str, es: ExpressionSet, lang: str, seed: int = 0
) -> CodeCheck:
    """Run ``function`` (a generated ``jvp`` or ``vjp``, ``mode``) at a random point and
    along :data:`DIRECTIONS` random directions (seeded), compared as the module says."""
    graph = es.graph
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    ends = graph.outputs if mode == "jvp" else graph.inputs
    errors = {"block": 0.0, "dot": 0.0}
    wrong_ends: list[str] = []

    def apply(point: Point, v: dict) -> dict:
        rng = np.random.default_rng(seed + 1)
        w = {y: rng.standard_normal(shape[y]) for y in graph.outputs}
        with context:
            got = function(
                *(point.inputs[x] for x in graph.inputs), *(v if mode == "jvp" else w).values()
            )
            got = {k: np.asarray(part, dtype=float).ravel() for k, part in got.items()}
        if set(got) != set(ends):
            wrong_ends[:] = sorted(got)
        jv = jvp_of_expressions(es, point.values, v)
        bound = jvp_of_expressions(es, point.values, v, absolute=True)
        if wrong_ends:
            return {y: (np.full(jv[y].shape, np.nan), bound[y]) for y in graph.outputs}
        if mode == "jvp":
            for y in graph.outputs:
                errors["block"] = max(errors["block"], _relative(got[y], jv[y], bound[y]))
            return {y: (got[y], bound[y]) for y in graph.outputs}
        blocks = jacobian_blocks(es, point.values)
        wj = {x: np.zeros(math.prod(shape[x])) for x in graph.inputs}
        size = {x: np.zeros(math.prod(shape[x])) for x in graph.inputs}
        for (y, x), part in blocks.items():
            if part is not None:
                m = to_matrix(part[0], part[1])
                wj[x] += m.T @ w[y].ravel()
                size[x] += abs(m).T @ np.abs(w[y]).ravel()
        for x in graph.inputs:
            errors["block"] = max(errors["block"], _relative(got[x], wj[x], size[x]))
        mine = sum(float(got[x] @ v[x].ravel()) for x in graph.inputs)
        theirs = sum(float(w[y].ravel() @ jv[y]) for y in graph.outputs)
        terms = sum(float(np.abs(w[y]).ravel() @ bound[y]) for y in graph.outputs)
        errors["dot"] = max(
            errors["dot"], _relative(np.array(mine), np.array(theirs), np.array(terms))
        )
        return {y: (jv[y], bound[y]) for y in graph.outputs}

    values = check_values(
        graph, apply, seed=seed, what=f"the {mode}'s J·v" if mode == "jvp" else "J·v"
    )
    if wrong_ends:
        return CodeCheck(False, True, f"the generated {mode} returns {wrong_ends}")
    if values.status == "not verified":
        return CodeCheck(False, False, values.detail, against=(values.reference,))
    block_error = max(errors.values())
    ok = bool(values) and block_error <= BLOCK_TOLERANCE
    what = "J·v" if mode == "jvp" else "wᵀ·J (and wᵀ·J·v by the dot-product test)"
    detail = (
        f"the {lang} {mode}'s {what} at {' and '.join(values.points) or 'the points tried'}"
        f" against the expression set's blocks ({es.method}; error {block_error:.0e} of the"
        f" magnitudes, tolerance {BLOCK_TOLERANCE:.0e}); {values.detail}"
    )
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={mode: block_error},
        difference_error=values.error,
        against=("jacobian_blocks", values.reference),
    )
