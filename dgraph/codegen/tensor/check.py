"""Generated tensor code checked before it is returned: ``J·v`` of the Jacobian it
computes at a random point, along random directions, against the expression set's
blocks applied to the same directions (rounding only) and against central differences
of the array program itself (:func:`~dgraph.core.block_values.vertex_values`), which
shares no derivative code. ``J·v`` rather than J entry by entry: the check costs a few
products with the result, never a second sparse Jacobian."""

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
    jvp_of_expressions,
    random_inputs,
    vertex_values,
)
from ...core.blocks import to_matrix
from ...core.expressions import ExpressionSet
from ..check import CodeCheck

__all__ = [
    "BLOCK_TOLERANCE",
    "DIFFERENCE_TOLERANCE",
    "check_tensor",
    "dense_result",
    "offsets",
]

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


def offsets(vertices, size: dict) -> tuple[dict, int]:
    """Where each vertex's flattened entries start in their concatenation (rows of the
    outputs, columns of the inputs of one sparse Jacobian), and the total."""
    at, total = {}, 0
    for v in vertices:
        at[v], total = total, total + size[v]
    return at, total


def _blocks(got, graph, size: dict) -> dict:
    """What the generated code returned as its (output, input) blocks: a dict as it is,
    one matrix cut at the outputs' rows and the inputs' columns."""
    if isinstance(got, dict):
        return got
    if len(graph.outputs) == len(graph.inputs) == 1:  # the matrix is the one block
        return {(graph.outputs[0], graph.inputs[0]): got}
    (rows, m), (cols, n) = offsets(graph.outputs, size), offsets(graph.inputs, size)
    whole = _matrix(got, m, n)
    return {
        (y, x): whole[rows[y] : rows[y] + size[y], cols[x] : cols[x] + size[x]]
        for y in graph.outputs
        for x in graph.inputs
    }


def _generated_jv(blocks: dict, graph, sizes: dict, direction: dict) -> dict[str, np.ndarray]:
    """``J·v`` of the generated code's blocks."""
    out = {}
    for y in graph.outputs:
        jv = np.zeros(sizes[y])
        for x in graph.inputs:
            if (y, x) in blocks:
                m = _matrix(blocks[(y, x)], sizes[y], sizes[x])
                jv += np.asarray(m @ np.ravel(direction[x])).ravel()
        out[y] = jv
    return out


def _value_error(value, graph, values: dict, sizes: dict) -> float:
    """How far F(x) from ``value_and_jacobian`` is from the array program's outputs."""
    if isinstance(value, dict):
        flat = np.concatenate([np.ravel(np.asarray(value[y], dtype=float)) for y in graph.outputs])
    else:
        flat = np.ravel(np.asarray(value, dtype=float))
    expected = np.concatenate([np.ravel(values[y]) for y in graph.outputs])
    if flat.shape != expected.shape:
        return math.inf
    return float(np.abs(flat - expected).max(initial=0.0)) / max(
        1.0, float(np.abs(expected).max(initial=0.0))
    )


ILL_CONDITIONED = 1e4  # |J|·|v| / |J·v| past which J·v's rounding hides a wrong entry
ENTRY_LIMIT = 50_000_000  # Jacobian entries up to which the blocks are then compared


def _entry_error(got, es: ExpressionSet, values: dict, size: dict) -> float:
    """The largest difference between the generated Jacobian and the expression set's
    blocks evaluated with the same bracketing (:func:`jacobian_blocks`), relative to the
    largest entry: rounding only, however J·v cancels."""
    reference = jacobian_blocks(es, values)
    got = _blocks(got, es.graph, size)
    worst = 0.0
    for (y, x), part in reference.items():
        mine = _matrix(got[(y, x)], size[y], size[x]) if (y, x) in got else None
        if mine is None:
            return math.inf
        expected = scipy.sparse.csr_array((size[y], size[x])) if part is None else to_matrix(*part)
        if not scipy.sparse.issparse(mine):
            expected = expected.toarray()
        scale = max(1.0, float(abs(expected).max()) if expected.size else 1.0)
        difference = abs(mine - expected)
        worst = max(worst, (float(difference.max()) if np.prod(difference.shape) else 0.0) / scale)
    return worst


