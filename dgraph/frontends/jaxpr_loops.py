"""Loops of a jaxpr (``scan``, ``while``) read as regions (:mod:`dgraph.core.regions`).

``lax.scan``, ``lax.fori_loop`` (a ``scan`` with static bounds, else a ``while``) and
``lax.while_loop`` are never unrolled: the body's jaxpr is read once, by the same reader
as the program around it (:class:`~dgraph.frontends.jaxpr_arrays._Reader`, recursively:
a loop in a body is a region in the body's graph), into a tensor graph of its own; each
output of the loop is a vertex ``ArrayOp("loop", operands, (("region", R), ("output",
j)))`` whose edges carry the blocks of the chain product of the body's Jacobians. The
graph's size does not depend on the trip count.

In the body, a carry, a slice of ``xs`` or a constant operand that is a float vertex
outside is an input vertex a derivative flows from; an integer or boolean one (the
counter of a ``fori_loop``) is read as a value no derivative flows through; constants
fold into the body. A scan body's read at its loop counter (``c[i]``) is a new ``xs``
(:mod:`.jaxpr_steps`). A ``while_loop``'s condition is read the same way, as a nested
operation over its constants and the carries. A scan's results that depend on its
constants alone are computed before the program runs (a stacked counter,
:func:`_counted_outputs`), and so are, where a key is drawn from, the draws
(:mod:`.jaxpr_hoist`, one run of the body's equations on constants for both).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const
from ..core.block_values import vertex_values
from ..core.graph import DGraph
from ..core.regions import Body, Region, region_notes, regions_of
from ..core.untaken import guard_untaken_branches
from ..errors import InputError
from .jaxpr_compat import scan_layout
from .jaxpr_hoist import constant_outputs, hoist
from .jaxpr_steps import StepReads, counters_of, known_xs
from .jaxpr_values import resolved

__all__ = ["LOOPS", "is_opaque", "live_records", "loop_notes", "read_body", "read_loop"]

LOOPS = frozenset({"scan", "while"})


def read_loop(reader, eqn, ins: list[Any]) -> list[Any]:
    """The values of a ``scan`` or ``while`` equation's outputs: vertices of one region
    where a derivative flows, nested operations otherwise."""
    name = eqn.primitive.name
    where = f"{reader.where}: the body of {name}"
    params = eqn.params
    in_shapes = [tuple(v.aval.shape) for v in eqn.invars]
    if name == "while" and params["cond_jaxpr"].out_avals[0].shape != ():
        params, ins, in_shapes = scalar_predicate(params, ins, in_shapes)
    if name == "scan":
        closed, n_consts, n_carry = scan_layout(params)
        n_cond = 0
    else:
        closed = params["body_jaxpr"]
        n_consts, n_carry = int(params["body_nconsts"]), 0
        n_cond = int(params["cond_nconsts"])
        n_carry = len(in_shapes) - n_cond - n_consts
    hoisted = None
    if name == "scan":  # a key's draws: computed before the program runs (jaxpr_hoist)
        hoisted = hoist(
            closed, n_consts, n_carry, ins, int(params["length"]), bool(params.get("reverse"))
        )
    if hoisted is not None:
        ins = [hoisted.stand_ins.get(i, x) for i, x in enumerate(ins)]
        closed, ins = hoisted.closed, [*ins, *hoisted.operands]
    body_ins = ins[n_cond:]
    roles = ["k"] * n_consts + ["c"] * n_carry
    roles += ["x"] * (len(closed.jaxpr.invars) - len(roles))
    names = [f"{r}{i}" for i, r in enumerate(roles)]
    avals = [v.aval for v in closed.jaxpr.invars]
    steps = None
    if name == "scan":  # reads at a counter: new xs (jaxpr_steps)
        counters = counters_of(closed, n_consts, n_carry, body_ins, names)
        outside = {n: x for n, x, r in zip(names, body_ins, roles, strict=True) if r == "k"}
        length, backwards = int(params["length"]), bool(params.get("reverse", False))
        steps = StepReads(reader, counters, length, backwards, outside, len(names))
        steps.known = known_xs(names, roles, body_ins, avals)
    else:  # a while_loop: x[i] at any index the body computes is selected there
        counters = counters_of(closed, n_consts, n_carry, body_ins, names)
        steps = StepReads(reader, counters, 0, False, {}, len(names), while_loop=True)
    body = read_body(reader, closed, names, roles, avals, body_ins, where, steps)
    ins = [*ins, *(steps.operands if steps else [])]
    operand_shapes = list(in_shapes)  # a key's stand-in: the same
    operand_shapes += [a.shape for a in (hoisted.operands if hoisted else [])]
    operand_shapes += [a.shape for a in (steps.avals if steps else [])]
    active = [isinstance(x, str) for x in ins]
    region = Region(
        kind=name,
        body=body,
        n_consts=n_consts,
        n_carry=n_carry,
        operand_shapes=operand_shapes,
        out_shapes=[tuple(v.aval.shape) for v in eqn.outvars],
        active=active,
        length=int(params["length"]) if name == "scan" else None,
        reverse=bool(params.get("reverse", False)),
        n_cond_consts=n_cond,
        name=reader.where,
    )
    if steps is not None:
        region.step_tables = steps.tables
        region.step_positions = steps.positions
    if name == "while":
        cond_names = [f"q{i}" for i in range(n_cond)] + names[n_consts:]
        region.cond = _read_cond(reader, params["cond_jaxpr"], cond_names, ins, n_cond, n_consts)
        region.cond_inputs = cond_names
    operands = tuple(reader.operand(x) for x in ins)
    outs = []
    for j, var in enumerate(eqn.outvars):
        params_j = (("region", region), ("output", j))
        op = ArrayOp("loop", operands, params_j, tuple(var.aval.shape))
        outs.append(reader.result(op, var.aval))
    if hoisted is not None:
        return [hoisted.outputs.get(j, out) for j, out in enumerate(outs)]
    if name == "scan":
        outs = _counted_outputs(eqn, body_ins, closed, n_consts, n_carry, outs)
    return outs


def scalar_predicate(params: dict, ins: list[Any], in_shapes: list[tuple]) -> tuple:
    """A ``while`` whose condition is an array (``vmap`` of a ``while_loop``) as one of a
    scalar condition: XLA loops while any entry holds and keeps each
    carry where its own entry no longer does (JAX's lowering, ``_pred_bcast_select_hlo``
    in ``lax/control_flow/loops.py``), which is ``any`` of the condition and a body that
    selects. The new body reads the condition's constants first, so they are passed twice:
    the parameters, operands and operand shapes of that loop."""
    import jax
    import jax.numpy as jnp
    from jax.extend.core import jaxpr_as_fun

    cond, body = params["cond_jaxpr"], params["body_jaxpr"]
    n_cond, n_body = int(params["cond_nconsts"]), int(params["body_nconsts"])
    test, step = jaxpr_as_fun(cond), jaxpr_as_fun(body)

    def any_holds(*args: Any) -> Any:
        return jnp.any(test(*args)[0])

    def selected(*args: Any) -> list[Any]:
        consts, carry = args[: n_cond + n_body], args[n_cond + n_body :]
        holds = test(*consts[:n_cond], *carry)[0]
        new = step(*consts[n_cond:], *carry)
        return [
            jnp.where(jnp.reshape(holds, holds.shape + (1,) * (jnp.ndim(b) - holds.ndim)), a, b)
            for a, b in zip(new, carry, strict=True)
        ]

    def structs(avals) -> list[Any]:
        return [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals]

    new_params = dict(params)
    new_params["cond_jaxpr"] = jax.make_jaxpr(any_holds)(*structs(cond.in_avals))
    new_params["body_jaxpr"] = jax.make_jaxpr(selected)(
        *structs([*cond.in_avals[:n_cond], *body.in_avals])
    )
    new_params["body_nconsts"] = n_cond + n_body
    return new_params, [*ins[:n_cond], *ins], [*in_shapes[:n_cond], *in_shapes]


def _counted_outputs(eqn, ins, closed, n_consts, n_carry, outs) -> list[Any]:
    """``outs`` with each result that depends on no operand but the constants (a
    ``fori_loop``'s counter stacked as a residual, ``i`` normalized for ``x[i]``, the
    entries ``y[i]`` of a constant read at it) as its value, computed before the program
    runs (:func:`~.jaxpr_hoist.constant_outputs`); a dropped result (a ``fori_loop``'s
    final counter) is not computed. JAX's reverse sweep scans such a residual as its
    ``xs`` and indexes by it, a read at a known position per step (:func:`known_xs`), or
    multiplies by it."""
    from jax.extend.core import DropVar

    params = eqn.params
    dropped = {j for j, v in enumerate(eqn.outvars) if isinstance(v, DropVar)}
    found = constant_outputs(
        closed, n_consts, n_carry, ins, int(params["length"]), bool(params.get("reverse")), dropped
    )
    return [found.get(j, out) for j, out in enumerate(outs)]


def _is_float(aval) -> bool:
    return isinstance(aval.dtype, np.dtype) and np.issubdtype(aval.dtype, np.floating)


def is_opaque(value: Any) -> bool:
    """A value the reader could not compute (an ``argmax``'s): neither a vertex, a
    constant nor a nested operation."""
    return not isinstance(value, (str, np.ndarray, ArrayOp))


def _constant(value: np.ndarray, where: str) -> Const:
    try:
        return Const.of(value)
    except InputError:
        raise InputError(
            f"{where}: a loop output of dtype {value.dtype} is not supported"
        ) from None


def _sub_reader(reader, where: str, taken: set[str]):
    sub = type(reader)(where, set(taken), prefix=reader.prefix)
    sub.depth = reader.depth
    sub.bound = reader.bound  # what fold compiled: compiled for the body too
    return sub


def _input_value(name: str, aval, outside: Any, role: str) -> Any:
    """What the body reads for one of its inputs: a constant operand folds (not a carry
    or a slice: those change per step); a float one is a vertex; another a value no
    derivative flows through."""
    if role == "k" and isinstance(outside, np.ndarray):
        return outside
    if is_opaque(outside):
        raise InputError(
            f"a loop reads the result of {getattr(outside, 'primitive', '?')!r}, which is not"
            " supported at the array level"
        )
    if _is_float(aval) and (role != "k" or isinstance(outside, str)):
        return name
    return ArrayOp("stop_gradient", (name,), (), tuple(aval.shape))


def read_body(reader, closed, names, roles, avals, outside, where: str, steps=None) -> Body:
    """The body's tensor graph: its inputs, the vertices a derivative flows through, an
    output vertex (``out<o>``) per output one reaches; the other outputs as nested
    operations. ``steps`` (a scan's :class:`~.jaxpr_steps.StepReads`) reads indices at
    the loop counter as new inputs, after the body's own."""
    jaxpr = closed.jaxpr
    n_out = len(jaxpr.outvars)
    out_names = [f"out{o}" for o in range(n_out)]
    sub = _sub_reader(reader, where, set(names) | set(out_names))
    sub.steps = steps
    args = [
        _input_value(n, a, x, r) for n, a, x, r in zip(names, avals, outside, roles, strict=True)
    ]
    values = [resolved(v) for v in sub.run(jaxpr, closed.consts, args)]
    if steps is not None and steps.names:
        names = [*names, *steps.names]
        args = [*args, *(n if f else None for n, f in zip(steps.names, steps.floats, strict=True))]
        avals = [*avals, *(_Step(s) for s in steps.shapes)]
    out_avals = [v.aval for v in jaxpr.outvars]
    for value in values:
        if is_opaque(value):
            raise InputError(
                f"{where}: jaxpr primitive {getattr(value, 'primitive', '?')!r} is not supported"
                " at the array level"
            )
    floats = [isinstance(a, str) for a in args]
    shapes = [tuple(a.shape) for a in avals]
    graph, outputs = _body_graph(sub, names, shapes, values, out_names, out_avals, where)
    return Body(graph, names, shapes, floats, outputs, [tuple(a.shape) for a in out_avals])


class _Step:
    """The aval of a step's slice of a new xs (its shape is all the body reads)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def live_records(reader, roots: Iterable[str], reaches: Container[str] | None = None) -> set[int]:
    """The records of ``reader`` (a jaxpr read, its ``records`` indexed by vertex name in
    ``index``) a derivative flows through to ``roots``: their own and, recursively, those
    of their differentiable operands (only the operands in ``reaches``, where given)."""
    records, index = reader.records, reader.index
    live: set[int] = set()
    stack = [index[v] for v in roots if v in index]
    while stack:
        k = stack.pop()
        if k in live:
            continue
        live.add(k)
        op = records[k].op
        reads = (op.operands[j] for j in op.differentiable())
        stack += [index[u] for u in reads if u in index and (reaches is None or u in reaches)]
    return live


def _body_graph(sub, names, shapes, values, out_names, out_avals, where: str):
    """The body's graph (module docstring) and each body output: a vertex name or a
    nested operation / constant."""
    records = sub.records
    live = live_records(sub, [v for v in values if isinstance(v, str)])
    inlined: dict[str, ArrayOp] = {}

    def leaf(s: str) -> Any:
        return inlined.get(s, s)

    g = DGraph(f"{where}")
    for n, shape in zip(names, shapes, strict=True):
        g.add_array_vertex(n, "input", shape)
    for k, r in enumerate(records):
        op = sub.substituted(r.op, leaf)
        if k in live:
            g.add_array_vertex(r.name, "intermediate", op.shape, op)
        else:
            inlined[r.name] = op
    outputs: list[Any] = []
    for value, name, aval in zip(values, out_names, out_avals, strict=True):
        shape = tuple(aval.shape)
        if isinstance(value, str) and _is_float(aval):
            g.add_array_vertex(name, "output", shape, ArrayOp("copy", (value,), (), shape))
            outputs.append(name)
        elif isinstance(value, np.ndarray):
            outputs.append(_constant(value, where))
        elif isinstance(value, ArrayOp):
            outputs.append(sub.substituted(value, leaf))
        else:  # a float input with no derivative: passed through
            outputs.append(ArrayOp("stop_gradient", (value,), (), shape))
    g.traced_with = "jax"
    return guard_untaken_branches(g), outputs


def _read_cond(reader, closed, names: list[str], ins, n_cond: int, n_consts: int) -> Any:
    """A ``while_loop``'s condition as a nested operation over ``names``."""
    jaxpr = closed.jaxpr
    sub = _sub_reader(reader, f"{reader.where}: the condition of while", set(names))
    outside = [*ins[:n_cond], *ins[n_cond + n_consts :]]
    args = []
    for n, var, x in zip(names, jaxpr.invars, outside, strict=True):
        if isinstance(x, np.ndarray) and n.startswith("q"):
            args.append(x)
        else:
            args.append(ArrayOp("stop_gradient", (n,), (), tuple(var.aval.shape)))
    (value,) = (resolved(v) for v in sub.run(jaxpr, closed.consts, args))
    if is_opaque(value):
        raise InputError(
            f"{reader.where}: the condition of while reads"
            f" {getattr(value, 'primitive', '?')!r}, which is not supported at the array level"
        )
    if isinstance(value, np.ndarray):
        return Const.of(value)
    if isinstance(value, str):  # cannot happen: no derivative flows into a condition
        raise InputError(f"{reader.where}: the condition of while is not a boolean")
    return value


def loop_notes(graph: DGraph) -> list[str]:
    """Notes for the graph's ``while_loop`` regions: the trip count at its point, at which
    their derivatives are taken."""
    if graph.point is None or not any(r.kind == "while" for _, r in regions_of(graph)):
        return []
    return region_notes(graph, vertex_values(graph, {**graph.parameter_point, **graph.point}))
