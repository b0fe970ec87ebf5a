"""Generated tensor ``jacobian`` / ``value_and_jacobian`` code checked before it is
returned, by the one value check (:func:`dgraph.core.value_check.check_code`): here only
how to run it, and its result read as ``J·v`` (a few products with the result, never a
second sparse Jacobian) and F(x)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np
import scipy.sparse

from ...core.expressions import ExpressionSet
from ...core.value_check import CodeCheck, CodeValues, Point, check_code, code_check

__all__ = ["check_tensor", "dense_result", "double_precision", "offsets"]


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


def offsets(vertices, size: dict) -> tuple[dict, int]:
    """Where each vertex's flattened entries start in their concatenation (rows of the
    outputs, columns of the inputs of one sparse Jacobian), and the total."""
    at, total = {}, 0
    for v in vertices:
        at[v], total = total, total + size[v]
    return at, total


def double_precision(lang: str):
    """The context generated code runs in: JAX's x64 for ``jax`` (compared in doubles)."""
    if lang == "jax":
        import jax

        return jax.enable_x64(True)
    return contextlib.nullcontext()


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


def _jv(blocks: dict, graph, size: dict, direction: dict) -> dict[str, np.ndarray]:
    """``J·v`` of the generated code's blocks."""
    out = {}
    for y in graph.outputs:
        jv = np.zeros(size[y])
        for x in graph.inputs:
            if (y, x) in blocks:
                m = _matrix(blocks[(y, x)], size[y], size[x])
                jv += np.asarray(m @ np.ravel(direction[x])).ravel()
        out[y] = jv
    return out


def _values(value, graph, size: dict) -> dict[str, np.ndarray]:
    """F(x) from ``value_and_jacobian`` per output (flat); NaN where its size is wrong."""
    if isinstance(value, dict):
        return {y: np.ravel(np.asarray(value[y], dtype=float)) for y in graph.outputs}
    flat = np.ravel(np.asarray(value, dtype=float))
    at, total = offsets(graph.outputs, size)
    if flat.size != total:
        return {y: np.full(size[y], np.nan) for y in graph.outputs}
    return {y: flat[at[y] : at[y] + size[y]] for y in graph.outputs}


def check_tensor(
    function: Callable[..., dict],
    es: ExpressionSet,
    lang: str,
    seed: int = 0,
    mode: str = "jacobian",
) -> CodeCheck:
    """Run ``function`` (a generated ``jacobian`` or ``value_and_jacobian``) where the
    value check checks (the user's point, then a random one) and compare its ``J·v`` and
    F(x) with the expression set's, whose ``J·v`` is compared with the reference (JAX's
    ``jvp`` or differences of the array program). Not run (``ran`` False) where no point
    could be checked."""
    graph = es.graph
    size = {v: math.prod(graph.shape(v)) for v in (*graph.inputs, *graph.outputs)}
    calls: dict[str, tuple[dict, dict | None]] = {}  # the generated result at each point

    def run(point: Point, v: dict, w: dict) -> CodeValues:
        with double_precision(lang):  # read inside: BCOO's arrays in the context's precision
            if point.label not in calls:
                got = function(*(point.inputs[x] for x in graph.inputs))
                value = None
                if mode == "value_and_jacobian":
                    value, got = got
                    value = _values(value, graph, size)
                calls[point.label] = (_blocks(got, graph, size), value)
            blocks, value = calls[point.label]
            return CodeValues(jv=_jv(blocks, graph, size, v), value=value)

    values = check_code(es, run, seed, what="the expression set's J·v")
    return code_check(
        values, f"the {lang} code's J·v along a random direction", "jacobian", es.method
    )
