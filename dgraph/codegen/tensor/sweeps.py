"""The tangent-linear and adjoint programs of a tensor graph on whole arrays:
``jvp(*inputs, *tangents)`` and ``vjp(*inputs, *cotangents)``.

J·v = Σ_x J_yx v_x is never formed as J: the tangent of each vertex, in program order,
is the sum over its in-edges of the edge's block times the tangent of the edge's source
(forward mode: one einsum, or one gather and segment sum for a sparse block, per edge);
wᵀ·J is the adjoint sweep in reverse order, each edge adding (its target's cotangent)ᵀ ·
block to its source's. A tangent is a labelled block ``dense(v.shape, ())`` (a cotangent
``dense((), v.shape)``), so the block algebra of :mod:`dgraph.blocks` — the products
:mod:`.blockops` prints — keeps its structure: a slice's tangent is a cut of its source's,
a broadcast's is not broadcast, a sum of shifted selections is a segment sum over their
union. Only the ends are made arrays of their shapes. (Griewank and Walther, *Evaluating
Derivatives*, 2nd ed., SIAM 2008, ch. 3: the tangent and adjoint modes.)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...blocks import dense, multiply
from ...core.block_values import program_order
from ...core.graph import DGraph
from ...errors import DGraphError
from ..array_passes import optimize_statements
from ..ir import Name, Node
from .blockops import BlockOps, Valued
from .dialect import DIALECTS
from .module import (
    Writer,
    argument_name,
    forward_node,
    leaf_value,
    live_statements,
    module_tail,
    one_or_tuple,
    output_node,
    read_input,
)

__all__ = ["SWEEP_MODES", "Sweep", "sweep_module"]

SWEEP_MODES = ("jvp", "vjp")


@dataclass(frozen=True)
class Sweep:
    """A generated sweep's text, and its price: the scalar multiplications of its
    block · tangent (cotangent · block) products, as :func:`~dgraph.blocks.multiply`
    counts them."""

    text: str
    mults: int


def sweep_module(graph: DGraph, mode: str, lang: str = "python") -> Sweep:
    """The NumPy (``lang="python"``) or JAX module defining ``jvp`` (``mode="jvp"``) or
    ``vjp`` for the tensor graph ``graph``.

    ``jvp(x1, ..., xk, v_x1, ..., v_xk)`` takes the inputs and one tangent per input, each
    an array of the input's shape, and returns J·v: the output's array, or a tuple over
    the outputs (the second half of ``jax.jvp``'s answer); ``vjp(x1, ..., xk, w_y1, ...,
    w_ym)`` takes the inputs and one cotangent per output and returns wᵀ·J: the input's
    array, or a tuple over the inputs (what ``jax.vjp``'s pullback returns, a lone input's
    array not wrapped in a tuple).

    >>> from dgraph.blocks.arrays import ArrayOp
    >>> g = DGraph("chain")
    >>> g.add_array_vertex("x", "input", (4,))
    >>> g.add_array_vertex("y", "output", (4,), ArrayOp("exp", ("x",), (), (4,)))
    >>> sweep = sweep_module(g.validate(), "jvp")
    >>> print(sweep.text[sweep.text.index("def jvp"):].strip())  # doctest: +NORMALIZE_WHITESPACE
    def jvp(x, v_x):
        \"\"\"J·v for the inputs ('x',) and their tangents ('v_x',) (NumPy).\"\"\"
        x_ = numpy.reshape(numpy.asarray(x, dtype=float), (4,))
        v_x_ = numpy.reshape(numpy.asarray(v_x, dtype=float), (4,))
        d_y_x = 1.0 * (numpy.exp(x_))
        t1 = d_y_x * v_x_
        dot_y = numpy.reshape(numpy.ravel(t1), (4,))
        return dot_y
    >>> sweep.mults
    4
    """
    if not graph.is_tensor:
        raise DGraphError("sweep_module takes a tensor graph")
    if mode not in SWEEP_MODES:
        raise DGraphError(f"tensor graphs: a sweep is jvp or vjp, not {mode!r}")
    if lang not in DIALECTS:
        raise DGraphError(f"tensor graphs: code in python or jax, not {lang!r}")
    order = program_order(graph)
    for v in order:
        if graph.op(v) is None and graph.role(v) != "input":
            raise DGraphError(f"vertex {v!r} has no array operation: no code for its blocks")
    w = Writer(DIALECTS[lang])
    shapes = {v: graph.shape(v) for v in graph.nx} | graph.parameter_shapes
    arrays = [*graph.inputs, *graph.parameter_shapes]  # array parameters: arguments last
    arguments = {x: w.name(argument_name(x)) for x in arrays}
    seeds = graph.inputs if mode == "jvp" else graph.outputs
    prefix = "v" if mode == "jvp" else "w"
    seed_args = {s: w.name(f"{prefix}_{argument_name(s)}") for s in seeds}
    names = {x: w.name(f"{arguments[x]}_") for x in arrays}
    for x in arrays:
        w.statements.append(read_input(w.d, names[x], arguments[x], shapes[x]))
    seed_names = {s: w.name(f"{seed_args[s]}_") for s in seeds}
    for s in seeds:
        w.statements.append(read_input(w.d, seed_names[s], seed_args[s], shapes[s]))
    nodes: dict[str, Node] = {v: Name(n) for v, n in names.items()}
    for v in order:
        if graph.op(v) is not None:
            nodes[v] = w.emit(forward_node(w, graph.op(v), nodes, shapes, top=True), f"v_{v}")
    ops = BlockOps(lang, w.constants, w.emit)
    leaves: dict[tuple[str, str], Valued] = {}
    mults = 0

    def leaf(edge: tuple[str, str]) -> Valued:
        if edge not in leaves:
            leaves[edge] = leaf_value(w, ops, graph, edge, nodes, shapes)
        return leaves[edge]

    def product(upper: Valued, lower: Valued) -> Valued:
        nonlocal mults
        if upper is not None and lower is not None:
            mults += multiply(upper[0], lower[0])[0]
        return ops.multiply(upper, lower)

    if mode == "jvp":
        carried: dict[str, Valued] = {x: (dense(shapes[x], ()), Name(seed_names[x])) for x in seeds}
        for v in order:
            if graph.op(v) is None:
                continue
            total: Valued = None
            for u in _sources(graph, v):
                if carried.get(u) is not None:
                    total = ops.add(total, product(leaf((u, v)), carried[u]))
            carried[v] = total
        ends = graph.outputs
        results = [
            w.emit(
                output_node(w, ops.materialize(carried.get(y)), shapes[y], ()),
                f"dot_{argument_name(y)}",
            ).id
            for y in ends
        ]
    else:
        carried = {y: (dense((), shapes[y]), Name(seed_names[y])) for y in seeds}
        for v in reversed(order):
            if graph.op(v) is None or carried.get(v) is None:
                continue
            for u in _sources(graph, v):
                carried[u] = ops.add(carried.get(u), product(carried[v], leaf((u, v))))
        ends = graph.inputs
        results = [
            w.emit(
                output_node(w, ops.materialize(carried.get(x)), (), shapes[x]),
                f"bar_{argument_name(x)}",
            ).id
            for x in ends
        ]
    returned = f"    return {one_or_tuple(results)}"
    primals = [arguments[x] for x in graph.inputs]
    params = [arguments[p] for p in graph.parameter_shapes]
    args = ", ".join([*primals, *seed_args.values(), *params])
    language = "NumPy" if lang == "python" else "JAX"
    seeds_text = tuple(seed_args.values())
    what = "J·v" if mode == "jvp" else "wᵀ·J"
    given = "their tangents" if mode == "jvp" else "the outputs' cotangents"
    doc = (
        f'    """{what} for the inputs {tuple(graph.inputs)!r} and {given}'
        f' {seeds_text!r} ({language})."""'
    )
    statements = w.printed(optimize_statements(live_statements(w.statements, results), results))
    body = [f"def {mode}({args}):", doc, *statements, returned]
    header = _header(w, graph, mode, lang, "\n".join(statements))
    return Sweep(header + "\n".join(body) + "\n", mults)


