"""Values of a tensor graph and of an expression set over its Jacobian blocks.

:func:`vertex_values` runs the array program (each vertex's :class:`ArrayOp`, in the
order the vertices were added); :func:`edge_values` gives every edge's block with its
values there; :func:`jacobian_blocks` evaluates an expression set over those blocks with
the bracketing its price counts (:mod:`dgraph.core.block_costs`), so what is computed is
what is priced. :func:`jvp_of_expressions` applies an expression set to tangent vectors
without forming a product or a sum of blocks (each product applied right to left as
block-times-vector products): :mod:`dgraph.core.value_check` compares that ``J·v``
with JAX's ``jvp`` or differences of the program itself: the blocks' values are its
derivatives.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
import sympy

from ..blocks import (
    FORGETS,
    Block,
    BlockValues,
    Labelled,
    OneHot,
    Sparse,
    add_values,
    dense,
    in_scope,
    multiply_values,
    onehot_applied,
    pattern,
    permutation,
    to_matrix,
)
from ..blocks.arrays import (
    block_magnitude,
    block_value,
    evaluate,
    finished,
    names_read,
    operand_block,
    operand_values,
)
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..blocks.dynamic_take import DYNAMIC_TAKE
from ..blocks.permutation import Permutation
from ..errors import GraphError
from .block_costs import along_bracketing, chain_product, post_order
from .nesting import run_nested

if TYPE_CHECKING:
    from .expression_data import ExpressionData
    from .graph import DGraph

__all__ = [
    "SETS_ENTRIES",
    "VertexValues",
    "all_finite",
    "applied_side",
    "apply_block",
    "apply_transposed",
    "dense_jacobian",
    "edge_parts",
    "edge_values",
    "graph_jvp_and_scale",
    "jacobian_blocks",
    "jvp_and_scale",
    "jvp_of_expressions",
    "values_at",
    "vertex_values",
    "vjp_and_scale",
]

Valued = BlockValues | None  # a block and its values; None: zero


def program_order(graph: DGraph) -> list[str]:
    """The vertices in the order they were added (the array program's order)."""
    index = nx.get_node_attributes(graph.nx, "index")
    return sorted(graph.nx, key=index.__getitem__)


def vertex_values(
    graph: DGraph, inputs: Mapping[str, np.ndarray], frozen: dict[int, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    """Every vertex's value for these inputs (and array parameters, by name; ``frozen``:
    the values of ``stop_gradient`` operations, kept from a first evaluation:
    :func:`dgraph.blocks.arrays.evaluate`)."""
    values = _with_parameters(graph, inputs)
    for v in program_order(graph):
        op = graph.op(v)
        if op is None:
            values[v] = np.asarray(inputs[v], dtype=float).reshape(graph.shape(v))
        else:
            values[v] = evaluate(op, values, frozen)
    return values


SETS_ENTRIES = 1 << 25
"""The most entries (sets × the values a set holds at once, :func:`_live_entries`)
:func:`values_at` evaluates together (256 MiB); more sets are taken in groups."""


def values_at(
    graph: DGraph,
    sets: Sequence[Mapping[str, np.ndarray]],
    frozen: dict[int, np.ndarray] | None = None,
    kept: Sequence[str] | None = None,
) -> list[dict[str, np.ndarray]]:
    """:func:`vertex_values` for each of several sets of inputs (the value check's points
    beside one), each exactly its own: the vertices in program order for every set in
    turn, a loop's runs for all the sets at once
    (:meth:`~dgraph.core.regions.Region.forward_rows`: its body's steps taken once, not
    once a set). ``kept``: the vertices returned (default: all); the others are let go
    after their last reader, and as many sets are taken together as
    :data:`SETS_ENTRIES` allows."""
    order = program_order(graph)
    last: dict[str, int] = {}  # a vertex -> the place of its last reader
    if kept is not None:
        vertices = set(order)
        for i, v in enumerate(order):
            op = graph.op(v)
            for u in () if op is None else names_read([op]) & vertices:
                last[u] = i
        for y in kept:
            last.pop(y, None)
    group = max(1, SETS_ENTRIES // max(_live_entries(graph, order, last), 1))
    found: list[dict[str, np.ndarray]] = []
    for at in range(0, len(sets), group):
        found += _values_of_group(graph, order, sets[at : at + group], frozen, last, kept)
    return found


def _values_of_group(
    graph: DGraph,
    order: list[str],
    sets: Sequence[Mapping[str, np.ndarray]],
    frozen: dict[int, np.ndarray] | None,
    last: Mapping[str, int],
    kept: Sequence[str] | None,
) -> list[dict[str, np.ndarray]]:
    """:func:`values_at` of one group of sets."""
    if len(sets) == 1 and kept is None:
        return [vertex_values(graph, sets[0], frozen)]
    found = [_with_parameters(graph, inputs) for inputs in sets]
    runs: dict[tuple, list] = {}  # a loop's outputs for each set, by loop and operands
    done: dict[int, list[str]] = {}  # a place -> the vertices read there for the last time
    for u, i in last.items():
        done.setdefault(i, []).append(u)
    for i, v in enumerate(order):
        op = graph.op(v)
        if op is None:
            for values, inputs in zip(found, sets, strict=True):
                values[v] = np.asarray(inputs[v], dtype=float).reshape(graph.shape(v))
        elif op.primitive == "loop":
            region, j = op.param["region"], op.param["output"]
            key = (id(region), *(x if isinstance(x, str) else id(x) for x in op.operands))
            if key not in runs:
                operands = [operand_values(op, values, frozen) for values in found]
                runs[key] = region.forward_rows(operands)
            for values, outputs in zip(found, runs[key], strict=True):
                values[v] = finished(op, outputs[j], values)
        else:
            for values in found:
                values[v] = evaluate(op, values, frozen)
        for u in done.get(i, ()):
            for values in found:
                values.pop(u, None)
    if kept is not None:
        for values in found:
            for u in [u for u in values if u not in kept]:
                del values[u]  # read by none (an output not asked for)
    return found


def _live_entries(graph: DGraph, order: list[str], last: Mapping[str, int]) -> int:
    """The most entries one set's values hold at once in :func:`values_at`, each vertex
    let go after its last reader (``last``; none: all held), twice over: a loop's run
    holds its stacked operands and outputs beside them."""
    live = peak = sum(math.prod(s) for s in graph.parameter_shapes.values())
    ends: dict[int, int] = {}
    for u, i in last.items():
        ends[i] = ends.get(i, 0) + math.prod(graph.shape(u))
    for i, v in enumerate(order):
        live += math.prod(graph.shape(v))
        peak = max(peak, live)
        live -= ends.get(i, 0)
    return 2 * peak


def _with_parameters(graph: DGraph, inputs: Mapping[str, np.ndarray]) -> VertexValues:
    """A :class:`VertexValues` holding the graph's array parameters' values."""
    values = VertexValues()
    for p, shape in graph.parameter_shapes.items():
        if p not in inputs:
            raise GraphError(f"no value for the parameter {p!r}")
        values[p] = np.asarray(inputs[p], dtype=float).reshape(shape)
    return values


class VertexValues(dict):
    """:func:`vertex_values`'s dict, which remembers whether every value is finite once
    asked (:func:`all_finite`): each ``J·v`` of the value check asks, at 10⁶ unknowns some
    6 % of it were it summed each time."""

    _finite: bool | None = None
    parts_finite: tuple[tuple[int, int], bool] | None = None  # (graph, version), finite

    def all_finite(self) -> bool:
        if self._finite is None:
            self._finite = _summed_finite(self)
        return self._finite


def all_finite(values: Mapping[str, np.ndarray]) -> bool:
    """Whether every value of ``values`` is finite (a sum that overflows counts as not:
    what it decides is only whether to look closer), remembered where ``values`` can."""
    found = getattr(values, "all_finite", None)
    return found() if found is not None else _summed_finite(values)


def _summed_finite(values: Mapping[str, np.ndarray]) -> bool:
    return all(np.isfinite(np.sum(v)) for v in values.values())


def edge_parts(
    graph: DGraph, values: Mapping[str, np.ndarray], absolute: bool = False
) -> dict[tuple[str, str], list[BlockValues]]:
    """Every edge's blocks and their values, one per operand position of its head that
    reads its tail (their sum is the edge's block: :func:`edge_values`); with
    ``absolute``, each block's magnitudes instead (:func:`~dgraph.blocks.arrays.block_size`)."""
    parts, sizes = _parts_and_sizes(graph, values, sized=absolute)
    if not absolute:
        return parts
    out = {}
    for edge, found in parts.items():
        scales = sizes.get(edge, [None] * len(found))
        out[edge] = [
            BlockValues(block, None if value is None else np.abs(value if size is None else size))
            for (block, value), size in zip(found, scales, strict=True)
        ]
    return out


def _parts_and_sizes(
    graph: DGraph, values: Mapping[str, np.ndarray], sized: bool = True
) -> tuple[dict[tuple[str, str], list[BlockValues]], dict[tuple[str, str], list]]:
    """:func:`edge_parts`, and with ``sized`` the edges whose values' rounding is not
    relative to them (a rule whose terms cancel: :func:`~dgraph.blocks.arrays.block_magnitude`),
    each with a magnitude per part (None: ``|value|``)."""
    out: dict[tuple[str, str], list[BlockValues]] = {}
    sizes: dict[tuple[str, str], list] = {}
    known = _structures(graph)
    for v in program_order(graph):
        op = graph.op(v)
        if op is None:
            continue
        shapes = [graph._operand_shape(x) for x in op.operands]
        positions = op.differentiable()
        for k in positions:
            u = op.operands[k]
            found = known.get((v, k))
            if found is not None and found[0] is op:
                block = found[1]
            else:
                block = _operand_block(graph, v, k, shapes, positions)
                known[(v, k)] = (op, block)
            if sized:  # first: a loop's sweep of magnitudes gives its values too
                sizes.setdefault((u, v), []).append(block_magnitude(op, k, values, block))
            out.setdefault((u, v), []).append(BlockValues(block, block_value(op, k, values, block)))
    sizes = {e: m for e, m in sizes.items() if any(x is not None for x in m)}
    if not all_finite(values) or not _parts_finite(graph, values, out):
        _untaken_zeroed(graph, out, sizes)
    return out, sizes


def _parts_finite(graph: DGraph, values: Mapping[str, np.ndarray], parts: Mapping) -> bool:
    """Whether every partial in ``parts`` is finite (a sum that overflows counts as not),
    remembered on a :class:`VertexValues` for its graph: at a point where every vertex
    is finite a partial may not be (``sqrt``'s at 0: a norm's at a zero distance, one
    ``np.where`` masks out)."""
    key = (id(graph), graph.version)
    known = getattr(values, "parts_finite", None)
    if known is not None and known[0] == key:
        return known[1]
    found = all(
        not isinstance(value, np.ndarray) or np.isfinite(np.sum(value))
        for edge in parts.values()
        for _, value in edge
    )
    if isinstance(values, VertexValues):
        values.parts_finite = (key, found)
    return found


def _untaken_zeroed(
    graph: DGraph, parts: dict[tuple[str, str], list[BlockValues]], sizes: dict
) -> None:
    """At a point where some vertex or partial is not finite: each partial that is NaN
    or infinite in entries no output reads (every path from them meets a ``select_n``
    where it takes the other case, or a take that does not take them: ``nanmean``'s
    missing entries, ``where(x > 0, sqrt(x), 0)`` at ``x < 0``, a norm's ``x/|x|`` at a
    zero distance ``np.where`` masks out, ``sqrt(clip(d, 0))[k]`` at the clipped entries
    not taken) set to 0 there, in place, its magnitudes too. That is JAX's forward rule
    for ``select_n``, ``select(c, ȧ, ḃ)``: the untaken case's tangent is left out, not
    multiplied by 0, so ``J·v`` is the derivative of the case taken (Griewank and Walther
    2008, §14.2), and ``wᵀ·J`` the same numbers: a cotangent that is 0 there meets 0, not
    ∞ (JAX's reverse rules multiply, and ``jax.vjp`` is NaN there). A partial not finite
    where an output reads it is left as it is (the point is then passed over:
    :func:`~dgraph.core.value_check.check_points`)."""
    live = _read_entries(graph, parts)
    for (u, v), found in parts.items():
        keep = live.get(v)
        scales = sizes.get((u, v))
        for j, (block, value) in enumerate(found):
            cleaned = _zeroed_unread(block, value, keep)
            if cleaned is not value:
                found[j] = BlockValues(block, cleaned)
            if scales is not None and scales[j] is not None:
                scales[j] = _zeroed_unread(block, scales[j], keep)


# operations whose blocks' values are 0/1 and their zeros structural: a select's case,
# the one-hot of a take's (or a scatter-add's) positions, whatever the block's type
_PICKS = frozenset({"select_n", DYNAMIC_TAKE, DYNAMIC_ADD})


def _read_entries(
    graph: DGraph, parts: Mapping[tuple[str, str], list[BlockValues]]
) -> dict[str, np.ndarray]:
    """Each vertex's entries some output reads through the blocks' patterns, a
    ``select_n``'s by the case it takes (its 0/1 values), a take's or a scatter-add's
    one-hot by the positions it takes (its values, whose zeros are structural): a sweep
    from the outputs."""
    live = {y: np.ones(math.prod(graph.shape(y))) for y in graph.outputs}
    for v in reversed(program_order(graph)):
        row = live.get(v)
        op = graph.op(v)
        if row is None or op is None:
            continue
        for u in graph.nx.predecessors(v):
            for block, value in parts.get((u, v), ()):
                picks = _pattern(block, value)
                if (
                    isinstance(value, np.ndarray)
                    and not isinstance(block, Permutation)  # an argsort's take: a gather
                    and (op.primitive in _PICKS or isinstance(block, OneHot))
                ):
                    picks = value
                try:
                    reached = apply_transposed(block, picks, row) != 0
                except (TypeError, ValueError, IndexError):  # every entry read
                    reached = np.ones(math.prod(block.in_shape), dtype=bool)
                before = live.get(u)
                live[u] = reached.astype(float) if before is None else np.maximum(before, reached)
    return live


def _pattern(block: Block, value: Any) -> Any:
    """Values that apply ``block``'s pattern (every value 1): None, but a permutation's
    sources kept, and a structured block's values as they are."""
    if isinstance(block, Permutation) and isinstance(value, np.ndarray):
        return np.stack([np.ones_like(value[0]), value[1]])
    return value if hasattr(value, "applied_transposed") else None


def _zeroed_unread(block: Block, value: Any, keep: np.ndarray | None) -> Any:
    """``value`` with its entries that are not finite set to 0 where no entry of
    ``keep`` (the head's entries read) reads them; ``value`` itself where none is, where
    one is read, or where its values are structured."""
    if not isinstance(value, np.ndarray) or isinstance(block, Permutation):
        return value
    bad = ~np.isfinite(value)
    if not bad.any():
        return value
    if keep is not None:
        try:
            hit = apply_block(block, bad.astype(float), np.ones(math.prod(block.in_shape)))
        except (TypeError, ValueError):
            return value
        if np.any((hit != 0) & (keep != 0)):
            return value
    return np.where(bad, 0.0, value)


def _operand_block(graph: DGraph, v: str, k: int, shapes: list, positions: Sequence[int]) -> Block:
    """:func:`~dgraph.blocks.arrays.operand_block` of operand ``k`` of ``v``'s operation;
    where that is the operand's one position, the block of its edge into ``v``
    (:meth:`DGraph.block`, the sum over that one position: pricing found the minimal
    surface's 87 already, some of them patterns of 10⁶ entries)."""
    op = graph.op(v)
    u = op.operands[k]
    once = sum(isinstance(op.operands[j], str) and op.operands[j] == u for j in positions) == 1
    if isinstance(u, str) and once and graph.nx.has_edge(u, v):
        return graph.block(u, v)
    return operand_block(op, k, shapes)


_STRUCTURES: dict[tuple, tuple[weakref.ref, dict]] = {}  # (graph id, version) -> its blocks
FORGETS.append(_STRUCTURES.clear)


def _structures(graph: DGraph) -> dict:
    """Within one code generation call (:func:`dgraph.blocks.scoped`), the operand
    blocks :func:`edge_parts` found for this graph (its identity and version), by
    (vertex, operand position) with the operation they were found for: the value check
    reads them at each point (and the code check again), the structure the same each
    time. Outside a call, a dict of its own (nothing remembered)."""
    if not in_scope():
        return {}
    key = (id(graph), graph.version)
    found = _STRUCTURES.get(key)
    if found is None or found[0]() is not graph:
        while len(_STRUCTURES) >= 4:
            del _STRUCTURES[next(iter(_STRUCTURES))]
        found = _STRUCTURES[key] = (weakref.ref(graph), {})
    return found[1]


def edge_values(graph: DGraph, values: Mapping[str, np.ndarray]) -> dict[tuple[str, str], Valued]:
    """Every edge's block and its values (operand positions of one vertex summed)."""
    out: dict[tuple[str, str], Valued] = {}
    for edge, parts in edge_parts(graph, values).items():
        total = parts[0]
        for block, value in parts[1:]:
            total = add_values(total.block, block, total.values, value)
        out[edge] = total
    return out


def jacobian_blocks(
    es: ExpressionData, values: Mapping[str, np.ndarray]
) -> dict[tuple[str, str], Valued]:
    """Every entry of ``es`` as a block with its values at the vertex ``values``."""
    graph = es.graph
    computed = es.as_computed or es
    leaves = edge_values(graph, values)
    edges = graph.edge_symbols
    known: dict[sympy.Symbol, Valued] = {}

    def atom(e: sympy.Basic) -> Valued:
        return known[e] if e in known else leaves[edges[e]]

    for name, definition in computed.references.items():
        known[name] = _evaluate(definition, atom)
    return {key: _evaluate(entry, atom) for key, entry in computed.jacobian.items()}


def dense_jacobian(es: ExpressionData, point: np.ndarray) -> np.ndarray:
    """The Jacobian of a tensor graph's expression set at ``point`` as one dense matrix:
    rows the outputs' entries, columns the inputs' (each flattened in C order, in the
    graph's order); ``point`` one number per input entry in that order, shape (n,), or a
    batch (B, n) giving (B, m, n)."""
    graph = es.graph
    point = np.asarray(point, dtype=float)
    if point.ndim > 1:
        flat = point.reshape(-1, point.shape[-1])
        each = [dense_jacobian(es, row) for row in flat]
        return np.stack(each).reshape(*point.shape[:-1], *each[0].shape)
    inputs = graph.point_from(point)
    blocks = jacobian_blocks(es, vertex_values(graph, inputs))
    rows = [math.prod(graph.shape(y)) for y in graph.outputs]
    cols = [math.prod(graph.shape(x)) for x in graph.inputs]
    out = np.zeros((sum(rows), sum(cols)))
    row0 = np.cumsum([0, *rows])
    col0 = np.cumsum([0, *cols])
    for i, y in enumerate(graph.outputs):
        for j, x in enumerate(graph.inputs):
            valued = blocks.get((y, x))
            if valued is not None:
                out[row0[i] : row0[i + 1], col0[j] : col0[j + 1]] = to_matrix(
                    valued.block, valued.values
                ).toarray()
    return out


def _evaluate(expr: sympy.Expr, atom, absolute: bool = False) -> Valued:
    """``expr``'s block and values from its atoms' (``absolute``: numbers by their
    magnitudes too, the atoms' magnitudes given)."""
    done: dict[sympy.Basic, Valued] = {}
    for e in post_order(expr):
        if e.is_Symbol:
            done[e] = atom(e)
        else:
            done[e] = _sum(e, done) if e.is_Add else _product(e, done, absolute)
    return done[expr]


def _sum(e: sympy.Expr, done: dict) -> Valued:
    total: Valued = None
    for term in e.args:
        part = done[term]
        if part is None:
            continue
        if total is None:
            total = part
        else:
            total = add_values(total.block, part.block, total.values, part.values)
    return total


def _product(e: sympy.Expr, done: dict, absolute: bool = False) -> Valued:
    coefficient = 1.0
    factors = []
    for f in e.args:
        if f.is_Number:
            coefficient *= abs(float(f)) if absolute else float(f)
            continue
        factors.append(done[f])
    if coefficient == 0 or any(f is None for f in factors):
        return None
    tree = chain_product([f.block for f in factors]).tree
    result = along_bracketing(tree, factors, _times)
    if result is None:
        return None
    if coefficient == 1:
        return result
    return BlockValues(result.block, result.values * coefficient)


def _times(left: Valued, right: Valued) -> Valued:
    if left is None or right is None:
        return None
    found = multiply_values(left.block, right.block, left.values, right.values)
    return None if found.block is None else found


# -- J·v without products of blocks --------------------------------------------------------


def jvp_of_expressions(
    es: ExpressionData,
    values: Mapping[str, np.ndarray],
    tangents: Mapping[str, np.ndarray],
    by_entry: bool = False,
    absolute: bool = False,
) -> dict:
    """``J·v``: the entries of ``es`` at the vertex ``values`` (:func:`vertex_values`)
    applied to ``tangents`` (an array per input, of its shape or flat), without forming
    any product or sum of blocks: for each output y the flat Σ_x entry(y, x)·v_x (zeros
    where no entry reaches y), or with ``by_entry`` each entry's own product, keyed (y, x).
    With ``absolute``, every value, number and tangent by its magnitude: |J|·|v| as the
    expressions bracket it, the scale of the rounding error of any way of computing J·v.

    Matrix-free: a product A·B·C is applied right to left, C·v, then B·(C·v), each a
    block times a vector (:func:`apply_block`; an edge whose blocks have at most
    :data:`SMALL_BLOCK` entries each, from its list of entries); a sum is a sum of
    vectors; a reference is applied where it is used, its result remembered per
    (reference, vector). The work is the blocks' stored values (a small block's entries)
    times their uses, never a product's fill. The set is
    applied as given (its bracketing cannot change the result; ``es.as_computed`` is the
    form the method computed).

    >>> from dgraph.frontends import from_function
    >>> from dgraph.methods import accumulate
    >>> g = from_function(lambda u: np.exp(u[1:] - u[:-1]), sizes=[(4,)], level="array")
    >>> es = accumulate(g, "forward", verify=False)
    >>> u = np.array([0.0, 1.0, 3.0, 6.0])
    >>> jv = jvp_of_expressions(es, vertex_values(g, {"u": u}), {"u": np.ones(4)})
    >>> [float(value) for value in jv[g.outputs[0]]]
    [0.0, 0.0, 0.0]
    """
    entries = _entries(es, values, tangents, (absolute,))
    if by_entry:
        return {key: rows[0] for key, rows in entries.items()}
    return {y: rows[0] for y, rows in _by_output(es.graph, entries, 1).items()}


def jvp_and_scale(
    es: ExpressionData, values: Mapping[str, np.ndarray], tangents: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """:func:`jvp_of_expressions` plain and with ``absolute`` (``J·v`` and ``|J|·|v|`` per
    output), from one pass over the expressions: each vector a pair of rows."""
    summed = _by_output(es.graph, _entries(es, values, tangents, (False, True)), 2)
    return {y: rows[0] for y, rows in summed.items()}, {y: rows[1] for y, rows in summed.items()}


def graph_jvp_and_scale(
    graph: DGraph, values: Mapping[str, np.ndarray], tangents: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``J·v`` and ``|J|·|v|`` per output by the graph's own tangent sweep: each vertex's
    tangent the sum of its edges' blocks applied to its operands' tangents, in program
    order, a row per lane (:func:`_lanes_applied`). It is forward mode's ``J·v``
    (:func:`jvp_and_scale` of its expression set, bracketed the same way) without the
    expression set, whose elimination prices every product of blocks: a tangent check
    of a graph whose products cannot be formed (cumsum's triangle times a diagonal
    summed with a diagonal: 3.2·10⁷ entries at 8,000 unknowns). A tangent is dropped
    when its last successor has read it.

    >>> from dgraph.frontends import from_function
    >>> g = from_function(lambda u: np.exp(u[1:] - u[:-1]), sizes=[(4,)], level="array")
    >>> u = np.array([0.0, 1.0, 3.0, 6.0])
    >>> jv, size = graph_jvp_and_scale(g, vertex_values(g, {"u": u}), {"u": np.ones(4)})
    >>> [float(value) for value in jv[g.outputs[0]]], np.round(size[g.outputs[0]], 3).tolist()
    ([0.0, 0.0, 0.0], [5.437, 14.778, 40.171])
    """
    parts, sizes = _parts_and_sizes(graph, values)
    lanes = (False, True)
    rows: dict[str, np.ndarray | None] = {}
    for x in graph.inputs:
        vector = np.asarray(tangents[x], dtype=float).reshape(-1)
        rows[x] = np.stack([vector, np.abs(vector)])
    readers = {u: sum(1 for v in graph.nx.successors(u) if (u, v) in parts) for u in graph.nx}
    ends = set(graph.outputs)
    for v in program_order(graph):
        if v in rows:
            continue
        total = None
        for u in graph.nx.predecessors(v):
            edge = (u, v)
            if edge not in parts:
                continue
            row = rows.get(u)
            if row is not None:
                total = _plus(
                    total, _lanes_applied(parts[edge], lanes, row, False, sizes.get(edge))
                )
            readers[u] -= 1
            if readers[u] == 0 and u not in ends:
                rows.pop(u, None)
        rows[v] = total
    zero = {y: np.zeros(math.prod(graph.shape(y))) for y in graph.outputs if rows.get(y) is None}
    jv = {y: zero[y] if y in zero else rows[y][0] for y in graph.outputs}
    return jv, {y: zero[y] if y in zero else rows[y][1] for y in graph.outputs}


def _entries(
    es: ExpressionData,
    values: Mapping[str, np.ndarray],
    tangents: Mapping[str, np.ndarray],
    lanes: tuple[bool, ...],
) -> dict[tuple[str, str], np.ndarray]:
    """Each entry's product with its input's tangent, one row per lane (True: by
    magnitudes): from the entries' blocks in a long narrow graph (:func:`_narrow`); else
    applied to the tangent from the right, or, where :func:`applied_side`
    finds that cheaper, each output's rows of the entry applied from the left to the
    identity (then times the tangent)."""
    graph = es.graph
    parts, sizes = _parts_and_sizes(graph, values, sized=any(lanes))
    flat = {}
    for x in graph.inputs:
        size = math.prod(graph.shape(x))
        vector = np.asarray(tangents[x], dtype=float).reshape(-1)
        if vector.size != size:
            raise ValueError(f"tangent of {x}: {vector.size} values for {size} entries")
        flat[x] = np.stack([np.abs(vector) if absolute else vector for absolute in lanes])
    if _narrow(graph):
        return _entries_from_blocks(es, values, flat, lanes)
    if applied_side(es, parts) == "left":
        return _entries_from_rows(es, parts, flat, lanes, sizes)
    if _paths_blow_up(es, parts):
        return _entries_from_blocks(es, values, flat, lanes)
    applier = _Applier(es, parts, lanes, sizes=sizes)
    entries: dict[tuple[str, str], np.ndarray] = {}
    for (y, x), expr in es.jacobian.items():
        part = applier.apply(expr, applier.token(("input", x)), flat[x])
        size = math.prod(graph.shape(y))
        entries[(y, x)] = np.zeros((len(lanes), size)) if part is None else part
    return entries


#: the most entries of every vertex of a graph whose entries are formed from blocks at
#: once: each product of its blocks at most NARROW³ multiplications, so forming each
#: reference and entry once is linear in the expression set, where applying the entries
#: to tangents from either side visits a reference once per vector it meets (a scalar
#: program of 4,000 statements and 160 outputs, sympy-cse style: 476 entries each
#: applied through most of the graph, and a dry run as long to find that out)
NARROW = 16
NARROW_EDGES = 500  # edges past which a narrow graph's entries are formed from blocks


def _narrow(graph: DGraph) -> bool:
    """Whether every vertex of ``graph`` has at most :data:`NARROW` entries and it has
    over :data:`NARROW_EDGES` edges: a scalar program read at the array level for its
    length, whose entries are formed from blocks (below that, either way is cheap and
    the entries are applied matrix-free)."""
    if len(graph.edge_symbols) <= NARROW_EDGES:
        return False
    return all(math.prod(graph.shape(v)) <= NARROW for v in graph.nx)


PATHS_OVER = 20  # edge applications per edge and reference and end past which blocks are formed


def _paths_blow_up(es: ExpressionData, parts: Mapping) -> bool:
    """Whether applying ``es`` from the right visits more than :data:`PATHS_OVER` times
    its edges and references per end (a dry run, stopped there): a reference applied
    once per path to it, where the left is dearer still (its rows every output entry). A
    bundle adjustment's Lagrangian Hessian (reverse mode, 281 edges, 203 references)
    applied 83,583 edges per ``J·v``, 1.7 CPU-s; its blocks form in 0.13."""
    nnz = {
        e: sum(block.nnz for block, _ in parts.get(edge, ()))
        for e, edge in es.graph.edge_symbols.items()
    }
    ends = len(es.graph.inputs) + len(es.graph.outputs)
    try:
        _dry(es, nnz, False, 1, PATHS_OVER * (len(nnz) + len(es.references)) * ends)
    except _TooMany:
        return True
    return False


def _entries_from_blocks(
    es: ExpressionData,
    values: Mapping[str, np.ndarray],
    flat: Mapping[str, np.ndarray],
    lanes: tuple[bool, ...],
) -> dict[tuple[str, str], np.ndarray]:
    """:func:`_entries` from the entries' blocks (:func:`jacobian_blocks`; by magnitudes,
    the same products and sums of the edges' magnitudes, :func:`edge_parts`), each applied
    to its input's tangent: the products the expressions bracket, each formed once.

    Where every vertex has at most :data:`NARROW` entries, every block is a dense matrix
    of at most NARROW² numbers, its products and sums NumPy's ``@`` and ``+``: the block
    algebra's structure costs more than such a product (67 µs a product and 0.66 ms a sum
    of labelled blocks, against about a microsecond; an unrolled Lorenz RK4 of 50 steps
    formed 31,200 products and 3,808 sums)."""
    graph = es.graph
    computed = es.as_computed or es
    edges = graph.edge_symbols
    small = all(math.prod(graph.shape(v)) <= NARROW for v in graph.nx)
    evaluate = _matrix_of if small else _evaluate
    by_lane: dict[bool, dict] = {}
    for absolute in dict.fromkeys(lanes):
        leaves = {
            edge: _small_matrix(found) if small else _summed(found)
            for edge, found in edge_parts(graph, values, absolute).items()
        }
        known: dict[sympy.Symbol, Any] = {}

        def atom(e: sympy.Basic, known=known, leaves=leaves) -> Any:
            return known[e] if e in known else leaves[edges[e]]

        for name, definition in computed.references.items():
            known[name] = evaluate(definition, atom, absolute)
        by_lane[absolute] = {k: evaluate(e, atom, absolute) for k, e in computed.jacobian.items()}
    entries: dict[tuple[str, str], np.ndarray] = {}
    for y, x in computed.jacobian:
        size = math.prod(graph.shape(y))
        rows = []
        for absolute, vector in zip(lanes, flat[x], strict=True):
            found = by_lane[absolute][(y, x)]
            if found is None:
                rows.append(np.zeros(size))
            else:
                rows.append(
                    found @ vector if small else apply_block(found.block, found.values, vector)
                )
        entries[(y, x)] = np.stack(rows)
    return entries


def _summed(found: Sequence) -> Valued:
    """An edge's parts (:func:`edge_parts`) as one block and its values."""
    total = found[0]
    for block, value in found[1:]:
        total = add_values(total.block, block, total.values, value)
    return total


def _small_matrix(found: Sequence) -> np.ndarray:
    """An edge's parts (small blocks and their values) summed as one dense matrix
    (flattened out by in), as :func:`to_matrix` reads each, without a sparse matrix in
    between for a labelled block."""
    total = None
    for block, value in found:
        if type(block) is not Labelled:
            matrix = to_matrix(block, value).toarray()
        else:
            rows, cols, at = pattern(block)
            matrix = np.zeros((math.prod(block.out_shape), math.prod(block.in_shape)))
            data = np.ones(rows.size) if value is None else np.ravel(value).astype(float)[at]
            np.add.at(matrix, (rows, cols), data)
        total = matrix if total is None else total + matrix
    return total


def _matrix_of(expr: sympy.Expr, atom, absolute: bool) -> np.ndarray | None:
    """``expr``'s dense matrix from its atoms' (None: structurally zero; ``absolute``:
    its numbers by their magnitudes, the atoms' magnitudes given)."""
    done: dict[int, np.ndarray | None] = {}
    for e in post_order(expr):
        if e.is_Symbol:
            done[id(e)] = atom(e)
        elif e.is_Add:
            terms = [done[id(t)] for t in e.args if done[id(t)] is not None]
            done[id(e)] = functools.reduce(np.add, terms) if terms else None
        else:
            factors = [done[id(f)] for f in e.args if not f.is_Number]
            number = math.prod(float(f) for f in e.args if f.is_Number)
            number = abs(number) if absolute else number
            if number == 0 or any(f is None for f in factors):
                done[id(e)] = None
            else:
                product = functools.reduce(np.matmul, factors)
                done[id(e)] = product if number == 1 else product * number
    return done[id(expr)]


ROWS_ENTRIES = 2**18  # rows times the largest vertex's entries a chunk applies at most


def _entries_from_rows(
    es: ExpressionData,
    parts: Mapping,
    flat: Mapping[str, np.ndarray],
    lanes: tuple[bool, ...],
    sizes: Mapping,
) -> dict[tuple[str, str], np.ndarray]:
    """:func:`_entries` by rows: for each output y, the identity over y's entries (and
    again by magnitudes) applied to the entries from the left, each result's rows (J_yx
    and |J|_yx as the expressions bracket it) times the tangent. The rows go in chunks
    of at most :data:`ROWS_ENTRIES` entries of the widest vertex: each result an
    expression holds while it applies another (a sum's first terms, a reference's) is
    the rows times its vertex's entries (a dense Hessian's gradient of 1,000 entries
    through a scan's gradient: 2.2 GB at once; the chunks' sizes depend on the graph
    only)."""
    graph = es.graph
    entries: dict[tuple[str, str], np.ndarray] = {}
    widest = max(math.prod(graph.shape(v)) for v in graph.nx)
    for y in dict.fromkeys(y for y, _ in es.jacobian):
        m = math.prod(graph.shape(y))
        reading = [(x, expr) for (yy, x), expr in es.jacobian.items() if yy == y]
        found = {x: np.zeros((len(lanes), m)) for x, _ in reading}
        begin, chunk = 0, max(1, ROWS_ENTRIES // widest)
        while begin < 2 * m:
            rows = np.arange(begin, min(2 * m, begin + chunk))  # ≥ m: by magnitudes
            applier = _Applier(es, parts, tuple(bool(r >= m) for r in rows), left=True, sizes=sizes)
            unit = np.zeros((rows.size, m))
            unit[np.arange(rows.size), rows % m] = 1.0
            start = applier.token(("output", y))
            for x, expr in reading:
                part = applier.apply(expr, start, unit)
                if part is None:
                    continue
                for k, (absolute, vector) in enumerate(zip(lanes, flat[x], strict=True)):
                    mine = (rows >= m) == absolute
                    found[x][k, rows[mine] % m] = part[mine] @ vector
            begin += rows.size
        entries.update({(y, x): found[x] for x, _ in reading})
    return entries


def vjp_and_scale(
    es: ExpressionData, values: Mapping[str, np.ndarray], cotangents: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
    """``wᵀ·J`` and ``|w|ᵀ·|J|`` per input (flat; zeros where no entry reaches it), the
    entries of ``es`` applied from the left to the cotangents ``w`` (an array per output)
    without forming a product or a sum of blocks; None where that is not cheaper than
    applying them from the right (:func:`applied_side`): the caller forms the blocks."""
    graph = es.graph
    parts, sizes = _parts_and_sizes(graph, values)
    if applied_side(es, parts, rows=1) != "left":
        return None
    applier = _Applier(es, parts, (False, True), left=True, sizes=sizes)
    wj = {x: np.zeros((2, math.prod(graph.shape(x)))) for x in graph.inputs}
    for (y, x), expr in es.jacobian.items():
        w = np.asarray(cotangents[y], dtype=float).reshape(-1)
        part = applier.apply(expr, applier.token(("output", y)), np.stack([w, np.abs(w)]))
        if part is not None:
            wj[x] = wj[x] + part
    return {x: rows[0] for x, rows in wj.items()}, {x: rows[1] for x, rows in wj.items()}


RIGHT_FIRST = 2  # a row applied from the left costs this many tangents applied from the right
SIDE_VISITS = 200_000  # edge applications a dry run counts before it gives up on that side
TOUCHED_PER_VISIT = 256  # the right's dry run may visit the left's touched entries over this


class _TooMany(Exception):
    """A dry run (:func:`applied_side`) passed its bound."""


def applied_side(es: ExpressionData, parts: Mapping, rows: int | None = None) -> str:
    """``"right"`` (each entry applied to its input's tangent) or ``"left"`` (each
    output's ``rows`` rows, default its entries, applied to the entries from the left):
    the side whose applications touch fewer block entries, counted by a dry run (no
    values) of each, stopped past a number of edge applications (first twice the edges
    and references per end, what a side without blow-up needs; then
    :data:`SIDE_VISITS`; the right's at least the left's touched entries over
    :data:`TOUCHED_PER_VISIT`, a dry run far cheaper than the left's applications: a
    Hessian's gradient of 800 entries, 355 million from the left, 304 million in 380,000
    visits from the right), the right's also once it passes :data:`RIGHT_FIRST` times the
    left's; right where both are stopped. With ``rows`` (wᵀ·J) left unless its dry run
    is stopped. References are remembered per
    vector, so the side that meets a shared reference with the same vector wins: a
    forward-mode set from the right, a reverse-mode set (its references the outputs'
    adjoints) from the left, where the other side applies a reference once per path to
    it (exponentially many on a chain of residual blocks)."""
    graph = es.graph
    nnz = {
        e: sum(block.nnz for block, _ in parts.get(edge, ()))
        for e, edge in graph.edge_symbols.items()
    }
    counts = {y: rows or math.prod(graph.shape(y)) for y in graph.outputs}
    ends = len(graph.inputs) + len(graph.outputs)
    small = 2 * (len(nnz) + len(es.references)) * ends  # what a side without blow-up visits
    for cap in (min(small, SIDE_VISITS), SIDE_VISITS):
        try:
            left = _dry(es, nnz, True, counts, cap)
        except _TooMany:
            left = None
        if rows is not None:  # wᵀ·J: the other way forms the blocks
            if left is not None:
                return "left"
            continue
        visits = cap if left is None else max(cap, left // TOUCHED_PER_VISIT)
        try:
            _dry(es, nnz, False, 1, visits, None if left is None else left * RIGHT_FIRST)
        except _TooMany:  # too many visits, or dearer than the left
            if left is not None:
                return "left"
            continue
        return "right"
    return "right"


def _dry(es, nnz, left, lanes, visits, bound=None) -> int:
    """The block entries × lanes the applications of one side touch (a dry run of
    :class:`_Applier`); :class:`_TooMany` past ``visits`` edge applications or ``bound``."""
    applier = _Applier(es, {}, (), left=left, dry=(nnz, visits, bound))
    for (y, x), expr in es.jacobian.items():
        applier.lanes_now = lanes[y] if isinstance(lanes, dict) else lanes
        start = ("output", y) if left else ("input", x)
        applier.apply(expr, applier.token(start), _DRY)
    return applier.touched


def _by_output(graph: DGraph, entries: Mapping[tuple[str, str], np.ndarray], lanes: int) -> dict:
    out = {y: np.zeros((lanes, math.prod(graph.shape(y)))) for y in graph.outputs}
    for (y, _), part in entries.items():
        out[y] = out[y] + part
    return out


_PENDING = object()  # what needs a node of its own: applied by the node's parent's yield
_DRY = np.zeros((1, 1))  # a dry run's every vector


class _Applier:
    """Expressions applied to vectors, without recursion on their depth: each node a
    generator that yields what it needs applied and receives the result. A vector is
    named by a token, the chain of expressions applied to a tangent (interned to an
    int), so that a reference's result is remembered per (reference, token). Each
    vector has a row per lane: values and numbers as they are (False) or by their
    magnitudes (True). With ``left``, rows are applied from the left (wᵀ·A·B·C: A
    first, each block transposed). With ``dry`` (each edge symbol's block entries, a
    bound on edge applications, a bound on entries touched or None), nothing is
    computed: :attr:`touched` counts the block entries times :attr:`lanes_now` that the
    applications would touch (:func:`applied_side`)."""

    def __init__(
        self,
        es: ExpressionData,
        parts: Mapping,
        lanes: tuple[bool, ...],
        left: bool = False,
        dry: tuple[Mapping, int, int | None] | None = None,
        sizes: Mapping | None = None,
    ) -> None:
        self.lanes = lanes
        self.sizes = sizes or {}  # edges whose magnitudes are not |value| (_parts_and_sizes)
        self.left = left
        self.dry = dry
        self.lanes_now, self.touched, self.visits = 1, 0, 0
        self.references = es.references
        self.edges = es.graph.edge_symbols
        self.parts = parts
        self.small: dict[sympy.Symbol, _Entries | None] = {}
        self.tokens: dict[tuple, int] = {}
        self.remembered: dict[tuple[sympy.Symbol, int], np.ndarray | None] = {}

    def token(self, key: tuple) -> int:
        return self.tokens.setdefault(key, len(self.tokens))

    def apply(self, expr: sympy.Expr, token: int, vector: np.ndarray) -> np.ndarray | None:
        """``expr`` applied to ``vector`` (a flat row per lane); None: zero."""
        return run_nested(self._node(expr, token, vector))

    def _node(
        self, e: sympy.Expr, token: int, vector: np.ndarray
    ) -> Generator[Generator, np.ndarray | None, np.ndarray | None]:
        if e.is_Symbol and e in self.references:
            key = (e, token)
            if key not in self.remembered:
                self.remembered[key] = yield self._node(self.references[e], token, vector)
            return self.remembered[key]
        if e.is_Symbol or e.is_Number:
            return self._direct(e, token, vector)
        if e.is_Add:
            total = None
            for term in e.args:
                part = self._direct(term, token, vector)
                if part is _PENDING:
                    part = yield self._node(term, token, vector)
                total = _plus(total, part)
            return total
        if not e.is_Mul:
            raise ValueError(f"a block expression holds {type(e).__name__}: {e}")
        coefficient = 1.0
        factors = []
        for f in e.args:
            if f.is_Number:
                coefficient *= float(f)
            else:
                factors.append(f)
        if coefficient == 0:
            return None
        current: np.ndarray | None = vector
        for f in factors if self.left else reversed(factors):  # the vector's side first
            applied = self._direct(f, token, current)
            if applied is _PENDING:
                applied = yield self._node(f, token, current)
            current = applied
            if current is None:
                return None
            token = self.token((f, token))
        return current * self._scale(coefficient) if coefficient != 1 else current

    def _direct(self, e: sympy.Expr, token: int, vector: np.ndarray) -> np.ndarray | object | None:
        """``e`` applied to ``vector`` where that needs no node of its own (an edge, a
        number, a reference already applied to this vector); else :data:`_PENDING`."""
        if e.is_Symbol:
            if e in self.references:
                return self.remembered.get((e, token), _PENDING)
            if self.dry is not None:
                return self._count(e)
            edge = self.edges[e]
            if e not in self.small:
                self.small[e] = _Entries.of(self.parts[edge], self.lanes, self.sizes.get(edge))
            small = self.small[e]
            if small is not None:
                return small.apply(vector, self.left)
            parts = self.parts[edge]
            return _lanes_applied(parts, self.lanes, vector, self.left, self.sizes.get(edge))
        if e.is_Number:
            return None if e == 0 else self._scale(float(e)) * vector
        return _PENDING

    def _count(self, e: sympy.Symbol) -> np.ndarray:
        nnz, visits, bound = self.dry  # type: ignore[misc]
        self.visits += 1
        self.touched += nnz[e] * self.lanes_now
        if self.visits > visits or (bound is not None and self.touched > bound):
            raise _TooMany
        return _DRY

    def _scale(self, number: float) -> np.ndarray:
        """A number as a column, one row per lane."""
        if self.dry is not None:
            return np.ones((1, 1))
        return np.array([[abs(number) if absolute else number] for absolute in self.lanes])


def _lanes_applied(
    parts: list, lanes: tuple[bool, ...], vector: np.ndarray, left: bool, sizes: list | None = None
) -> np.ndarray:
    """An edge's blocks (``parts``, summed) applied to each lane's row of ``vector``
    (from the left with ``left``), each lane's products with the blocks' values or their
    magnitudes summed in the parts' order into that lane's row of one new array: the
    same sums as adding the products one by one, without a new vector per sum and a copy
    of the rows into a stacked array (at 10⁶ unknowns a few hundred vectors of 10⁶
    entries per J·v). The first part's product is written into its row directly
    (:func:`_product_of`'s ``out``), and an edge that is one move without values reading
    and writing every place in order (a reshape: each lane's row as it is) gives
    ``vector`` itself: at 10⁶ unknowns some 190 rows of 10⁶ entries not copied per J·v
    (the minimal surface's Hessian). ``sizes``: each part's magnitudes where they are not
    ``|value|`` (None). Callers never write into what is returned."""
    if len(parts) == 1 and sizes is None and _passes_through(parts[0][0], parts[0][1]):
        return vector
    matrices = _dense_matrices(parts, sizes)
    if matrices is not None:
        return _dense_lanes(matrices, lanes, vector, left)
    by = _transposed_product if left else _product_of
    block = parts[0][0]
    size = math.prod(block.in_shape if left else block.out_shape)
    out = np.empty((len(lanes), size))
    for k, (absolute, row) in enumerate(zip(lanes, vector, strict=True)):
        for j, (block, value) in enumerate(parts):
            if absolute:
                value = _magnitude(value) if sizes is None or sizes[j] is None else sizes[j]
            if j == 0:
                by(block, value, row, False, out[k])
            else:
                out[k] += by(block, value, row, False)
    return out


def _dense_matrices(parts: list, sizes: list | None) -> list | None:
    """Each part's values as an (out, in) matrix, and its magnitudes where they are not
    ``|value|`` (None), where every part is :func:`~dgraph.blocks.dense` (each entry its
    own value, in C order: a linear-algebra operation's block); else None."""
    found = []
    for j, (block, value) in enumerate(parts):
        if type(block) is not Labelled or not isinstance(value, np.ndarray):
            return None
        if block != dense(block.out_shape, block.in_shape, block.kind):
            return None
        m, n = math.prod(block.out_shape), math.prod(block.in_shape)
        if value.size != m * n:
            return None
        size = None if sizes is None or sizes[j] is None else np.asarray(sizes[j])
        if size is not None and size.size != m * n:
            return None
        found.append((value.reshape(m, n), None if size is None else size.reshape(m, n)))
    return found


def _dense_lanes(
    matrices: list, lanes: tuple[bool, ...], vector: np.ndarray, left: bool
) -> np.ndarray:
    """:func:`_lanes_applied` of dense blocks: the lanes by values, then those by
    magnitudes, each one matrix product per part (not a product per lane: a 32×32 ``lu``'s
    block of 1024² entries met 2048 lanes in the Hessian of ``det``), summed in the parts'
    order."""
    m, n = matrices[0][0].shape
    out = np.empty((len(lanes), n if left else m))
    for absolute in (False, True):
        rows = [k for k, a in enumerate(lanes) if a == absolute]
        if not rows:
            continue
        total = None
        for value, size in matrices:
            if absolute:
                value = np.abs(value) if size is None else size
            product = vector[rows] @ (value if left else value.T)
            total = product if total is None else total + product
        out[rows] = total
    return out


def _passes_through(block: Block, value) -> bool:
    """Whether ``block`` with ``value`` maps a flat vector to itself (a labelled move
    without values, or with the one value 1, whose sides read every place in order: a
    reshape, an addend's identity), so that its product with a vector is that vector, as
    :func:`_product_of` without ``copy`` gives it (x·1 is x exactly, by magnitudes too:
    at 10⁶ unknowns some 50 more rows of 10⁶ entries not copied per J·v of the minimal
    surface's Hessian)."""
    if type(block) is not Labelled or block.nnz != math.prod(block.out_shape):
        return False
    if value is not None and not _one(value):
        return False
    plan = _vector_plan(block)
    return (
        not plan.subscripts
        and not plan.value_shape
        and not plan.broadcast
        and plan.reader_in.index is None
        and plan.reader_in.cut is None
        and plan.reader_out.index is None
        and plan.reader_out.cut is None
        and math.prod(block.in_shape) == math.prod(block.out_shape)
    )


def _one(value) -> bool:
    """Whether ``value`` is a single number, exactly 1."""
    return isinstance(value, np.ndarray | float | int) and np.size(value) == 1 and value == 1


def _magnitude(value: np.ndarray | None) -> np.ndarray | None:
    return None if value is None else np.abs(value)


SMALL_BLOCK = 4096  # entries up to which an edge's blocks are applied from their entry list


class _Entries:
    """An edge's blocks (all small) as one list of entries, row, column and value, made
    once per ``J·v`` from the blocks' patterns: applied, the vector is read at the
    columns, multiplied by the values and summed into the rows (an entry per row in
    order: no sum), the same products as :func:`apply_block`'s and no others, without a
    reader and an ``einsum`` per block at every use."""

    def __init__(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        data: np.ndarray,
        size: int,
        lanes: tuple,
        in_size: int = 0,
        magnitudes: np.ndarray | None = None,
    ) -> None:
        self.cols, self.size, self.lanes = cols, size, len(lanes)
        sized = np.abs(data) if magnitudes is None else magnitudes
        # one row per lane (a chunk of rows by rows: hundreds), made whole, not lane by lane
        self.data = np.where(np.asarray(lanes, dtype=bool)[:, None], sized, data)
        self.rows = None  # an entry per row, in order
        self.flat_rows = rows
        self.in_size = in_size
        self._flat_cols: np.ndarray | None = None  # transposed: each lane's columns
        if not np.array_equal(rows, np.arange(size)):  # each lane's rows after the last's
            self.rows = _lane_offsets(rows, size, len(lanes))

    @classmethod
    def of(cls, parts: list, lanes: tuple[bool, ...], sizes: list | None = None) -> _Entries | None:
        """The entries of ``parts`` (an edge's blocks and values) with their values in
        each lane (by magnitudes: ``sizes``' where given, else ``|value|``); None where
        one block has more than :data:`SMALL_BLOCK` entries (it is applied as it is)."""
        rows, cols, data, magnitudes = [], [], [], []
        for j, (block, value) in enumerate(parts):
            if block.nnz > SMALL_BLOCK:
                return None
            flat = np.ones(1) if value is None else np.asarray(value, dtype=float).reshape(-1)
            if isinstance(block, Sparse):
                r, c, at = block.rows, block.cols, np.arange(len(block.cols))
            elif isinstance(block, Permutation):  # one entry per row, at the point
                m = to_matrix(block, value).tocoo()
                r, c, flat, at = m.row, m.col, m.data, np.arange(m.nnz)
            else:
                r, c, at = pattern(block)
            if isinstance(block, OneHot) and flat.size > 1:  # the positions taken alone
                kept = flat[at] != 0
                r, c, at = r[kept], c[kept], at[kept]
            rows.append(r)
            cols.append(c)
            data.append(flat[at] if flat.size > 1 else np.broadcast_to(flat, at.shape))
            size = None if sizes is None else sizes[j]
            if size is None:
                magnitudes.append(np.abs(data[-1]))
                continue
            size = np.asarray(size, dtype=float).reshape(-1)
            magnitudes.append(size[at] if size.size > 1 else np.broadcast_to(size, at.shape))
        size = math.prod(parts[0][0].out_shape)
        in_size = math.prod(parts[0][0].in_shape)
        joined = None if sizes is None else np.concatenate(magnitudes)
        return cls(
            np.concatenate(rows),
            np.concatenate(cols),
            np.concatenate(data),
            size,
            lanes,
            in_size,
            joined,
        )

    def apply(self, vector: np.ndarray, left: bool = False) -> np.ndarray:
        """The edge's block (its parts' sum) times ``vector``, a flat row per lane (with
        ``left``: ``vector``'s rows times the block)."""
        if left:
            products = self.data * vector[:, self.flat_rows]
            if self._flat_cols is None:
                self._flat_cols = _lane_offsets(self.cols, self.in_size, self.lanes)
            summed = np.bincount(
                self._flat_cols, weights=products.reshape(-1), minlength=self.lanes * self.in_size
            )
            return summed.reshape(self.lanes, self.in_size)
        products = self.data * vector[:, self.cols]
        if self.rows is None:
            return products
        lanes = len(products)
        summed = np.bincount(self.rows, weights=products.reshape(-1), minlength=lanes * self.size)
        return summed.reshape(lanes, self.size)


def _lane_offsets(positions: np.ndarray, size: int, lanes: int) -> np.ndarray:
    """``positions`` again for each of ``lanes`` rows of ``size`` entries, the ``k``-th
    lane's moved by ``k·size``, flat (int64)."""
    offsets = np.arange(lanes, dtype=np.int64)[:, None] * size
    return (offsets + np.asarray(positions, dtype=np.int64)[None, :]).reshape(-1)


def _plus(total: np.ndarray | None, part: np.ndarray | None) -> np.ndarray | None:
    if part is None:
        return total
    return part if total is None else total + part


def apply_block(block: Block, value: np.ndarray | None, vector: np.ndarray) -> np.ndarray:
    """``block · vector``, flat in and out, from the block's values (C order over a
    labelled block's value labels, or one per entry of a sparse block's pattern; None:
    ones, as :func:`~dgraph.blocks.to_matrix` reads them). A labelled block is one
    ``einsum`` of its values with the vector read by the block's input labels (a slice
    and a reshape where each label reads one place, else a gather), its result written
    where the output labels say; a sparse block is a weighted count over its pattern's
    rows. O(the block's entries): no matrix is formed.

    >>> from dgraph.blocks import dense, diagonal
    >>> apply_block(diagonal((3,)), np.array([1.0, 2, 3]), np.ones(3))
    array([1., 2., 3.])
    >>> apply_block(dense((2,), (3,)), np.arange(6.0).reshape(2, 3), np.ones(3))
    array([ 3., 12.])
    """
    return _product_of(block, value, vector, True)


def _product_of(
    block: Block, value, vector: np.ndarray, copy: bool, out: np.ndarray | None = None
) -> np.ndarray:
    """:func:`apply_block`; without ``copy`` the result may share memory with
    ``vector`` (a move without values: the vector's entries as they are). With ``out``
    (a flat float array of the result's size), the result is written there and ``out``
    returned: the same values, computed by the same operations."""
    if isinstance(block, Permutation):
        return _into(permutation.apply(block, value, vector), out)
    if isinstance(block, OneHot) and not np.isfinite(vector).all():
        applied = onehot_applied(lambda v, x: _product_of(block, v, x, True), value, vector)
        return _into(applied, out)
    if hasattr(value, "applied"):  # a structured block's values (a convolution's kernel)
        return _into(value.applied(vector), out)  # type: ignore[union-attr]
    value = np.ones(()) if value is None else np.asarray(value, dtype=float)
    if isinstance(block, Sparse):
        rows = math.prod(block.out_shape)
        holes = _masked_identity(block)
        if holes is not None and (value == 1).all():  # the vector, zero at the holes
            found = np.empty(rows) if out is None else out
            found[...] = vector
            found[holes] = 0.0
            return found
        weights = np.broadcast_to(value.reshape(-1) if value.size > 1 else value, block.rows.shape)
        found = np.bincount(block.rows, weights=weights * vector[block.cols], minlength=rows)
        return _into(found, out)
    plan = _vector_plan(block)
    x = plan.reader_in.gather(vector)
    whole_out = plan.reader_out.cut is None and plan.reader_out.index is None
    direct = out is not None and whole_out and not plan.broadcast
    if plan.value_shape:
        values = (
            np.broadcast_to(value.reshape(()), plan.value_shape)
            if value.size == 1
            else value.reshape(plan.value_shape)
        )
        if direct:  # the contraction written where the result goes
            target = out.reshape(plan.out_label_shape)  # type: ignore[union-attr]
            if plan.elementwise:  # the same products, by NumPy's multiply (quicker)
                np.multiply(values, x, out=target)
            else:
                np.einsum(plan.subscripts, values, x, optimize=plan.optimize, out=target)
            return out  # type: ignore[return-value]
        if plan.elementwise:
            t = np.multiply(values, x)
        else:
            t = np.einsum(plan.subscripts, values, x, optimize=plan.optimize)
    else:
        t = np.einsum(plan.subscripts, x) if plan.subscripts else x
        scale = float(value.reshape(-1)[0])
        if direct:
            target = out.reshape(plan.out_label_shape)  # type: ignore[union-attr]
            if scale != 1:
                np.multiply(t, scale, out=target)
            else:
                target[...] = t
            return out  # type: ignore[return-value]
        t = t * scale if scale != 1 else t
    if plan.broadcast:
        t = np.broadcast_to(t.reshape(plan.present_shape), plan.out_label_shape)
    return _into(plan.reader_out.scatter(t, copy or out is not None, out), out)


_HOLES: dict[int, tuple[weakref.ref, np.ndarray | None]] = {}  # id of a Sparse -> its holes
_HOLES_SIZE = 64
FORGETS.append(_HOLES.clear)


def _masked_identity(block: Sparse) -> np.ndarray | None:
    """Where ``block`` is the identity with some rows left out (each entry on its own
    row and column, row = column: the operand's block of a scatter that overwrites those
    rows), the rows left out; else None. Its product with a vector at values all one is
    then the vector with zeros there (at the minimal surface's 10⁶ unknowns 3 ms in
    place of a weighted count's 21, eight times per J·v). Remembered per block."""
    found = _HOLES.get(id(block))
    if found is not None and found[0]() is block:
        return found[1]
    n = math.prod(block.out_shape)
    holes = None
    if math.prod(block.in_shape) == n and block.nnz <= n and np.array_equal(block.rows, block.cols):
        kept = np.ones(n, dtype=bool)
        kept[block.cols] = False
        holes = np.flatnonzero(kept)
    if len(_HOLES) >= _HOLES_SIZE:
        del _HOLES[next(iter(_HOLES))]
    _HOLES[id(block)] = (weakref.ref(block), holes)
    return holes


def _into(found: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """``found``, copied into ``out`` where one is given (and not already it)."""
    if out is None or found is out:
        return found
    out[...] = found
    return out


def apply_transposed(block: Block, value: np.ndarray | None, vector: np.ndarray) -> np.ndarray:
    """``vectorᵀ · block``, flat in (the block's output side) and out (its input side):
    :func:`apply_block` of the transposed block (a labelled block's sides swapped, its
    values as they are; a sparse block's pattern read by columns). O(the block's
    entries).

    >>> from dgraph.blocks import dense
    >>> apply_transposed(dense((2,), (3,)), np.arange(6.0).reshape(2, 3), np.ones(2))
    array([3., 5., 7.])
    """
    return _transposed_product(block, value, vector, True)


def _transposed_product(
    block: Block, value, vector: np.ndarray, copy: bool, out: np.ndarray | None = None
) -> np.ndarray:
    """:func:`apply_transposed` (``copy`` and ``out``: as :func:`_product_of`'s)."""
    if isinstance(block, Permutation):
        return _into(permutation.apply_transposed(block, value, vector), out)
    if hasattr(value, "applied_transposed"):  # a structured block's values
        return _into(value.applied_transposed(vector), out)  # type: ignore[union-attr]
    if isinstance(block, Sparse):
        value = np.ones(()) if value is None else np.asarray(value, dtype=float)
        weights = np.broadcast_to(value.reshape(-1) if value.size > 1 else value, block.rows.shape)
        size = math.prod(block.in_shape)
        found = np.bincount(block.cols, weights=weights * vector[block.rows], minlength=size)
        return _into(found, out)
    if isinstance(block, OneHot) and not np.isfinite(vector).all():
        flipped = _transposed(block)
        applied = onehot_applied(lambda v, x: _product_of(flipped, v, x, True), value, vector)
        return _into(applied, out)
    return _product_of(_transposed(block), value, vector, copy, out)


@functools.lru_cache(maxsize=4096)
def _transposed(block: Labelled) -> Labelled:
    return Labelled(
        block.in_shape,
        block.out_shape,
        block.in_axes,
        block.out_axes,
        block.sizes,
        block.value,
        block.kind,
    )


class _Reader:
    """How one side of a labelled block reads a flat vector, or writes a new one: its
    distinct labels (first appearance), and where they read: a slice and a reshape where
    each label reads one place (just a reshape where the slices are whole), else a
    gather by the flat positions. Made once per block (:func:`_vector_plan`)."""

    def __init__(self, block: Labelled, side: str) -> None:
        axes = block.out_axes if side == "out" else block.in_axes
        self.shape = block.out_shape if side == "out" else block.in_shape
        every = [k for labels, _ in axes for k in labels]
        self.labels = tuple(dict.fromkeys(every))
        self.label_shape = tuple(block.sizes[k] for k in self.labels)
        self.size = math.prod(self.shape)
        self.index: np.ndarray | None = None
        self.cut: tuple[slice, ...] | None = None
        if len(self.labels) != len(every):
            self.index = _flat_index(self.labels, axes, self.shape, block.sizes)
            return
        cut = tuple(
            slice(off, off + math.prod(block.sizes[k] for k in labels)) for labels, off in axes
        )
        if any((c.start, c.stop) != (0, n) for c, n in zip(cut, self.shape, strict=True)):
            self.cut = cut
            self.cut_shape = tuple(c.stop - c.start for c in cut)

    def gather(self, vector: np.ndarray) -> np.ndarray:
        """The vector's entries at the labels, one axis per label."""
        if self.index is not None:
            return vector[self.index]
        if self.cut is None:
            return vector.reshape(self.label_shape)
        return vector.reshape(self.shape)[self.cut].reshape(self.label_shape)

    def scatter(
        self, t: np.ndarray, copy: bool = True, out: np.ndarray | None = None
    ) -> np.ndarray:
        """A new flat vector holding ``t`` (one axis per label) where the labels read,
        zeros elsewhere (without ``copy``, where the labels read every place in order:
        ``t`` flattened, a view where it can be; with ``out``, written there)."""
        if self.cut is None and self.index is None:
            if out is not None:
                out.reshape(np.shape(t))[...] = t
                return out
            if not copy:
                return np.asarray(t, dtype=float).reshape(-1)
            return np.array(t, dtype=float).reshape(-1)
        if out is None:
            out = np.zeros(self.size)
        else:
            out[...] = 0.0
        if self.index is not None:
            out[self.index] = t
        else:
            out.reshape(self.shape)[self.cut] = np.reshape(t, self.cut_shape)
        return out


@dataclass(frozen=True)
class _VectorPlan:
    reader_in: _Reader
    reader_out: _Reader
    subscripts: str  # "" where the vector passes as it is (a move with no values)
    value_shape: tuple[int, ...]
    optimize: bool  # a contraction: let NumPy pick BLAS
    broadcast: bool  # out labels the values and the vector do not vary along
    present_shape: tuple[int, ...]  # the einsum's result with 1 for each broadcast label
    out_label_shape: tuple[int, ...]
    elementwise: bool = False  # values, vector and result on the same labels: a product each


@functools.lru_cache(maxsize=4096)
def _vector_plan(block: Labelled) -> _VectorPlan:
    reader_in, reader_out = _Reader(block, "in"), _Reader(block, "out")
    letter = {k: _LETTERS[i] for i, k in enumerate(sorted(set(range(len(block.sizes)))))}
    varies = set(block.value) | set(reader_in.labels)
    present = [k for k in reader_out.labels if k in varies]
    sub_in = "".join(letter[k] for k in reader_in.labels)
    sub_out = "".join(letter[k] for k in present)
    summed = (set(block.value) & set(reader_in.labels)) - set(present)
    if block.value:
        subscripts = f"{''.join(letter[k] for k in block.value)},{sub_in}->{sub_out}"
    else:
        subscripts = "" if sub_in == sub_out else f"{sub_in}->{sub_out}"
    sizes = block.sizes
    return _VectorPlan(
        reader_in,
        reader_out,
        subscripts,
        tuple(sizes[k] for k in block.value),
        bool(summed),
        len(present) < len(reader_out.labels),
        tuple(sizes[k] if k in varies else 1 for k in reader_out.labels),
        tuple(sizes[k] for k in reader_out.labels),
        bool(block.value)
        and tuple(block.value) == reader_in.labels == tuple(present) == reader_out.labels,
    )


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _flat_index(
    labels: tuple[int, ...], axes: tuple, shape: tuple[int, ...], sizes: tuple[int, ...]
) -> np.ndarray:
    """The flat position each assignment of ``labels`` reads on a side with these
    ``axes`` and ``shape`` (a label on several axes: a diagonal), one axis per label."""
    n = len(labels)
    dim = {k: i for i, k in enumerate(labels)}
    index = np.zeros((1,) * n, dtype=np.int64)
    for (axis_labels, off), length in zip(axes, shape, strict=True):
        position = np.zeros((1,) * n, dtype=np.int64)
        for k in axis_labels:
            ramp = np.arange(sizes[k], dtype=np.int64)
            position = position * sizes[k] + ramp.reshape(
                [-1 if i == dim[k] else 1 for i in range(n)]
            )
        index = index * length + position + off
    return np.broadcast_to(index, tuple(sizes[k] for k in labels))
