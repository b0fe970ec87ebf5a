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
Derivatives*, 2nd ed., SIAM 2008, ch. 3: the tangent and adjoint modes.) A loop region's
values and derivatives come from loops of its own (:mod:`.loop_sweeps`); in ``jvp`` the
values and tangents are written vertex by vertex, in program order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...blocks import dense, multiply
from ...blocks.arrays import ArrayOp
from ...blocks.arrays import Const as Const_
from ...blocks.convolution import CONV
from ...core.block_values import program_order
from ...core.graph import DGraph
from ...errors import DGraphError
from ...frontends.fixed_parameters import made_at
from .. import ir
from ..array_passes import optimize_statements
from ..ir import ArrayProgram, ArrayStatement, Call, Const, Loop, Name, Node, While
from .blockops import BlockOps, Valued
from .convolution import ConvSweep
from .dialect import DIALECTS
from .dynamic_gathers import dynamic_adjoint, dynamic_tangent, swept
from .forward import operand_shape
from .gather_chains import gathers_of_gathers
from .jit_arguments import jitted_whole
from .loop_sweeps import LoopSweeps, is_loop
from .module import (
    Writer,
    argument_name,
    extra_values,
    forward_node,
    leaf_value,
    live_statements,
    module_tail,
    one_or_tuple,
    output_node,
    read_input,
)
from .scatter_chains import merged_scatter_adds

__all__ = [
    "SWEEP_MODES",
    "Sweep",
    "jvp_module",
    "jvp_program",
    "jvp_sweep",
    "sweep_module",
    "sweep_program",
]

SWEEP_MODES = ("jvp", "vjp")


@dataclass(frozen=True)
class Sweep:
    """A generated sweep's text, and its price: the scalar multiplications of its
    block · tangent (cotangent · block) products, as :func:`~dgraph.blocks.multiply`
    counts them."""

    text: str
    mults: int
    loops: tuple[str, ...] = ()  # per loop region: how its derivative is swept


