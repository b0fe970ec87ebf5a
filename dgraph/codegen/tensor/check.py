"""Generated tensor code checked before it is returned: ``J·v`` of the Jacobian it
computes where values are checked (the user's point, then a random one), along a random
direction, against the expression set's blocks applied to the same direction (rounding
only) and against the one value check's reference (:mod:`dgraph.core.value_check`:
JAX's ``jvp`` of the user's function, or differences of the array program), which
shares no derivative code. ``J·v`` rather than J entry by entry: the check costs a few
products with the result, never a second sparse Jacobian."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np
import scipy.sparse

from ...core.block_values import (
    jvp_of_expressions,
    random_inputs,
    vertex_values,
)
from ...core.expressions import ExpressionSet
from ...core.value_check import FLOOR, Point, check_points, check_values
from ..check import CodeCheck

__all__ = [
    "BLOCK_TOLERANCE",
    "check_tensor",
    "dense_result",
    "offsets",
]

BLOCK_TOLERANCE = 1e-9  # against the blocks' values, of |J|·|v|: rounding only


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
    """The first point values are checked at (:func:`~dgraph.core.value_check.check_points`:
    the user's point, else a random finite one), else a random one: whether it is finite,
    the inputs, every vertex's value and the ``stop_gradient`` values to keep."""
    found, _ = check_points(graph, seed)
    if not found:
        inputs = random_inputs(graph, seed)
        return False, inputs, vertex_values(graph, inputs), {}
    point = found[0]
    return True, point.inputs, point.values, point.frozen


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
    """How far F(x) from ``value_and_jacobian`` is from the array program's outputs,
    relative to the largest value the program computes (the scale of its rounding)."""
    if isinstance(value, dict):
        flat = np.concatenate([np.ravel(np.asarray(value[y], dtype=float)) for y in graph.outputs])
    else:
        flat = np.ravel(np.asarray(value, dtype=float))
    expected = np.concatenate([np.ravel(values[y]) for y in graph.outputs])
    if flat.shape != expected.shape:
        return math.inf
    largest = max(float(np.abs(v).max(initial=0.0)) for v in values.values())
    error = float(np.abs(flat - expected).max(initial=0.0))
    return error / largest if largest else error


def check_tensor(
    function: Callable[..., dict],
    es: ExpressionSet,
    lang: str,
    seed: int = 0,
    mode: str = "jacobian",
) -> CodeCheck:
    """Run ``function`` (a generated ``jacobian`` or ``value_and_jacobian``) where values
    are checked (:mod:`dgraph.core.value_check`: the user's point, then a random one) and
    compare its ``J·v`` along a random direction with the expression set's blocks applied
    to it (rounding only: a wrong entry changes ``J·v`` for almost every direction) and
    with the reference (JAX's ``jvp`` or differences of the array program), each entry
    against ``|J|·|v|``; the value F(x) with the program's outputs. Not run (``ran``
    False) where no point could be checked."""
    graph = es.graph
    context = contextlib.nullcontext()
    if lang == "jax":
        import jax

        context = jax.enable_x64(True)  # compared in doubles
    shape = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    size = {v: math.prod(n) for v, n in shape.items()}
    calls: dict[str, object] = {}  # the generated result at each point
    block_error = value_error = 0.0

    def apply(point: Point, direction: dict) -> dict:
        nonlocal block_error, value_error
        with context:  # read inside: BCOO's arrays computed in the context's precision
            if point.label not in calls:
                got = function(*(point.inputs[x] for x in graph.inputs))
                if mode == "value_and_jacobian":
                    value, got = got
                    value_error = max(value_error, _value_error(value, graph, point.values, size))
                calls[point.label] = _blocks(got, graph, size)
            mine = _generated_jv(calls[point.label], graph, size, direction)
        expected = jvp_of_expressions(es, point.values, direction)
        bound = jvp_of_expressions(es, point.values, direction, absolute=True)
        for y in graph.outputs:
            top = float(np.abs(bound[y]).max(initial=0.0))
            unit = np.abs(bound[y]) + FLOOR * top + np.finfo(float).tiny
            error = float(np.max(np.abs(mine[y] - expected[y]) / unit, initial=0.0))
            block_error = max(block_error, error if not math.isnan(error) else math.inf)
        return {y: (mine[y], bound[y]) for y in graph.outputs}

    values = check_values(graph, apply, seed=seed, what=f"the {lang} code's J·v")
    if values.status == "not verified":
        return CodeCheck(False, False, values.detail, against=(values.reference,))
    ok = bool(values) and block_error <= BLOCK_TOLERANCE and value_error <= BLOCK_TOLERANCE
    against = (
        f"the {lang} code's J·v along a random direction at {' and '.join(values.points)}"
        f" against the expression set's blocks (error {block_error:.0e} of |J|·|v|,"
        f" tolerance {BLOCK_TOLERANCE:.0e})"
    )
    if mode == "value_and_jacobian":
        against += f", its F(x) against the array program (rel. error {value_error:.0e})"
    detail = f"{against}; {values.detail}"
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + detail,
        errors={"jacobian": block_error, **({"value": value_error} if value_error else {})},
        difference_error=values.error,
        against=("expression-set J·v", values.reference),
    )
