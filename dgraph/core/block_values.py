"""Values of a tensor graph and of an expression set over its Jacobian blocks.

:func:`vertex_values` runs the array program (each vertex's :class:`ArrayOp`, in the
order the vertices were added); :func:`edge_values` gives every edge's block with its
values there; :func:`jacobian_blocks` evaluates an expression set over those blocks with
the bracketing its price counts (:mod:`dgraph.core.block_costs`), so what is computed is
what is priced. :func:`check_against_differences` compares ``J·v`` with central
differences of the program itself: the blocks' values are its derivatives.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np
import sympy

from .arrays import block_value, evaluate, operand_block
from .block_costs import along_bracketing, chain_product, post_order
from .blocks import Block, add_values, multiply_values, to_matrix

if TYPE_CHECKING:
    from .expressions import ExpressionSet
    from .graph import DGraph

__all__ = [
    "check_against_differences",
    "differences",
    "edge_values",
    "finite_point",
    "jacobian_blocks",
    "random_inputs",
    "vertex_values",
]

Valued = tuple[Block, np.ndarray] | None  # a block and its values; None: zero


def program_order(graph: DGraph) -> list[str]:
    """The vertices in the order they were added (the array program's order)."""
    index = nx.get_node_attributes(graph.nx, "index")
    return sorted(graph.nx, key=index.__getitem__)


def random_inputs(graph: DGraph, seed: int = 0, low: float = 0.5, high: float = 1.5) -> dict:
    """Uniform values in [low, high) for every input (inside most functions' domains)."""
    rng = np.random.default_rng(seed)
    return {x: rng.uniform(low, high, graph.shape(x)) for x in graph.inputs}


def vertex_values(
    graph: DGraph, inputs: Mapping[str, np.ndarray], frozen: dict[int, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    """Every vertex's value for these inputs (``frozen``: the values of ``stop_gradient``
    operations, kept from a first evaluation: :func:`dgraph.core.arrays.evaluate`)."""
    values: dict[str, np.ndarray] = {}
    for v in program_order(graph):
        op = graph.op(v)
        if op is None:
            values[v] = np.asarray(inputs[v], dtype=float).reshape(graph.shape(v))
        else:
            values[v] = evaluate(op, values, frozen)
    return values


def edge_values(graph: DGraph, values: Mapping[str, np.ndarray]) -> dict[tuple[str, str], Valued]:
    """Every edge's block and its values (operand positions of one vertex summed)."""
    out: dict[tuple[str, str], Valued] = {}
    for v in program_order(graph):
        op = graph.op(v)
        if op is None:
            continue
        shapes = [graph._operand_shape(x) for x in op.operands]
        for k in op.differentiable():
            u = op.operands[k]
            block = operand_block(op, k, shapes)
            value = block_value(op, k, values, block)
            found = out.get((u, v))
            out[(u, v)] = (
                (block, value) if found is None else add_values(*found[:1], block, found[1], value)
            )
    return out


def jacobian_blocks(
    es: ExpressionSet, values: Mapping[str, np.ndarray]
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


def _evaluate(expr: sympy.Expr, atom) -> Valued:
    done: dict[sympy.Basic, Valued] = {}
    for e in post_order(expr):
        if e.is_Symbol:
            done[e] = atom(e)
        else:
            done[e] = _sum(e, done) if e.is_Add else _product(e, done)
    return done[expr]


def _sum(e: sympy.Expr, done: dict) -> Valued:
    total: Valued = None
    for term in e.args:
        part = done[term]
        if part is None:
            continue
        total = part if total is None else add_values(total[0], part[0], total[1], part[1])
    return total


def _product(e: sympy.Expr, done: dict) -> Valued:
    coefficient = 1.0
    factors = []
    for f in e.args:
        if f.is_Number:
            coefficient *= float(f)
            continue
        factors.append(done[f])
    if coefficient == 0 or any(f is None for f in factors):
        return None
    _, _, tree = chain_product([f[0] for f in factors])
    result = along_bracketing(tree, factors, _times)
    if result is None:
        return None
    return result[0], result[1] * coefficient if coefficient != 1 else result[1]


def _times(left: Valued, right: Valued) -> Valued:
    if left is None or right is None:
        return None
    block, value = multiply_values(left[0], right[0], left[1], right[1])
    return None if block is None else (block, value)


def _apply_matrix(part: Valued, vector: np.ndarray, out_size: int) -> np.ndarray:
    if part is None:
        return np.zeros(out_size)
    return to_matrix(part[0], part[1]) @ vector


RANGES = ((0.5, 1.5), (-1.0, 1.0), (0.05, 0.5), (1.0, 3.0), (-3.0, -0.5))  # points tried
STEP = 1e-6  # central differences' step


def finite_point(graph: DGraph, seed: int = 0) -> tuple[dict, dict, dict, tuple] | None:
    """The first random point, inputs uniform in one of :data:`RANGES` in turn, where
    every vertex is finite: its inputs, values, the ``stop_gradient`` values to keep
    (:func:`vertex_values`) and the range; None where there is none."""
    for attempt, (low, high) in enumerate(RANGES):
        rng = np.random.default_rng([seed, attempt])
        inputs = {x: rng.uniform(low, high, graph.shape(x)) for x in graph.inputs}
        frozen: dict[int, np.ndarray] = {}
        with np.errstate(all="ignore"):
            values = vertex_values(graph, inputs, frozen)
        if all(np.isfinite(value).all() for value in values.values()):
            return inputs, values, frozen, (low, high)
    return None


def differences(
    graph: DGraph, inputs: Mapping, direction: Mapping, frozen: dict, step: float = STEP
) -> dict[str, np.ndarray] | None:
    """Central differences of every vertex along ``direction`` (flattened), the
    ``stop_gradient`` values kept; None where a shifted point is not finite."""
    with np.errstate(all="ignore"):
        plus, minus = (
            vertex_values(graph, {x: inputs[x] + h * direction[x] for x in graph.inputs}, frozen)
            for h in (step, -step)
        )
    out = {v: ((plus[v] - minus[v]) / (2 * step)).ravel() for v in plus}
    return out if all(np.isfinite(d).all() for d in out.values()) else None


def check_against_differences(
    es: ExpressionSet, seed: int = 0, tolerance: float = 1e-5
) -> tuple[bool | None, str]:
    """``J·v`` of ``es`` at a random point and direction against central differences of
    the program (relative to the largest entry): (True, what agreed), (False, why not),
    or (None, why not checked) — a set that computes only some entries, a graph whose
    blocks no operation computes, or a program finite nowhere (:func:`finite_point`)."""
    if es.pairs is not None:
        return None, "J·v not checked (a selection of entries)"
    graph = es.graph
    if any(graph.op(v) is None for v in graph.nx if graph.role(v) != "input"):
        return None, "J·v not checked: blocks given without the operations computing them"
    found = finite_point(graph, seed)
    if found is None:
        return None, "J·v not checked: no point tried where the program is finite"
    inputs, values, frozen, (low, high) = found
    rng = np.random.default_rng([seed, len(RANGES)])
    direction = {x: rng.standard_normal(graph.shape(x)) for x in graph.inputs}
    expected_all = differences(graph, inputs, direction, frozen)
    if expected_all is None:
        return None, "J·v not checked: the program is not finite beside the point"
    with np.errstate(all="ignore"):
        entries = jacobian_blocks(es, values)
    for y in dict.fromkeys(y for y, _ in es.jacobian):
        size = math.prod(graph.shape(y))
        jv = np.zeros(size)
        for (yy, x), part in entries.items():
            if yy == y:
                jv += _apply_matrix(part, direction[x].ravel(), size)
        expected = expected_all[y]
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        error = float(np.abs(jv - expected).max(initial=0.0)) / scale
        if not error <= tolerance:  # NaN fails too
            return False, f"J·v for {y} differs from central differences by {error:.2g} (relative)"
    return True, f"J·v agrees with central differences (inputs in [{low}, {high}))"
