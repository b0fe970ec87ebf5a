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
from ...core.graph import DGraph
from ...core.value_check import (
    CodeCheck,
    CodeValues,
    Point,
    check_code,
    check_whole_jacobian,
    code_check,
    code_check_of,
)

__all__ = [
    "check_dense_whole",
    "check_tensor",
    "dense_result",
    "densified",
    "double_precision",
    "offsets",
]


def densified(part) -> np.ndarray:
    """A generated result as a NumPy array of its own dtype: a SciPy sparse array by
    ``toarray``; a BCOO with neither batch nor dense axes by NumPy, with no kernel
    compiled for its shape (``todense`` compiles one): its entries summed into their
    positions as ``todense`` sums them, those past its shape (BCOO's padding) dropped;
    another BCOO by ``todense``; anything else by ``np.asarray``."""
    if hasattr(part, "toarray"):
        return part.toarray()
    if getattr(part, "n_batch", None) == 0 and getattr(part, "n_dense", None) == 0:
        data, indices = np.asarray(part.data), np.asarray(part.indices)
        dense = np.zeros(part.shape, dtype=data.dtype)
        kept = (indices < np.asarray(part.shape)).all(axis=1)
        np.add.at(dense, tuple(indices[kept].T), data[kept])
        return dense
    return np.asarray(part.todense() if hasattr(part, "todense") else part)


def dense_result(part, shape: tuple[int, ...]) -> np.ndarray:
    """A generated entry as a dense float array of ``shape`` (:func:`densified`)."""
    return np.asarray(densified(part), dtype=float).reshape(shape)


def _matrix(part, m: int, n: int, patterns: dict | None = None):
    """A generated entry as an (m, n) matrix: SciPy's as it is, a BCOO array as SciPy's
    (never densified: a sparse result may be far too large for that), a dense one
    reshaped. ``patterns``: a BCOO's CSR pattern by its index array, found once for the
    calls that return the same one (a generated module's, made once when it is
    loaded)."""
    if scipy.sparse.issparse(part):
        return scipy.sparse.csr_array(part)
    if hasattr(part, "indices") and hasattr(part, "data"):  # JAX's BCOO
        data = np.asarray(part.data, dtype=float)
        found = None if patterns is None else patterns.get(id(part.indices))
        if found is None or found[0] is not part.indices:
            found = (part.indices, *_csr_pattern(np.asarray(part.indices), m, n))
            if patterns is not None:
                patterns[id(part.indices)] = found  # the array kept: its id is not reused
        _, cols, indptr, rows = found
        if indptr is not None:
            return scipy.sparse.csr_array((data, cols, indptr), shape=(m, n))
        return scipy.sparse.csr_array((data, (rows, cols)), shape=(m, n))
    return np.asarray(part, dtype=float).reshape(m, n)


def _csr_pattern(ij: np.ndarray, m: int, n: int) -> tuple:
    """A BCOO's coordinates as CSR columns and row pointers where they are in row order
    (without sorting: 7x faster), else as rows and columns (indptr None)."""
    rows, cols = ij[:, 0], ij[:, 1]
    if _row_major(rows, cols, m, n):
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))])
        index = np.int32 if max(m, n, cols.size) < 2**31 else np.int64
        return cols.astype(index), indptr.astype(index), None
    return cols, None, rows


def _row_major(rows: np.ndarray, cols: np.ndarray, m: int, n: int) -> bool:
    """Whether entries are in row order (columns in any order, repeats summed as a COO
    array sums them) with every row and column index in range: then a CSR array of
    their columns and row pointers holds them as one from their coordinates would."""
    if rows.size == 0:
        return False
    in_range = rows[0] >= 0 and rows[-1] < m and cols.min() >= 0 and cols.max() < n
    return bool(in_range and np.all(rows[1:] >= rows[:-1]))


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


def _blocks(got, graph) -> dict:
    """What the generated code returned, the pytree ``jax.jacobian`` would (one block
    alone; a tuple over the inputs for one output, over the outputs for one input; else a
    tuple over the outputs of tuples over the inputs), as its (output, input) blocks;
    a result of another form, or a block None, gives none."""
    outputs, inputs = graph.outputs, graph.inputs
    rows = [got] if len(outputs) == 1 else _items(got, len(outputs))
    if len(inputs) == 1:
        rows = [[row] for row in rows]
    elif len(outputs) == 1:
        rows = [_items(got, len(inputs))]
    else:
        rows = [_items(row, len(inputs)) for row in rows]
    return {
        (y, x): block
        for y, row in zip(outputs, rows, strict=True)
        for x, block in zip(inputs, row, strict=True)
        if block is not None
    }