def check_tensor(
    function: Callable[..., dict],
    es: ExpressionSet,
    lang: str,
    seed: int = 0,
    mode: str = "jacobian",
) -> CodeCheck:
    """Run ``function`` (a generated ``jacobian`` or ``value_and_jacobian``) at a random
    point (seeded) and compare ``J·v`` along random directions with the expression set's
    blocks applied to them (rounding only: a wrong entry changes ``J·v`` for almost
    every direction) and with central differences of the array program (module
    docstring); the value F(x) with the program's outputs."""
    graph = es.graph
    found, inputs, values, frozen = check_point(graph, seed)
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    size = {v: math.prod(n) for v, n in shape.items()}
    rng = np.random.default_rng(seed + 1)
    directions = [
        {x: rng.standard_normal(shape[x]) for x in graph.inputs} for _ in range(DIRECTIONS)
    ]
    with context:  # read inside: BCOO's arrays computed in the context's precision
        got = function(*(inputs[x] for x in graph.inputs))
        value_error = 0.0
        if mode == "value_and_jacobian":
            value, got = got
            value_error = _value_error(value, graph, values, size)
        got = _blocks(got, graph, size)
        generated = [_generated_jv(got, graph, size, d) for d in directions]
    block_error = difference_error = 0.0
    conditioning = 1.0  # how far |J|·|v| exceeds J·v: the rounding J·v may differ by
    compared = 0  # directions where the program is finite on both sides
    for direction, mine in zip(directions, generated, strict=True):
        expected = jvp_of_expressions(es, values, direction)
        changes = differences(graph, inputs, direction, frozen, STEP) if found else None
        compared += changes is not None
        scales = {}  # each output's |J·v|, for the conditioning if it is needed
        for y in graph.outputs:
            scale = max(1.0, float(np.abs(expected[y]).max(initial=0.0)))
            worst = float(np.abs(mine[y] - expected[y]).max(initial=0.0))
            scales[y] = scale
            block_error = max(block_error, worst / scale)
            if changes is not None:
                scale = max(1.0, float(np.abs(changes[y]).max(initial=0.0)))
                worst = float(np.abs(mine[y] - np.ravel(changes[y])).max(initial=0.0))
                difference_error = max(difference_error, worst / scale)
        if block_error > BLOCK_TOLERANCE:  # rounding, or a wrong entry? |J|·|v| tells
            bound = jvp_of_expressions(es, values, direction, absolute=True)
            for y, scale in scales.items():
                top = float(np.abs(bound[y]).max(initial=0.0))
                conditioning = max(conditioning, top / scale)
    entrywise = (
        block_error > BLOCK_TOLERANCE
        and conditioning > ILL_CONDITIONED
        and sum(size[y] * size[x] for y in graph.outputs for x in graph.inputs) <= ENTRY_LIMIT
    )
    if entrywise:  # J·v cancels here: the blocks compared entry by entry, as bracketed
        block_error = _entry_error(got, es, values, size)
    ok = (
        block_error <= BLOCK_TOLERANCE
        and difference_error <= DIFFERENCE_TOLERANCE
        and value_error <= BLOCK_TOLERANCE
    )
    against = (
        f"the {lang} code's J·v along {DIRECTIONS} random directions at a random point"
        f" against the expression set's blocks (rel. error {block_error:.0e}, tolerance"
        f" {BLOCK_TOLERANCE:.0e})"
        if not entrywise
        else f"the {lang} code's Jacobian at a random point against the expression set's"
        f" blocks entry by entry (J·v cancels there: |J|·|v| is {conditioning:.0e} × J·v;"
        f" rel. error {block_error:.0e}, tolerance {BLOCK_TOLERANCE:.0e})"
    )
    if mode == "value_and_jacobian":
        against += f", its F(x) against the array program (rel. error {value_error:.0e})"
    detail = (
        f"{against} and against central differences of the array program along"
        f" {compared} of them (rel. error {difference_error:.0e}, tolerance"
        f" {DIFFERENCE_TOLERANCE:.0e})"
        if compared
        else f"{against}; no central differences: the program is not finite near any point tried"
    )
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={"jacobian": block_error, **({"value": value_error} if value_error else {})},
        difference_error=difference_error,
        against=("expression-set J·v", "central differences of vertex_values"),
    )
