"""Untaken branches guarded: ``where(x > 0, sqrt(x), 0)`` differentiated at ``x < 0``.

A ``select_n`` whose predicate depends on the inputs passes each entry of one case and
discards the others, and its block is the 0/1 mask of where it picks each. A discarded
entry's derivative still enters every product through that mask: ``sqrt``'s partial at
``x = -1`` is NaN, and ``0 · NaN`` is NaN, so a reverse sweep (and every Hessian) gave
NaN where the function is locally constant, as ``jax.grad`` does; the stable softplus
``where(x > 20, x, log1p(exp(x)))`` at ``x = 1000`` meets ``0 · inf`` the same way.

The remedy JAX's users write by hand (the "double where") is applied to the graph: the
operations only a case reads (its *cone*: elementwise vertices of the select's shape that
nothing else reads, nor any predicate) read each operand through a select of the same
predicate that passes it where the case is taken and a placeholder elsewhere, at which
every partial is finite. Where the case is taken, values and derivatives are unchanged;
elsewhere the case's value was discarded anyway and its derivative is now ``0 · finite``.
Operations whose partials are finite wherever their operands are (sums, products,
``sin``, ``tanh``, ``integer_pow`` of a positive power) read their operands unguarded.

A vertex a case shares with anything else keeps its derivative: ``where(r > 0, 1/r, 0)``
with ``r = |d|`` reads ``r`` in its predicate, and ``∂r/∂d`` at ``d = 0`` is NaN, as the
function's derivative there does not exist.

>>> from dgraph.blocks.arrays import ArrayOp, Const
>>> g = DGraph("f")
>>> g.add_array_vertex("x", "input", (3,))
>>> g.add_array_vertex("s", "intermediate", (3,), ArrayOp("sqrt", ("x",), (), (3,)))
>>> taken = ArrayOp("gt", ("x", Const.of(0.0)), (), (3,))
>>> where = ArrayOp("select_n", (taken, Const.of(0.0), "s"), (), (3,))
>>> g.add_array_vertex("y", "output", (3,), where)
>>> guarded = guard_untaken_branches(g)
>>> guarded.op("s").operands, guarded.op("x_taken").operands[1:]
(('x_taken',), (Const(value=array(0.5), ...), 'x'))

References
----------
.. [1] Griewank, A. and Walther, A. (2008). *Evaluating Derivatives*, 2nd ed., SIAM,
   §14.2 (the derivative of a branch is the derivative of the branch taken).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np

from ..blocks.arrays import ELEMENTWISE, REGIONS, ArrayOp, Const, folded
from .graph import DGraph

__all__ = ["guard_untaken_branches", "guarded"]

#: elementwise operations whose partials are finite wherever their operands are
FINITE_PARTIALS = frozenset(
    {"neg", "add", "sub", "mul", "copy", "convert_element_type", "sin", "cos", "tanh",
     "logistic", "atan", "abs", "square", "erf", "erfc", "max", "min", "select_n",
     "bessel_i0e", "bessel_i1e", "dawsn"}
)  # fmt: skip

#: of those, the ones whose partials are an operand's value: an intermediate outside the
#: cone read there (the gradient's ``ct * (1/r)²`` with ``1/r`` infinite where the case
#: is not taken, JAX MD's Lennard-Jones) is guarded too
VALUE_PARTIALS = frozenset({"mul", "square", "integer_pow"})

#: a value in each operation's domain where its partials are finite (else 0.5: log, sqrt,
#: 1/x, pow, acos, atanh, erf_inv, ndtri, lgamma, the Bessel functions …)
PLACEHOLDERS = {"acosh": 2.0, "zeta": 2.0}

SUFFIX = "_taken"  # a guard's name: its operand's, then this


def guard_untaken_branches(graph: DGraph) -> DGraph:
    """``graph`` with each case of a ``select_n`` whose predicate depends on the inputs
    guarded as the module says; ``graph`` itself where no case needs it."""
    if not graph.is_tensor:
        return graph
    order = graph.order()
    readers = _readers(graph, order)
    guards: dict[tuple[str, int], list[tuple[Any, int, int]]] = {}
    for pred, k, n, sinks in _cases(graph, order):
        cone = _cone(graph, readers, sinks)
        for w in cone:
            guarded = graph.op(w)
            finite = guarded.primitive in FINITE_PARTIALS or (
                guarded.primitive == "integer_pow" and dict(guarded.params)["y"] >= 0
            )
            if finite and guarded.primitive not in VALUE_PARTIALS:
                continue
            fill = PLACEHOLDERS.get(guarded.primitive, 0.5)
            for j in guarded.differentiable():
                x = guarded.operands[j]  # a vertex (a parameter carries no derivative)
                if x not in readers or graph.shape(x) != graph.shape(w):
                    continue  # a parameter, or an operand broadcast: left as it is
                if finite and (x in cone or graph.op(x) is None):
                    continue  # guarded (the cone), or an input: finite at the point
                if _already(graph.op(x), pred, k, fill):
                    continue
                guards.setdefault((w, j), []).append((pred, k, n))
    if not guards:
        return graph
    return graph.with_array_vertices(_in_order(list(_rebuilt(graph, order, guards))))


def _in_order(
    vertices: list[tuple[str, str, tuple[int, ...], ArrayOp | None]],
) -> list[tuple[str, str, tuple[int, ...], ArrayOp | None]]:
    """``vertices`` sorted so that each follows what it reads, ties in the given order: a
    guard reads its select's predicate, which may be computed after the case it guards
    (``np.where(inside, result, fill)`` with ``inside`` made after ``result``'s
    operations)."""
    position = {v[0]: k for k, v in enumerate(vertices)}
    reads = nx.DiGraph()
    reads.add_nodes_from(position)
    for name, _, _, op in vertices:
        if op is not None:
            reads.add_edges_from((u, name) for u in op.vertices() if u in position)
    found = {v[0]: v for v in vertices}
    return [found[v] for v in nx.lexicographical_topological_sort(reads, key=position.get)]


def guarded(graph: DGraph) -> bool:
    """Whether :func:`guard_untaken_branches` guarded a case of ``graph`` or of a loop's
    body or a branch in it (a vertex ``<operand>_taken`` that selects one vertex,
    constants elsewhere)."""
    pending = [graph]
    while pending:
        g = pending.pop()
        for v in g.order() if g.is_tensor else ():
            op = g.op(v)
            if op is not None and op.primitive in REGIONS:
                region = op.param["region"]
                pending += [b.graph for b in getattr(region, "branches", None) or [region.body]]
            elif _is_guard(v, op):
                return True
    return False


def _is_guard(v: str, op: ArrayOp | None) -> bool:
    return (
        v.endswith(SUFFIX)
        and op is not None
        and op.primitive == "select_n"
        and sum(isinstance(x, str) for x in op.operands[1:]) == 1
    )


def _already(op: ArrayOp | None, pred: Any, k: int, fill: float) -> bool:
    """Whether ``op`` is a select on ``pred`` that passes case ``k`` alone, ``fill``
    elsewhere (a guard already: the gradient of a guarded function read again). A user's
    "double where" that fills in 0, where ``sqrt``'s partial is infinite
    (``where(d > 0, sqrt(where(d > 0, d, 0)), 0)``, JAX MD's ``safe_mask``), is guarded
    again."""
    return (
        op is not None
        and op.primitive == "select_n"
        and op.operands[0] == pred
        and all(
            isinstance(x, Const) and bool(np.all(x.value == fill))
            for c, x in enumerate(op.operands[1:], 1)
            if c != k
        )
    )


def _readers(graph: DGraph, order: list[str]) -> dict[str, list[tuple[str, int | None]]]:
    """Each vertex's readers: (vertex, operand position), the position None where it is
    read inside a nested operation (a predicate) or as an output."""
    found: dict[str, list[tuple[str, int | None]]] = {v: [] for v in order}
    for w in order:
        op = graph.op(w)
        if op is None:
            continue
        for j, x in enumerate(op.operands):
            if isinstance(x, str) and x in found:
                found[x].append((w, j))
            elif isinstance(x, ArrayOp):
                for u in x.vertices():
                    if u in found:
                        found[u].append((w, None))
        if graph.role(w) == "output":
            found[w].append((w, None))
    return found


def _cases(graph: DGraph, order: list[str]) -> list[tuple[Any, int, int, set[tuple[str, int]]]]:
    """The cases of the selects whose predicate depends on the inputs, those of equal
    predicates together: ``(predicate, k, operands, {(select, k), …})``, case ``k``
    read at operand position ``k`` of each select."""
    found: dict[Any, tuple[Any, int, int, set[tuple[str, int]]]] = {}
    numbers: dict[Any, int] = {}  # the nested predicates' structures met, numbered
    for s in order:
        op = graph.op(s)
        if op is None or op.primitive != "select_n" or isinstance(op.operands[0], Const):
            continue
        pred, n = op.operands[0], len(op.operands)
        for k in range(1, n):
            try:
                key: Any = (_structure(pred, numbers) if isinstance(pred, ArrayOp) else pred, k, n)
                hash(key)
            except TypeError:  # a parameter that is not hashable: the select alone
                key = (s, k)
            found.setdefault(key, (pred, k, n, set()))[3].add((s, k))
    return list(found.values())


def _structure(op: ArrayOp, numbers: dict[Any, int]) -> tuple[str, int]:
    """A key of the nested operation ``op`` equal for equal structures (numbered in
    ``numbers``, shared by the calls of one graph), each shared part keyed once
    (:func:`~dgraph.blocks.arrays.folded`): the dataclass's own hash walks it path by path
    (thirty steps each reading the last twice: 2**30 paths). Raises TypeError where an
    operand is not hashable."""

    def numbered(x: ArrayOp, operands: tuple[Any, ...]) -> tuple[str, int]:
        return ("op", numbers.setdefault((x.primitive, operands, x.params, x.shape), len(numbers)))

    return folded(op, numbered)


def _cone(
    graph: DGraph, readers: dict[str, list[tuple[str, int | None]]], sinks: set[tuple[str, int]]
) -> set[str]:
    """The vertices only the case ``sinks`` of selects of one predicate read, directly or
    through each other: elementwise intermediates of the selects' shape whose every
    reader is one of those selects at that case or in the cone (the gradient's
    ``0.5 / sqrt(u)`` beside the primal's ``where(m, sqrt(u), 0)``, both read where ``m``
    holds alone). A vertex is looked at again as each of its readers joins."""
    shape = graph.shape(next(iter(sinks))[0])

    def eligible(v: object) -> bool:
        if not isinstance(v, str) or v not in readers or graph.role(v) != "intermediate":
            return False
        op = graph.op(v)
        return (
            op is not None
            and (op.primitive in ELEMENTWISE or op.primitive in ("integer_pow", "select_n"))
            and graph.shape(v) == shape
        )

    cone: set[str] = set()
    pending = [graph.op(s).operands[k] for s, k in sinks]
    while pending:
        w = pending.pop()
        if w in cone or not eligible(w):
            continue
        if all((r, j) in sinks or (j is not None and r in cone) for r, j in readers[w]):
            cone.add(w)
            pending.extend(graph.op(w).operands)
    return cone


def _rebuilt(
    graph: DGraph, order: list[str], guards: dict[tuple[str, int], list[tuple[Any, int, int]]]
) -> Iterable[tuple[str, str, tuple[int, ...], ArrayOp | None]]:
    """The graph's vertices in order, each guarded operand read through a new vertex
    ``<operand>_taken`` selecting it where its case is taken (a placeholder elsewhere)."""
    taken = set(order)
    made: dict[tuple, str] = {}
    for w in order:
        op = graph.op(w)
        operands = list(op.operands) if op is not None else []
        for j in range(len(operands)):
            for pred, k, n in guards.get((w, j), ()):
                x = operands[j]
                key = (x, id(pred), k, PLACEHOLDERS.get(op.primitive, 0.5))
                if key not in made:
                    name = f"{x}{SUFFIX}"
                    while name in taken:
                        name += "_"
                    taken.add(name)
                    fill = Const.of(key[-1])
                    cases = [x if c == k else fill for c in range(1, n)]
                    guard = ArrayOp("select_n", (pred, *cases), (), graph.shape(w))
                    made[key] = name
                    yield name, "intermediate", graph.shape(w), guard
                operands[j] = made[key]
        if op is not None and operands != list(op.operands):
            op = ArrayOp(op.primitive, tuple(operands), op.params, op.shape)
        yield w, graph.role(w), graph.shape(w), op