def sweep_module(
    graph: DGraph,
    mode: str,
    lang: str = "python",
    tape: int | None = None,
    values: bool = False,
    jit: bool = True,
) -> Sweep:
    """The NumPy (``lang="python"``) or JAX module defining ``jvp`` (``mode="jvp"``) or
    ``vjp`` for the tensor graph ``graph``.

    ``jvp(x1, ..., xk, v_x1, ..., v_xk)`` takes the inputs and one tangent per input, each
    an array of the input's shape, and returns J·v: the output's array, or a tuple over
    the outputs (the second half of ``jax.jvp``'s answer); ``vjp(x1, ..., xk, w_y1, ...,
    w_ym)`` takes the inputs and one cotangent per output and returns wᵀ·J: the input's
    array, or a tuple over the inputs (what ``jax.vjp``'s pullback returns, a lone input's
    array not wrapped in a tuple).

    A loop region is swept through, never formed (:mod:`.loop_sweeps`): ``jvp`` runs the
    body's own tangent program inside the loop, ``vjp`` its adjoint program backwards
    over a tape of states, at most ``tape`` of them kept per ``scan`` (the rest
    recomputed: equidistant checkpointing; None keeps all). The docstring of the
    generated function says how each loop was swept (also :attr:`Sweep.loops`). With
    ``values`` (``jvp`` alone), ``jvp`` returns the outputs' values first, then J·v: one
    tuple (what a Jacobian by columns with its values reads, :mod:`.jacobian_columns`).
    JAX's function is one jitted program where short enough
    (:func:`~.jit_arguments.jitted_whole`); ``jit=False`` leaves it to a caller that
    jits it whole with its own (a Jacobian by columns: one program, not one nested in
    another, which traced and lowered it twice).

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
    if values and mode != "jvp":
        raise DGraphError("a sweep returns the outputs' values with its jvp alone")
    built = _build(graph, mode, lang, tape=tape, values=values)
    return _module(graph, mode, lang, built, values, jit)


def jvp_sweep(graph: DGraph, mode: str = "jvp", tape: int | None = None) -> _Built:
    """The NumPy ``jvp`` sweep of ``graph`` built once, for both :func:`jvp_program` (a
    count of it) and :func:`jvp_module` (its text): what ``sweep_module(graph, "jvp")``
    and ``jvp_program(graph)`` each build; ``mode="vjp"``: the adjoint sweep (``tape``
    states kept per loop), for :func:`jvp_program` and its notes on the loops."""
    return _build(graph, mode, "python", tape=tape)


def jvp_module(graph: DGraph, built: _Built) -> Sweep:
    """``sweep_module(graph, "jvp")`` from its sweep already built (:func:`jvp_sweep`):
    the same text. The printing reads ``built`` and changes none of it."""
    return _module(graph, "jvp", "python", built, False)


def _module(
    graph: DGraph, mode: str, lang: str, built: _Built, values: bool, jit: bool = True
) -> Sweep:
    """The module text of a sweep built by :func:`_build` (:func:`sweep_module`)."""
    w = built.w
    returned = f"    return {one_or_tuple(built.results)}"
    primals = [built.arguments[x] for x in graph.inputs]
    params = [built.arguments[p] for p in graph.parameter_shapes]
    args = ", ".join([*primals, *built.seed_args.values(), *params])
    language = "NumPy" if lang == "python" else "JAX"
    seeds_text = tuple(built.seed_args.values())
    what = "J·v" if mode == "jvp" else "wᵀ·J"
    what = "(the outputs' values, then J·v)" if values else what
    given = "their tangents" if mode == "jvp" else "the outputs' cotangents"
    loops = "".join(f" {note}." for note in built.loops)
    last = f", then the parameters {tuple(params)!r}" if params else ""  # a Lagrangian's v
    doc = (
        f'    """{what} for the inputs {tuple(graph.inputs)!r} and {given}'
        f' {seeds_text!r}{last} ({language}).{loops}"""'
    )
    statements = w.printed(built.statements)
    if lang == "jax" and jit:  # one jitted program (short enough)
        body = jitted_whole(
            mode, args, doc, statements, returned, w.constants, built.statements, built.results
        )
    else:
        body = [f"def {mode}({args}):", doc, *statements, returned]
    header = _header(w, graph, mode, lang, "\n".join(statements))
    return Sweep(header + "\n".join(body) + "\n", built.mults, tuple(built.loops))


@dataclass
class _Built:
    """A sweep's statements (after the passes) and what names them."""

    w: Writer
    arguments: dict[str, str]  # input or parameter: its argument's name
    seed_args: dict[str, str]  # seeded input (jvp) or output (vjp): its argument's name
    statements: list[ArrayStatement]
    results: list[str]  # the values (``values``), then the tangents or cotangents
    mults: int
    loops: list[str]  # one line per loop region: how its derivative is swept


def sweep_program(
    graph: DGraph,
    mode: str,
    lang: str,
    seeds: list[str] | None = None,
    tape: int | None = None,
    extra: Sequence[ArrayOp] = (),
) -> ArrayProgram:
    """A loop body's sweep as a program of its own (what a loop region runs each step):
    arguments the body's inputs, then one seed per name in ``seeds`` (``jvp``: inputs;
    ``vjp``: every output, ``seeds`` ignored; ``value``: none); results the outputs'
    values then their tangents (``jvp``), the outputs' values (``value``) or the inputs'
    cotangents (``vjp``), then the values of ``extra`` (the body's outputs no derivative
    reaches, :func:`~.module.extra_values`). Its constants' arrays are kept (the loop
    passes them in)."""
    if graph.parameter_shapes:
        raise DGraphError("a loop body with parameters")
    built = _build(graph, mode, lang, seeds, values=mode != "vjp", tape=tape, extra=extra)
    args = (*built.arguments.values(), *built.seed_args.values())
    shapes = {v: graph.shape(v) for v in graph.nx}
    used = {n.id for s in built.statements for n in ir.walk(s.value) if isinstance(n, Name)}
    for s in built.statements:
        used |= _loop_names(s.value)
    constants = {k: a for k, a in built.w.constants.arrays.items() if k in used}
    return ArrayProgram(
        mode,
        args,
        tuple(shapes[x] for x in graph.inputs) + tuple(shapes[s] for s in built.seed_args),
        args,
        built.statements,
        built.results,
        constants,
    )


