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
import scipy.sparse

from ...core.block_values import (
    differences,
    finite_point,
    jacobian_blocks,
    random_inputs,
    vertex_values,
)
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


def _matrix(part, m: int, n: int):
    """A generated entry as an (m, n) matrix: SciPy's as it is, a BCOO array as SciPy's
    (never densified: a sparse result may be far too large for that), a dense one
    reshaped."""
    if scipy.sparse.issparse(part):
        return scipy.sparse.csr_array(part)
    if hasattr(part, "indices") and hasattr(part, "data"):  # JAX's BCOO
        ij = np.asarray(part.indices)
        data = np.asarray(part.data, dtype=float)
        return scipy.sparse.csr_array((data, (ij[:, 0], ij[:, 1])), shape=(m, n))
    return np.asarray(part, dtype=float).reshape(m, n)


def check_point(graph, seed: int) -> tuple[bool, dict, dict, dict]:
    """Where generated code is checked: the first finite point
    (:func:`~dgraph.core.block_values.finite_point`), else a random one (then no central
    differences): whether it is finite, the inputs, every vertex's value and the
    ``stop_gradient`` values to keep."""
    found = finite_point(graph, seed)
    if found is None:
        inputs = random_inputs(graph, seed)
        return False, inputs, vertex_values(graph, inputs), {}
    inputs, values, frozen, _ = found
    return True, inputs, values, frozen


def check_tensor(
    function: Callable[..., dict], es: ExpressionSet, lang: str, seed: int = 0
) -> CodeCheck:
    """Run ``function`` (a generated ``jacobian``) at a random point (seeded) and compare
    it with the blocks and with central differences (module docstring)."""
    graph = es.graph
    found, inputs, values, frozen = check_point(graph, seed)
    reference = jacobian_blocks(es, values)
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    size = {v: math.prod(n) for v, n in shape.items()}
    with context:  # read inside: BCOO's arrays computed in the context's precision
        got = function(*(inputs[x] for x in graph.inputs))
        matrices = {k: _matrix(part, size[k[0]], size[k[1]]) for k, part in got.items()}
    block_error = 0.0
    for (y, x), part in reference.items():
        if (y, x) not in matrices:
            return CodeCheck(False, True, f"the generated code has no entry ({y}, {x})")
        mine = matrices[(y, x)]
        expected = (
            scipy.sparse.csr_array((size[y], size[x]))
            if part is None
            else to_matrix(part[0], part[1])
        )
        if not scipy.sparse.issparse(mine):
            expected = expected.toarray()
        scale = max(1.0, float(abs(expected).max()) if expected.size else 1.0)
        difference = abs(mine - expected)
        worst = float(difference.max()) if np.prod(difference.shape) else 0.0
        block_error = max(block_error, worst / scale)
    rng = np.random.default_rng(seed + 1)
    difference_error = 0.0
    compared = 0  # directions where the program is finite on both sides
    for _ in range(DIRECTIONS):
        direction = {x: rng.standard_normal(shape[x]) for x in graph.inputs}
        changes = differences(graph, inputs, direction, frozen, STEP) if found else None
        compared += changes is not None
        for y in graph.outputs if changes is not None else ():
            jv = np.zeros(size[y])
            for x in graph.inputs:
                if (y, x) in matrices:
                    jv += np.asarray(matrices[(y, x)] @ direction[x].ravel()).ravel()
            expected = changes[y]
            scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
            difference_error = max(difference_error, float(np.abs(jv - expected).max()) / scale)
    ok = block_error <= BLOCK_TOLERANCE and difference_error <= DIFFERENCE_TOLERANCE
    detail = (
        f"the {lang} code's Jacobian at a random point against the expression set's blocks"
        f" (rel. error {block_error:.0e}, tolerance {BLOCK_TOLERANCE:.0e}) and J·v along"
        f" {compared} random directions against central differences of the array program"
        f" (rel. error {difference_error:.0e}, tolerance {DIFFERENCE_TOLERANCE:.0e})"
        if compared
        else f"the {lang} code's Jacobian at a random point against the expression set's"
        f" blocks (rel. error {block_error:.0e}, tolerance {BLOCK_TOLERANCE:.0e}); no"
        " central differences: the program is not finite near any point tried"
    )
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={"jacobian": block_error},
        difference_error=difference_error,
        against=("jacobian_blocks", "central differences of vertex_values"),
    )