def _items(got, count: int) -> list:
    """A tuple's ``count`` items; Nones where ``got`` is not such a tuple (its blocks then
    count as missing, and the check fails)."""
    if isinstance(got, tuple) and len(got) == count:
        return list(got)
    return [None] * count


def _jv(
    blocks: dict, graph, size: dict, direction: dict, patterns: dict | None = None
) -> dict[str, np.ndarray]:
    """``J·v`` of the generated code's blocks (``patterns``: :func:`_matrix`'s)."""
    out = {}
    for y in graph.outputs:
        jv = np.zeros(size[y])
        for x in graph.inputs:
            if (y, x) in blocks:
                m = _matrix(blocks[(y, x)], size[y], size[x], patterns)
                jv += np.asarray(m @ np.ravel(direction[x])).ravel()
        out[y] = jv
    return out


def _values(value, graph, size: dict) -> dict[str, np.ndarray]:
    """F(x) from ``value_and_jacobian`` per output (flat): the output's array, or a tuple
    over the outputs; NaN where a size is wrong."""
    outputs = graph.outputs
    parts = [value] if len(outputs) == 1 else _items(value, len(outputs))
    out = {}
    for y, part in zip(outputs, parts, strict=True):
        flat = np.ravel(np.asarray(np.nan if part is None else part, dtype=float))
        out[y] = flat if flat.size == size[y] else np.full(size[y], np.nan)
    return out


def check_tensor(
    function: Callable[..., object],
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
    calls: dict[str, tuple[dict, dict | None]] = {}  # the generated result at this point
    patterns: dict = {}  # a BCOO's CSR pattern, found once (the module's one index array)

    def run(point: Point, v: dict, w: dict) -> CodeValues:
        with double_precision(lang):  # read inside: BCOO's arrays in the context's precision
            if point.label not in calls:
                calls.clear()  # the last point's result no longer read: its memory reused
                got = function(*(point.inputs[x] for x in (*graph.inputs, *graph.parameter_shapes)))
                value = None
                if mode == "value_and_jacobian":
                    value, got = got
                    value = _values(value, graph, size)
                calls[point.label] = (_blocks(got, graph), value)
            blocks, value = calls[point.label]
            return CodeValues(jv=_jv(blocks, graph, size, v, patterns), value=value)

    values = check_code(es, run, seed, what="the expression set's J·v")
    return code_check(
        values, f"the {lang} code's J·v along a random direction", "jacobian", es.method
    )


def check_dense_whole(
    function: Callable[..., object],
    graph: DGraph,
    lang: str,
    seed: int = 0,
    mode: str = "jacobian",
) -> CodeCheck:
    """Run ``function`` (a generated dense ``jacobian`` or ``value_and_jacobian`` of
    ``graph``) where the value check checks and compare its ``J·v`` with the reference
    directly, in units of its own entries' ``|J|·|v|``, and its F(x) with the array
    program's (:func:`~dgraph.core.value_check.check_whole_jacobian`): no expression set
    is applied. A "wrong" here may be rounding where the entries' terms cancel; the
    caller then checks by :func:`check_tensor` (:func:`dgraph.codegen.tensor.function._make`)."""
    size = {v: math.prod(graph.shape(v)) for v in (*graph.inputs, *graph.outputs)}

    def run(point: Point, v: dict) -> tuple[dict, dict, dict | None]:
        with double_precision(lang):
            got = function(*(point.inputs[x] for x in (*graph.inputs, *graph.parameter_shapes)))
            value = None
            if mode == "value_and_jacobian":
                value, got = got
                value = _values(value, graph, size)
            blocks = {
                key: dense_result(block, (size[key[0]], size[key[1]]))
                for key, block in _blocks(got, graph).items()
            }
        jv, scale = {}, {}
        for y in graph.outputs:
            jv[y], scale[y] = np.zeros(size[y]), np.zeros(size[y])
            for x in graph.inputs:
                if (y, x) in blocks:
                    d = np.ravel(np.asarray(v[x], dtype=float))
                    jv[y] += blocks[(y, x)] @ d
                    scale[y] += np.abs(blocks[(y, x)]) @ np.abs(d)
        return jv, scale, value

    values = check_whole_jacobian(graph, run, seed, what=f"the {lang} code's J·v")
    errors = {"jacobian": values.error if values.error is not None else float("inf")}
    detail = (
        f"the {lang} code's J·v against {values.reference} directly (in units of its own"
        " entries' |J|·|v|; no expression set applied)"
    )
    return code_check_of(values, detail, errors, (values.reference,))