def jvp_program(
    graph: DGraph, built: _Built | None = None, mode: str = "jvp"
) -> tuple[ArrayProgram, int]:
    """The statements of :func:`sweep_module`'s NumPy ``jvp`` as an array program (what
    the C and CUDA printers read, :mod:`.c_values`), its constants' arrays kept, and
    its block · tangent multiplications: arguments the inputs, one tangent per input,
    then the array parameters (``jvp(*x, *t, *p)``); results the outputs' tangents.
    ``built``: that sweep already built (:func:`jvp_sweep`), not built again. With
    ``mode="vjp"`` the adjoint sweep's: one cotangent per output, results the inputs'
    cotangents (``vjp(*x, *w, *p)``)."""
    built = _build(graph, mode, "python") if built is None else built
    shapes = {v: graph.shape(v) for v in graph.nx} | graph.parameter_shapes
    names = [*graph.inputs, *built.seed_args, *graph.parameter_shapes]
    args = (
        *(built.arguments[x] for x in graph.inputs),
        *built.seed_args.values(),
        *(built.arguments[p] for p in graph.parameter_shapes),
    )
    labels = (*graph.inputs, *built.seed_args.values(), *graph.parameter_shapes)
    used = {n.id for s in built.statements for n in ir.walk(s.value) if isinstance(n, Name)}
    for s in built.statements:
        used |= _loop_names(s.value)
    constants = {k: a for k, a in built.w.constants.arrays.items() if k in used}
    program = ArrayProgram(
        mode,
        args,
        tuple(shapes[v] for v in names),
        labels,
        list(built.statements),  # a copy: a sweep built once is printed after (jvp_module)
        built.results,
        constants,
        constant_shapes=dict(built.w.constants.shapes),
    )
    return program, built.mults


def _loop_names(node: Node) -> set[str]:
    """The names a loop statement's init, xs and invariants read (its body reads only its
    own arguments)."""
    out: set[str] = set()
    if isinstance(node, (Loop, While)):
        for n in (*node.init, *getattr(node, "xs", ()), *node.invariants):
            out |= ir.names_in(n)
    return out