def _sources(graph: DGraph, v: str) -> list[str]:
    """The vertices an edge runs from into ``v``, in the order of its operands."""
    op = graph.op(v)
    preds = set(graph.nx.predecessors(v))
    return [u for u in dict.fromkeys(op.vertices()) if u in preds]


def _header(w: Writer, graph: DGraph, mode: str, lang: str, body: str) -> str:
    ends = {v: graph.shape(v) for v in (*graph.inputs, *graph.outputs)}
    special = "special." in body
    sweep = "tangent sweep" if mode == "jvp" else "adjoint sweep"
    title = f"{graph.name or 'graph'}: {mode} (dgraph codegen, tensor graph, {sweep})"
    title = title.replace("\\", "/").replace('"', "'")
    call = (
        "jvp(*INPUTS, *TANGENTS) returns J·v, the output's array or a tuple over OUTPUTS"
        if mode == "jvp"
        else "vjp(*INPUTS, *COTANGENTS) returns wᵀ·J, the input's array or a tuple over INPUTS"
    )
    lines = [
        f'"""{title}',
        "",
        f"Generated by dgraph; do not edit. {call}.",
        "One statement per array operation and per block · tangent product, never the",
        "Jacobian; index arrays are computed once, when the code was generated.",
        '"""',
        "",
        *w.d.imports(False, special),
        "",
        f"INPUTS = {tuple(graph.inputs)!r}",
        f"OUTPUTS = {tuple(graph.outputs)!r}",
        f"SHAPES = {ends!r}",
        f"MODE = {mode!r}",
        "",
    ]
    return "\n".join(lines + module_tail(w, body)) + "\n"
