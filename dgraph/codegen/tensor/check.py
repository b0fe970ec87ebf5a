"""Generated tensor code checked before it is returned: the Jacobian it computes at a
random point against the expression set evaluated over blocks
(:func:`~dgraph.core.block_values.jacobian_blocks`, materialized with
:func:`~dgraph.core.blocks.to_matrix`; rounding only), and ``J·v`` along random directions
against central differences of the array program itself
(:func:`~dgraph.core.block_values.vertex_values`), which shares no derivative code."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np

from ...core.block_values import jacobian_blocks, random_inputs, vertex_values
from ...core.blocks import to_matrix
from ...core.expressions import ExpressionSet
from ..check import CodeCheck

__all__ = ["BLOCK_TOLERANCE", "DIFFERENCE_TOLERANCE", "check_tensor", "dense_result"]

BLOCK_TOLERANCE = 1e-9  # against the blocks' values: rounding only
DIFFERENCE_TOLERANCE = 1e-5  # against central differences (step 1e-6): truncation, rounding
STEP = 1e-6
DIRECTIONS = 2


def dense_result(part, shape: tuple[int, ...]) -> np.ndarray:
    """A generated entry as a dense array of ``shape`` (a SciPy or BCOO array densified)."""
    if hasattr(part, "toarray"):
        part = part.toarray()
    elif hasattr(part, "todense"):
        part = part.todense()
    return np.asarray(part, dtype=float).reshape(shape)


def check_tensor(
    function: Callable[..., dict], es: ExpressionSet, lang: str, seed: int = 0
) -> CodeCheck:
    """Run ``function`` (a generated ``jacobian``) at a random point (seeded) and compare
    it with the blocks and with central differences (module docstring)."""
    graph = es.graph
    inputs = random_inputs(graph, seed)
    values = vertex_values(graph, inputs)
    reference = jacobian_blocks(es, values)
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    with context:  # densified inside: BCOO's todense computes in the context's precision
        got = function(*(inputs[x] for x in graph.inputs))
        dense = {k: dense_result(part, (*shape[k[0]], *shape[k[1]])) for k, part in got.items()}
    block_error = 0.0
    for (y, x), part in reference.items():
        if (y, x) not in dense:
            return CodeCheck(False, True, f"the generated code has no entry ({y}, {x})")
        expected = np.zeros(dense[(y, x)].shape)
        if part is not None:
            expected = to_matrix(part[0], part[1]).toarray().reshape(expected.shape)
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        block_error = max(block_error, float(np.abs(dense[(y, x)] - expected).max()) / scale)
    rng = np.random.default_rng(seed + 1)
    difference_error = 0.0
    for _ in range(DIRECTIONS):
        direction = {x: rng.standard_normal(shape[x]) for x in graph.inputs}
        plus = vertex_values(graph, {x: inputs[x] + STEP * direction[x] for x in graph.inputs})
        minus = vertex_values(graph, {x: inputs[x] - STEP * direction[x] for x in graph.inputs})
        for y in graph.outputs:
            jv = np.zeros(math.prod(shape[y]))
            for x in graph.inputs:
                if (y, x) in dense:
                    jv += dense[(y, x)].reshape(jv.size, -1) @ direction[x].ravel()
            expected = ((plus[y] - minus[y]) / (2 * STEP)).ravel()
            scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
            difference_error = max(difference_error, float(np.abs(jv - expected).max()) / scale)
    ok = block_error <= BLOCK_TOLERANCE and difference_error <= DIFFERENCE_TOLERANCE
    detail = (
        f"the {lang} code's Jacobian at a random point against the expression set's blocks"
        f" (rel. error {block_error:.0e}, tolerance {BLOCK_TOLERANCE:.0e}) and J·v along"
        f" {DIRECTIONS} random directions against central differences of the array program"
        f" (rel. error {difference_error:.0e}, tolerance {DIFFERENCE_TOLERANCE:.0e})"
    )
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={"jacobian": block_error},
        difference_error=difference_error,
        against=("jacobian_blocks", "central differences of vertex_values"),
    )