def _build(
    graph: DGraph,
    mode: str,
    lang: str,
    seeds: list[str] | None = None,
    values: bool = False,
    tape: int | None = None,
    extra: Sequence[ArrayOp] = (),
) -> _Built:
    order = program_order(graph)
    for v in order:
        if graph.op(v) is None and graph.role(v) != "input":
            raise DGraphError(f"vertex {v!r} has no array operation: no code for its blocks")
    w = Writer(DIALECTS[lang], keep_arrays=True)
    shapes = {v: graph.shape(v) for v in graph.nx} | graph.parameter_shapes
    arrays = [*graph.inputs, *graph.parameter_shapes]  # array parameters: arguments last
    arguments = {x: w.name(argument_name(x)) for x in arrays}
    if mode == "value":
        seeds = []
    elif mode == "vjp" or seeds is None:
        seeds = list(graph.inputs if mode == "jvp" else graph.outputs)
    prefix = "v" if mode == "jvp" else "w"
    seed_args = {s: w.name(f"{prefix}_{argument_name(s)}") for s in seeds}
    names = {x: w.name(f"{arguments[x]}_") for x in arrays}
    for x in arrays:
        w.statements.append(read_input(w.d, names[x], arguments[x], shapes[x]))
    seed_names = {s: w.name(f"{seed_args[s]}_") for s in seeds}
    for s in seeds:
        w.statements.append(read_input(w.d, seed_names[s], seed_args[s], shapes[s]))
    nodes: dict[str, Node] = {v: Name(n) for v, n in names.items()}
    ops = BlockOps(lang, w.constants, w.emit)
    leaves: dict[tuple[str, str], Valued] = {}
    mults = 0
    loops = LoopSweeps(w, lang, tape, sweep_program)

    def leaf(edge: tuple[str, str]) -> Valued:
        if edge not in leaves:
            leaves[edge] = leaf_value(w, ops, graph, edge, nodes, shapes)
        return leaves[edge]

    def product(upper: Valued, lower: Valued) -> Valued:
        nonlocal mults
        if upper is not None and lower is not None:
            mults += multiply(upper[0], lower[0])[0]
        return ops.multiply(upper, lower)

    def operand_nodes(op) -> list[Node]:
        out: list[Node] = []
        for x in op.operands:
            if isinstance(x, str):
                out.append(nodes[x])
            elif isinstance(x, Const_):
                out.append(w.constants.add(np.asarray(x.value)))
            else:  # a value no derivative flows through (a bound, an outer counter)
                out.append(w.emit(forward_node(w, x, nodes, shapes, False)))
        return out

    carried: dict[str, Valued] = {}
    if mode == "jvp":
        carried = {x: (dense(shapes[x], ()), Name(seed_names[x])) for x in seeds}
    for v in order:  # values (and, jvp, tangents) in program order
        op = graph.op(v)
        if op is None:
            continue
        if is_loop(op) and mode == "jvp":
            tangents = [
                None
                if carried.get(x) is None
                else _array(w, ops, carried[x], shapes[x], True)
                if isinstance(x, str)
                else None
                for x in op.operands
            ]
            value, tangent = loops.tangent(op, operand_nodes(op), tangents)
            nodes[v] = w.emit(value, f"v_{v}")
            carried[v] = None if tangent is None else (dense(shapes[v], ()), tangent)
            continue
        if is_loop(op):
            nodes[v] = w.emit(loops.value(op, operand_nodes(op), mode == "vjp"), f"v_{v}")
            continue
        conv = _conv(op, shapes, w)
        if conv is None:
            nodes[v] = w.emit(forward_node(w, op, nodes, shapes, top=True), f"v_{v}")
        else:
            nodes[v] = w.emit(conv.value(*operand_nodes(op)), f"v_{v}")
        if mode != "jvp":
            continue
        total: Valued = None
        for u in _sources(graph, v):
            if carried.get(u) is not None and conv is not None:  # a convolution of it
                dot = _whole(w, ops, carried[u], shapes[u], True)
                for k in (k for k, x in enumerate(op.operands) if x == u):
                    mults += conv.mults
                    node = w.emit(conv.tangent(k, *operand_nodes(op), dot))
                    total = ops.add(total, (dense(shapes[v], ()), node))
            elif carried.get(u) is not None and _dynamic(op, u, shapes):  # v[T]: a gather
                dot = _whole(w, ops, carried[u], shapes[u], True)
                node = w.emit(dynamic_tangent(op, operand_nodes(op), dot))
                total = ops.add(total, (dense(shapes[v], ()), node))
            elif carried.get(u) is not None:
                total = ops.add(total, product(leaf((u, v)), carried[u]))
        carried[v] = total
    if values:
        results = [w.emit(nodes[y], f"val_{argument_name(y)}").id for y in graph.outputs]
    else:
        results = []
    if mode == "jvp":
        results += [
            w.emit(
                output_node(w, ops.materialize(carried.get(y)), shapes[y], ()),
                f"dot_{argument_name(y)}",
            ).id
            for y in graph.outputs
        ]
    elif mode == "vjp":
        carried = {y: (dense((), shapes[y]), Name(seed_names[y])) for y in seeds}
        last = {}  # a loop region: its first output vertex in program order
        for v in order:
            if is_loop(graph.op(v)):
                last.setdefault(id(graph.op(v).param["region"]), v)
        outputs_of: dict[int, dict[int, str]] = {}
        for v in order:
            op = graph.op(v)
            if is_loop(op):
                outputs_of.setdefault(id(op.param["region"]), {})[op.param["output"]] = v
        for v in reversed(order):
            op = graph.op(v)
            if op is None:
                continue
            if is_loop(op):
                region = op.param["region"]
                if last[id(region)] != v:
                    continue  # swept once, when every output's cotangent is complete
                outs = outputs_of[id(region)]
                cotangents = [
                    None
                    if outs.get(j) is None or carried.get(outs[j]) is None
                    else _array(w, ops, carried[outs[j]], shapes[outs[j]], False)
                    for j in range(len(region.out_shapes))
                ]
                bars = loops.adjoint(op, operand_nodes(op), cotangents)
                for x, bar in zip(op.operands, bars, strict=True):
                    if bar is not None and isinstance(x, str):
                        shape = shapes[x]
                        node = w.emit(Call("reshape", (bar, Const(tuple(shape)))))
                        carried[x] = ops.add(carried.get(x), (dense((), shape), node))
                continue
            if carried.get(v) is None:
                continue
            conv = _conv(op, shapes, w)
            for u in _sources(graph, v):
                if conv is None and _dynamic(op, u, shapes):  # zeros.at[T].add(w): a segment sum
                    bar = _whole(w, ops, carried[v], shapes[v], False)
                    node = w.emit(dynamic_adjoint(op, operand_nodes(op), bar))
                    carried[u] = ops.add(carried.get(u), (dense((), shapes[u]), node))
                    continue
                if conv is None:
                    carried[u] = ops.add(carried.get(u), product(carried[v], leaf((u, v))))
                    continue
                bar = _whole(w, ops, carried[v], shapes[v], False)  # the adjoint a convolution
                for k in (k for k, x in enumerate(op.operands) if x == u):
                    mults += conv.mults
                    node = w.emit(conv.adjoint(k, *operand_nodes(op), bar))
                    carried[u] = ops.add(carried.get(u), (dense((), shapes[u]), node))
        results += [
            w.emit(
                output_node(w, ops.materialize(carried.get(x)), (), shapes[x]),
                f"bar_{argument_name(x)}",
            ).id
            for x in graph.inputs
        ]
    results += extra_values(w, extra, nodes, shapes, lambda op, args: loops.value(op, args, False))
    live = live_statements(w.statements, results)
    live = merged_scatter_adds(gathers_of_gathers(live, w.constants.arrays, w.constants.add))
    known = {k: np.shape(a) for k, a in w.constants.arrays.items()} | w.constants.shapes
    statements = optimize_statements(live, results, known)
    return _Built(w, arguments, seed_args, statements, results, mults, loops.notes)


