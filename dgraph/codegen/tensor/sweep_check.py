"""Generated ``jvp``/``vjp`` of a tensor graph checked before they are returned: at a
random finite point (:func:`~dgraph.core.block_values.finite_point`), along random
tangents (cotangents), against the Jacobian blocks of an expression set
(:func:`~dgraph.core.block_values.jacobian_blocks`, materialized with
:func:`~dgraph.core.blocks.to_matrix`: rounding only), and against central differences of
the array program (:func:`~dgraph.core.block_values.differences`, which shares no
derivative code): J·v directly, wᵀ·J by the dot-product test wᵀ(J v) = (wᵀJ) v."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np

from ...core.block_values import (
    differences,
    jacobian_blocks,
)
from ...core.blocks import to_matrix
from ...core.expressions import ExpressionSet
from ..check import CodeCheck
from .check import BLOCK_TOLERANCE, DIFFERENCE_TOLERANCE, STEP, check_point

__all__ = ["check_sweep"]

DIRECTIONS = 2


def check_sweep(
    function: Callable[..., dict], mode: str, es: ExpressionSet, lang: str, seed: int = 0
) -> CodeCheck:
    """Run ``function`` (a generated ``jvp`` or ``vjp``, ``mode``) at a random point and
    along :data:`DIRECTIONS` random directions (seeded), compared as the module says."""
    graph = es.graph
    found, inputs, values, frozen = check_point(graph, seed)
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    size = {v: math.prod(n) for v, n in shape.items()}
    blocks = jacobian_blocks(es, values)
    matrix = {k: to_matrix(p[0], p[1]) for k, p in blocks.items() if p is not None}
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    rng = np.random.default_rng(seed + 1)
    block_error = difference_error = 0.0
    compared = 0
    for _ in range(DIRECTIONS):
        v = {x: rng.standard_normal(shape[x]) for x in graph.inputs}
        w = {y: rng.standard_normal(shape[y]) for y in graph.outputs}
        seeds = v if mode == "jvp" else w
        with context:
            got = function(*(inputs[x] for x in graph.inputs), *seeds.values())
            got = {k: np.asarray(part, dtype=float).ravel() for k, part in got.items()}
        ends = graph.outputs if mode == "jvp" else graph.inputs
        if set(got) != set(ends):
            return CodeCheck(False, True, f"the generated {mode} returns {sorted(got)}")
        jv = {y: np.zeros(size[y]) for y in graph.outputs}
        wj = {x: np.zeros(size[x]) for x in graph.inputs}
        for (y, x), m in matrix.items():
            jv[y] += m @ v[x].ravel()
            wj[x] += m.T @ w[y].ravel()
        expected = jv if mode == "jvp" else wj
        for end in ends:
            scale = max(1.0, float(np.abs(expected[end]).max(initial=0.0)))
            error = float(np.abs(got[end] - expected[end]).max(initial=0.0)) / scale
            block_error = max(block_error, error)
        changes = differences(graph, inputs, v, frozen, STEP) if found else None
        if changes is None:
            continue
        compared += 1
        if mode == "jvp":
            for y in graph.outputs:
                scale = max(1.0, float(np.abs(changes[y]).max(initial=0.0)))
                error = float(np.abs(got[y] - changes[y]).max(initial=0.0)) / scale
                difference_error = max(difference_error, error)
        else:
            mine = sum(float(got[x] @ v[x].ravel()) for x in graph.inputs)
            theirs = sum(float(w[y].ravel() @ changes[y]) for y in graph.outputs)
            difference_error = max(difference_error, abs(mine - theirs) / max(1.0, abs(theirs)))
    ok = block_error <= BLOCK_TOLERANCE and difference_error <= DIFFERENCE_TOLERANCE
    what = "J·v" if mode == "jvp" else "wᵀ·J"
    against = (
        "J·v against central differences"
        if mode == "jvp"
        else "(wᵀ·J)·v against wᵀ·(central differences along v)"
    )
    detail = (
        f"the {lang} {mode}'s {what} at a random point along {DIRECTIONS} random directions"
        f" against the expression set's blocks ({es.method}; rel. error {block_error:.0e},"
        f" tolerance {BLOCK_TOLERANCE:.0e})"
    )
    detail += (
        f" and {against} of the array program along {compared}"
        f" (rel. error {difference_error:.0e}, tolerance {DIFFERENCE_TOLERANCE:.0e})"
        if compared
        else "; no central differences: the program is not finite near any point tried"
    )
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={mode: block_error},
        difference_error=difference_error if compared else None,
        against=("jacobian_blocks", "central differences of vertex_values"),
    )