def _conv(op, shapes: dict, w: Writer) -> ConvSweep | None:
    """A convolution vertex's sweep as convolutions (None: the generic block products)."""
    if op is None or op.primitive != CONV:
        return None
    shaped = [operand_shape(x, shapes) for x in op.operands]
    return ConvSweep.of(op, shaped, w.constants.index, w.d.lang)


def _dynamic(op: ArrayOp, u: str, shapes: dict) -> bool:
    """Whether every operand position of ``u`` in ``op`` is a take's or a scatter-add's
    at run-time positions, swept as a gather or a segment sum (:mod:`.dynamic_gathers`,
    pricing 0: they multiply nothing), not by its union block."""
    found = [k for k in op.differentiable() if op.operands[k] == u]
    shaped = [operand_shape(x, shapes) for x in op.operands]
    return bool(found) and all(swept(op, k, shaped) for k in found)


def _whole(w: Writer, ops: BlockOps, valued: Valued, shape, tangent: bool) -> Node:
    """:func:`_array`, its values as they are where they are the whole array already."""
    block, values = ops.materialize(valued)  # type: ignore[misc]
    if block == (dense(shape, ()) if tangent else dense((), shape)):
        return w.emit(Call("reshape", (values, Const(tuple(shape)))))
    return _array(w, ops, valued, shape, tangent)


def _array(w: Writer, ops: BlockOps, valued: Valued, shape, tangent: bool) -> Node:
    """A tangent (or cotangent) as an array of its vertex's shape."""
    ends = (shape, ()) if tangent else ((), shape)
    return w.emit(output_node(w, ops.materialize(valued), *ends))


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
    title += made_at(graph)
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
        *w.d.imports(w.constants.needs_scipy_sparse, special, "scipy.linalg." in body),
        "",
        f"INPUTS = {tuple(graph.inputs)!r}",
        f"OUTPUTS = {tuple(graph.outputs)!r}",
        f"SHAPES = {ends!r}",
        f"MODE = {mode!r}",
        "",
    ]
    return "\n".join(lines + module_tail(w, body)) + "\n"
