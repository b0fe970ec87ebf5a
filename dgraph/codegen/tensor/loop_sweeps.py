"""Matrix-free tangent and adjoint sweeps through loop regions in generated code.

A ``scan`` of T steps whose body maps ``(k, c_{t-1}, x_t)`` to ``(c_t, y_t)`` has the
Jacobian chain ``M_T ⋯ M_1`` (seed 002; :mod:`dgraph.core.regions`). ``jvp`` and ``vjp``
never form it, nor any body Jacobian:

* **tangent** (``jvp``): one loop carrying ``(c, ċ)``; each step runs the body's own
  tangent program (:func:`~dgraph.codegen.tensor.sweeps.sweep_program`, mode ``jvp``):
  ``ċ_t = A_t·ċ_{t-1} + K_t·k̇ + X_t·ẋ_t``, ``ẏ_t = B_t·ċ_{t-1} + …``;
* **adjoint** (``vjp``): the forward loop keeps a tape of states, then a loop runs
  backwards over it with the body's adjoint program: ``c̄_{t-1} = c̄_tᵀ·A_t + ȳ_tᵀ·B_t``,
  ``k̄ += …``, ``x̄_t = …``. With a tape bound ``K`` < T (``tape=K``) the states are not
  all kept: **binomial checkpointing** (:mod:`.revolve`; Griewank and Walther's
  *revolve*): at most K states stored at once, in one flat stack of K slots per carry,
  besides the current state, with the fewest recomputed steps for that bound. The
  schedule is built here as data and run as two loops over its tables: the forward
  sweep's T - 1 steps (each an advance, some storing the state first), then the reverse
  rows (an advance, a takeshot and advance, or a turn — the body's vjp at the current
  state — followed by a restore). In NumPy each row is a Cond, and a stack is copied
  only on the rows that write it (adding onto a zeroed slot). In JAX the reverse rows
  are grouped by turn, with no Cond: a reverse scan over the T steps, each the body's
  vjp, the restore, then a while loop over the advance rows up to the next turn; a slot
  is a contiguous slice of the stack (``lax.dynamic_update_slice`` of the state or of
  the slot's own entries, read by ``lax.dynamic_slice``), so that XLA updates it in
  place (gathers and scatter-adds of the slot's positions cost XLA a loop over them).
  ``CHECKPOINTS = "equidistant"`` instead stores every s-th state, s = ⌈T/K⌉, and
  recomputes one segment of s states at a time (K + s states; for comparison).
* ``while_loop``: the forward sweep counts its trips n; the reverse sweep runs n steps
  backwards, recomputing the state of step j from the initial one (no bound: one state
  kept, n(n-1)/2 extra body steps — short solver loops). Under ``tape=K``, binomial
  checkpointing with the schedule computed as the reverse sweep runs, once n is known
  (:func:`.revolve.run_time_schedule`; Griewank and Walther's split rule): at most K
  stored states, and n + cost(n, K) forward steps — the offline optimum for K states
  plus the counting sweep (not an online schedule placing checkpoints in the first
  sweep, as Stumm and Walther's, SIAM J. Sci. Comput. 32(2), 2010).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ...blocks.arrays import ArrayOp
from ...core.regions import Region
from ...errors import DGraphError
from ..ir import (
    ArrayProgram,
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Cond,
    Const,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Node,
    ScatterAdd,
    Seq,
    Slice,
    UnaryOp,
    While,
)
from .region_steps import body_operation, invariant, without_copies
from .revolve import Action, Schedule, binomial_schedule

#: How ``tape=K`` checkpoints a scan's vjp: ``"binomial"`` (revolve: at most K stored
#: states, the fewest recomputations) or ``"equidistant"`` (K checkpoints and one segment
#: of ⌈T/K⌉ states; for comparison).
CHECKPOINTS = "binomial"

__all__ = ["LoopSweeps", "is_loop", "segments"]


def _nested(r: Region) -> list[ArrayOp]:
    """The body's outputs no derivative reaches that its program computes (a counter, a
    mask, a nested cond's or loop's value)."""
    return [out for out in r.body.outputs if isinstance(out, ArrayOp)]


def is_loop(op) -> bool:
    """Whether ``op`` is a loop region's output (not a branch's)."""
    return op is not None and op.primitive == "loop"


def segments(steps: int, tape: int | None) -> tuple[int, int, int]:
    """Equidistant checkpointing of ``steps`` under a bound of ``tape`` states: the
    segment length s = ⌈steps/tape⌉, the number of full segments (checkpoints) q =
    ⌊steps/s⌋ ≤ tape, and the steps before them, ``steps - q·s`` (< s). Without a bound,
    or one of at least ``steps``: one segment of all steps (every state on the tape)."""
    if tape is None or tape >= steps:
        return steps, 1, 0
    if tape < 1:
        raise DGraphError(f"a tape of {tape} states: give at least 1")
    s = -(-steps // tape)
    q = steps // s
    return s, q, steps - q * s


def _zeros(shape) -> Node:
    return Call("zeros", (Const(tuple(shape)),))


def _reshape(node: Node, shape) -> Node:
    return Call("reshape", (node, Const(tuple(shape))))


def _flip(node: Node) -> Node:
    return Index(node, (Slice(None, None, -1),))


def _cut(node: Node, lo: int | None, hi: int | None) -> Node:
    return Index(node, (Slice(lo, hi),))


def _inline(scope: _Scope, loop: Loop) -> list[str]:
    """A loop of one step as statements of ``scope`` (its arguments bound, its body's
    statements): the names of its results, the ys unstacked. Saves a nested loop (in
    XLA, a while loop) on every row of a checkpointing schedule."""
    if loop.length != 1:
        raise DGraphError(f"a loop of {loop.length} steps inlined as one")
    args = [*loop.init, *(Index(x, (Const(0),)) for x in loop.xs), *loop.invariants]
    for name, node in zip(loop.body.arguments, args, strict=True):
        scope.statements.append(ArrayStatement(name, node))
    scope.statements += list(loop.body.statements)
    scope.taken |= set(loop.body.arguments) | {st.target for st in loop.body.statements}
    return list(loop.body.results)


def _concat(parts: list[Node]) -> Node:
    return parts[0] if len(parts) == 1 else Call("concatenate", (Seq(tuple(parts)),))


def _slot_read(flat: str, start: str, size: int) -> Node:
    """JAX: the ``size`` entries of the vector ``flat`` from position ``start`` (a
    dynamic_slice: one contiguous copy, where a gather of the positions costs XLA a
    loop over them)."""
    return Call("lax.dynamic_slice", (Name(flat), Seq((Name(start),)), Const((size,))))


def _slot_write(scope: _Scope, flat: str, start: str, size: int, where: Node, value: str) -> str:
    """JAX: ``flat`` with ``value`` (flattened) written from position ``start`` where
    ``where`` holds, its own entries there elsewhere (a dynamic_update_slice, in place
    in a loop's carry, where a scatter-add of the positions costs a loop over them)."""
    old = _slot_read(flat, start, size)
    data = scope.emit(Call("where", (where, _reshape(Name(value), (size,)), old)))
    return scope.emit(Call("lax.dynamic_update_slice", (Name(flat), data, Seq((Name(start),))))).id


class _Floats(NamedTuple):
    """The parts of a loop body that derivatives flow through: the float carries,
    constants and xs (body input positions) and the ys (body output positions)."""

    carries: list[int]
    consts: list[int]
    xs: list[int]
    ys: list[int]


def _floats(r: Region) -> _Floats:
    b, nk, nc = r.body, r.n_consts, r.n_carry
    return _Floats(
        [i for i in range(nk, nk + nc) if b.floats[i]],
        [i for i in range(nk) if b.floats[i]],
        [i for i in range(nk + nc, len(b.inputs)) if b.floats[i]],
        [o for o in range(nc, len(b.outputs)) if isinstance(b.outputs[o], str)],
    )


def _carry_sizes(r: Region) -> list[int]:
    """The number of entries of each carry (its slot's length in a stack)."""
    b, nk = r.body, r.n_consts
    return [int(np.prod(b.shapes[nk + c], dtype=np.int64)) for c in range(r.n_carry)]


def _carry_state(r: Region, c: int, flat: Node) -> Node:
    """Carry ``c`` from its entries in a (float) stack: its shape, an int carry cast back."""
    b, nk = r.body, r.n_consts
    state: Node = _reshape(flat, b.shapes[nk + c])
    return state if b.floats[nk + c] else AsType(state, "int")


def _initial_bars(r: Region, cotangents) -> tuple[list[Node], list[Node], list[Node]]:
    """The reverse sweep's start: c̄ of the float carries (their outputs' cotangents,
    zeros for None), k̄ of the float constants (zeros), ȳ of the ys in step order."""
    b, nk = r.body, r.n_consts
    fc, fk, _, fy = _floats(r)
    cbar = [
        _zeros(b.shapes[i])
        if cotangents[i - nk] is None
        else _reshape(cotangents[i - nk], b.shapes[i])
        for i in fc
    ]
    kbar = [_zeros(b.shapes[i]) for i in fk]
    ybars = []
    for o in fy:
        given = cotangents[o]
        ybars.append(
            _zeros(r.out_shapes[o]) if given is None else (_flip(given) if r.reverse else given)
        )
    return cbar, kbar, ybars


def _operand_bars(r: Region, cbar, kbar, xbars=()) -> list:
    """The cotangents of the loop's operands (None where none flows) from those of the
    float carries, constants and xs (the x̄ in step order)."""
    fc, fk, fx, _ = _floats(r)
    out: list = [None] * len(r.operand_shapes)
    first = r.n_cond_consts
    for bar, i in zip(cbar, fc, strict=True):
        out[first + i] = bar
    for bar, i in zip(kbar, fk, strict=True):
        out[first + i] = bar
    for bar, i in zip(xbars, fx, strict=True):
        out[first + i] = _flip(bar) if r.reverse else bar
    return out


def _loop_bars(r: Region, loop: Name, at: int, steps: int | None = None) -> list:
    """:func:`_operand_bars` from a reverse loop's results from ``at``: c̄, k̄, then
    (``steps``) each float x's x̄ of all steps, flat."""
    fc, fk, fx, _ = _floats(r)
    cbar = [Item(loop, at + a) for a in range(len(fc))]
    kbar = [Item(loop, at + len(fc) + a) for a in range(len(fk))]
    at += len(fc) + len(fk)
    xbars = (
        []
        if steps is None
        else [_reshape(Item(loop, at + a), (steps, *r.body.shapes[i])) for a, i in enumerate(fx)]
    )
    return _operand_bars(r, cbar, kbar, xbars)


def _vjp_seeds(r: Region, vjp: _Body, cbar_names, ybar_names=()) -> list[ArrayStatement]:
    """The seeds of the body's vjp: each output's cotangent, the sum of the c̄ (named
    ``cbar_names``) of the carries it becomes and of its ȳ (``ybar_names``)."""
    b, nk = r.body, r.n_consts
    fc, _, _, fy = _floats(r)
    contributions: dict[str, list[str]] = {}
    for i, name in zip(fc, cbar_names, strict=True):
        out = b.outputs[i - nk]
        if isinstance(out, str):
            contributions.setdefault(out, []).append(name)
    for o, name in zip(fy, ybar_names, strict=False):
        contributions.setdefault(b.outputs[o], []).append(name)
    seeds = []
    for u, seed in vjp.seed.items():
        shape = b.graph.shape(u)
        parts = [_reshape(Name(c), shape) for c in contributions.get(u, [])]
        total: Node = _zeros(shape) if not parts else parts[0]
        for p in parts[1:]:
            total = BinOp("+", total, p)
        seeds.append(ArrayStatement(seed, total))
    return seeds


def _vjp_bars(r: Region, vjp: _Body, kbar_names, scope: _Scope) -> list[str]:
    """After the body's vjp: the names of the new c̄ and of k̄ (``kbar_names`` plus this
    step's, summed in ``scope``)."""
    b = r.body
    fc, fk, _, _ = _floats(r)
    bars = dict(zip(b.inputs, vjp.program.results, strict=True))
    results = [bars[b.inputs[i]] for i in fc]
    for i, name in zip(fk, kbar_names, strict=True):
        total = BinOp("+", Name(name), _reshape(Name(bars[b.inputs[i]]), b.shapes[i]))
        results.append(scope.emit(total).id)
    return results


def _while_test(names, test: ArrayStatement) -> LoopBody:
    """A while loop's condition: ``test`` over the loop's carries and invariants."""
    return LoopBody(tuple(names), (test,), (test.target,))


class _Scope:
    """Statements of one function body with names of their own (``taken`` avoided)."""

    def __init__(self, taken=(), prefix: str = "_ls") -> None:
        self.taken = set(taken)
        self.prefix = prefix
        self.count = 0
        self.statements: list[ArrayStatement] = []

    def fresh(self) -> str:
        while True:
            self.count += 1
            name = f"{self.prefix}{self.count}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def names(self, count: int) -> list[str]:
        return [self.fresh() for _ in range(count)]

    def emit(self, node: Node) -> Name:
        name = self.fresh()
        self.statements.append(ArrayStatement(name, node))
        return Name(name)


class _Body:
    """A body program placed in a loop: its argument names by body input, seed names,
    the names of the body's outputs (values; ``dot``: tangents) and its constants."""

    def __init__(
        self, r: Region, program: ArrayProgram, seeds: list[str], nested: list[ArrayOp]
    ) -> None:
        b = r.body
        n = len(b.inputs)
        ends = len(program.results) - len(nested)
        self.computed = dict(zip(map(id, nested), program.results[ends:], strict=True))
        self.r = r
        self.program = program
        self.arg = dict(zip(b.inputs, program.arguments[:n], strict=True))
        self.seed = dict(zip(seeds, program.arguments[n:], strict=True))
        self.constants = sorted(program.constants)
        taken = set(program.arguments) | {s.target for s in program.statements}
        self.scope = _Scope(taken | set(self.constants))
        self.inner = [without_copies(s) for s in program.statements]
        outs = list(b.graph.outputs)
        m = len(outs)
        self.values = dict(zip(outs, program.results[:m], strict=False))
        self.dots = dict(zip(outs, program.results[m:ends], strict=False))

    def fresh(self) -> str:
        return self.scope.fresh()

    def output(self, o: int) -> str:
        """The name of body output o's value (a counter's ``i + 1``, a nested cond's
        value: computed by the body's program; a number: here)."""
        b, out = self.r.body, self.r.body.outputs[o]
        if isinstance(out, str):
            return self.values[out]
        if isinstance(out, ArrayOp):
            return self.computed[id(out)]
        node = body_operation(out, self.arg, b.out_shapes[o], self.r.name)
        return self.scope.emit(node).id

    def dot(self, o: int) -> str:
        """The name of body output o's tangent (zeros where no derivative reaches it)."""
        out = self.r.body.outputs[o]
        if isinstance(out, str):
            return self.dots[out]
        return self.scope.emit(_zeros(self.r.body.out_shapes[o])).id

    def statements(self) -> tuple[ArrayStatement, ...]:
        return (*self.inner, *self.scope.statements)


class LoopSweeps:
    """The loop regions of one generated sweep: each region's loops emitted once into
    the writer ``w``; ``program_of(graph, mode, lang, seeds, tape)`` makes a body's
    program (:func:`~dgraph.codegen.tensor.sweeps.sweep_program`)."""

    def __init__(self, w, lang: str, tape: int | None, program_of: Callable) -> None:
        self.w = w
        self.lang = lang
        self.tape = tape
        self.program_of = program_of
        self.notes: list[str] = []
        self._done: dict[int, Any] = {}
        self._programs: dict[tuple, ArrayProgram] = {}

    # -- the body programs --------------------------------------------------------------

    def _program(self, r: Region, mode: str, seeds: list[str], nested) -> ArrayProgram:
        key = (id(r), mode, tuple(seeds))
        if key not in self._programs:
            self._programs[key] = self.program_of(
                r.body.graph, mode, self.lang, seeds, self.tape, nested
            )
        return self._programs[key]

    def _body(self, r: Region, mode: str, seeds: list[str] | None = None) -> _Body:
        """A fresh placement (its own extra names) of the body's ``mode`` program."""
        b = r.body
        if list(b.graph.inputs) != list(b.inputs):
            raise DGraphError(f"{r.name}: a loop body whose graph inputs are not its inputs")
        seeds = list(b.graph.outputs) if mode == "vjp" else list(seeds or [])
        nested = [] if mode == "vjp" else _nested(r)  # the adjoint reads no output's value
        return _Body(r, self._program(r, mode, seeds, nested), seeds, nested)

    def _constants(self, body: _Body) -> list[Node]:
        return [self.w.constants.add(body.program.constants[c]) for c in body.constants]

    def _name(self, r: Region, what: str) -> str:
        return f"{what}_{r.name}" if r.name else what

    # -- tangent ----------------------------------------------------------------------------

    def tangent(self, op, operands: list[Node], tangents: list[Node | None]):
        """The value of the loop output ``op`` computes and its tangent (None: no
        derivative reaches it), the loop carrying the tangents emitted once."""
        r: Region = op.param["region"]
        j = op.param["output"]
        if id(r) not in self._done:
            self._done[id(r)] = self._tangent_loop(r, operands, tangents)
        loop, value_at, dot_at = self._done[id(r)]
        value = _reshape(Item(loop, value_at[j]), r.out_shapes[j])
        if dot_at[j] is None:
            return value, None
        return value, self.w.emit(_reshape(Item(loop, dot_at[j]), r.out_shapes[j]))

    def _tangent_loop(self, r: Region, operands, tangents):
        b, nk, nc, first = r.body, r.n_consts, r.n_carry, r.n_cond_consts
        ops, tans = operands[first:], tangents[first:]
        n = len(b.inputs)
        carries = list(range(nk, nk + nc))
        float_carries = [i for i in carries if b.floats[i]]
        others = [
            i for i in range(n) if not nk <= i < nk + nc and b.floats[i] and tans[i] is not None
        ]
        seeded = sorted(float_carries + others)
        body = self._body(r, "jvp", [b.inputs[i] for i in seeded])
        arg = [body.arg[x] for x in b.inputs]
        seed = {i: body.seed[b.inputs[i]] for i in seeded}
        xs_in = list(range(nk + nc, n))
        init = [_reshape(ops[i], b.shapes[i]) for i in carries]
        init += [
            _zeros(b.shapes[i]) if tans[i] is None else _reshape(tans[i], b.shapes[i])
            for i in float_carries
        ]
        names = [arg[i] for i in carries] + [seed[i] for i in float_carries]
        xs = [ops[i] for i in xs_in] + [tans[i] for i in xs_in if i in others]
        names += [arg[i] for i in xs_in] + [seed[i] for i in xs_in if i in others]
        invariants = [_reshape(ops[i], b.shapes[i]) for i in range(nk)]
        invariants += [_reshape(tans[i], b.shapes[i]) for i in range(nk) if i in others]
        names += [arg[i] for i in range(nk)] + [seed[i] for i in range(nk) if i in others]
        invariants += self._constants(body)
        names += body.constants
        float_ys = [o for o in range(nc, len(b.outputs)) if isinstance(b.outputs[o], str)]
        results = [body.output(o) for o in range(nc)]
        results += [body.dot(i - nk) for i in float_carries]
        results += [body.output(o) for o in range(nc, len(b.outputs))]
        results += [body.dot(o) for o in float_ys]
        nf = len(float_carries)
        value_at = list(range(nc)) + [nc + nf + y for y in range(r.n_ys)]
        dot_at: list[int | None] = [
            nc + float_carries.index(nk + c) if nk + c in float_carries else None for c in range(nc)
        ]
        at = nc + nf + r.n_ys
        dot_at += [
            at + float_ys.index(nc + y) if nc + y in float_ys else None for y in range(r.n_ys)
        ]
        if r.kind == "while":
            cond, cond_names, cond_ops = self._condition(r, body, names[:nc], operands[:first])
            names += cond_names
            invariants += cond_ops
            step = LoopBody(tuple(names), body.statements(), tuple(results))
            loop: Node = While(tuple(init), tuple(invariants), _while_test(names, cond), step)
            what = "while_loop (trip count at the point)"
        else:
            step = LoopBody(tuple(names), body.statements(), tuple(results))
            loop = Loop(tuple(init), tuple(xs), tuple(invariants), step, int(r.length), r.reverse)
            what = f"scan of {r.length} steps"
        self.notes.append(
            f"Loop {r.name or 'region'} ({what}): a tangent sweep inside the loop, the body's"
            " jvp each step (no Jacobian formed)"
        )
        return self.w.emit(loop, self._name(r, "jvp_loop")), value_at, dot_at

    def _condition(self, r: Region, body: _Body, carry_names: list[str], cond_operands):
        """A while loop's test over its condition constants (fresh names, returned with
        their operands) and the carries."""
        cond_names = [body.fresh() for _ in cond_operands]
        cond_ops = [_reshape(x, s) for x, s in zip(cond_operands, r.operand_shapes, strict=False)]
        known = dict(zip(r.cond_inputs, [*cond_names, *carry_names], strict=True))
        array = invariant(self.w.constants, cond_names, cond_ops, body.fresh)
        test = body_operation(r.cond, known, (), r.name, array)
        return ArrayStatement(body.fresh(), test), cond_names, cond_ops

    # -- values and the tape --------------------------------------------------------------

    def value(self, op, operands: list[Node], taped: bool) -> Node:
        """The value of the loop output ``op`` computes; ``taped``: the forward sweep of
        a ``vjp`` (the states it keeps for the reverse sweep)."""
        r: Region = op.param["region"]
        j = op.param["output"]
        done = self._done.get(id(r))
        if isinstance(done, tuple):  # its tangent loop, made first, computes it too
            return _reshape(Item(done[0], done[1][j]), r.out_shapes[j])
        if id(r) not in self._done:
            if r.kind == "while":
                self._done[id(r)] = self._while_forward(r, operands, taped)
            else:
                self._done[id(r)] = self._scan_forward(r, operands, taped)
        return _reshape(self._done[id(r)]["values"][j], r.out_shapes[j])

    def _parts(self, r: Region, operands):
        b, nk, nc, first = r.body, r.n_consts, r.n_carry, r.n_cond_consts
        ops = operands[first:]
        ks = [_reshape(ops[i], b.shapes[i]) for i in range(nk)]
        c0 = [_reshape(ops[i], b.shapes[i]) for i in range(nk, nk + nc)]
        xs = [ops[i] for i in range(nk + nc, len(b.inputs))]
        if r.reverse:  # in the order the steps run
            xs = [_flip(x) for x in xs]
        return ks, c0, xs

    def _forward(self, r: Region, body: _Body, init, xs, ks, consts, length: int, store: bool):
        """The value loop of ``length`` steps from ``init`` over ``xs`` (in step order);
        results: the carries, the ys, then (``store``) each step's incoming carries."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        n = len(b.inputs)
        arg = [body.arg[x] for x in b.inputs]
        names = [arg[i] for i in range(nk, nk + nc)]
        names += [arg[i] for i in range(nk + nc, n)] + [arg[i] for i in range(nk)]
        names += body.constants
        results = [body.output(o) for o in range(len(b.outputs))]
        if store:
            results += [arg[i] for i in range(nk, nk + nc)]
        step = LoopBody(tuple(names), body.statements(), tuple(results))
        return Loop(tuple(init), tuple(xs), (*ks, *consts), step, length)

    def _scan_forward(self, r: Region, operands, taped: bool) -> dict:
        """The forward sweep: every state kept (no bound, or one of at least T), else
        every s-th (:func:`segments`), the first ``T mod s`` steps before them."""
        w, nc, ny = self.w, r.n_carry, r.n_ys
        T = int(r.length)
        if taped and CHECKPOINTS == "binomial" and self.tape is not None and self.tape < T:
            return self._binomial_forward(r, operands, binomial_schedule(T, self.tape))
        s, q, rem = segments(T, self.tape if taped else None)
        ks, c0, xs = self._parts(r, operands)
        out: dict = {"s": s, "q": q, "rem": rem}
        if not taped or s == T:
            body = self._body(r, "value")
            loop = self._forward(r, body, c0, xs, ks, self._constants(body), T, taped)
            name = w.emit(loop, self._name(r, "loop"))
            ys = [Item(name, nc + y) for y in range(ny)]
            out["states"] = [Item(name, nc + ny + c) for c in range(nc)]
            carries = [Item(name, c) for c in range(nc)]
        else:
            carries, ys_rem = c0, []
            if rem:
                body = self._body(r, "value")
                first = [_cut(x, 0, rem) for x in xs]
                loop = self._forward(r, body, c0, first, ks, self._constants(body), rem, False)
                name = w.emit(loop, self._name(r, "loop_head"))
                carries = [Item(name, c) for c in range(nc)]
                ys_rem = [Item(name, nc + y) for y in range(ny)]
            x_shapes = r.body.shapes[r.n_consts + nc :]
            seg_xs = [
                self._segmented(x, s, q, rem, shape) for x, shape in zip(xs, x_shapes, strict=True)
            ]
            name = w.emit(self._checkpoints(r, carries, seg_xs, ks, s, q), self._name(r, "loop"))
            carries = [Item(name, c) for c in range(nc)]
            out["checkpoints"] = [Item(name, nc + c) for c in range(nc)]
            ys = []
            for y in range(ny):
                shape = r.out_shapes[nc + y][1:]
                whole = _reshape(Item(name, 2 * nc + y), (q * s, *shape))
                ys.append(_concat([*([ys_rem[y]] if rem else []), whole]))
        out["values"] = carries + [_flip(y) if r.reverse else y for y in ys]
        kept = (
            f"a tape of all {T} states"
            if s == T
            else (
                f"a tape of {q} checkpoint{'s' * (q != 1)} (a state every {s} steps), each"
                f" segment's {s}"
                " states recomputed from its checkpoint (equidistant checkpointing)"
            )
        )
        if taped:
            self.notes.append(
                f"Loop {r.name or 'region'} (scan of {T} steps): an adjoint sweep backwards"
                f" over {kept}, the body's vjp each step (no Jacobian formed)"
            )
        return out

    @staticmethod
    def _segmented(x: Node, s: int, q: int, rem: int, shape) -> Node:
        """Stacked per-step values (step order) past the first ``rem`` steps, as q
        segments of s steps: (q, s, *shape)."""
        return _reshape(_cut(x, rem, None) if rem else x, (q, s, *shape))

    def _checkpoints(self, r: Region, init, seg_xs, ks, s: int, q: int) -> Loop:
        """q segments of s steps, each storing the state it starts from (a checkpoint)."""
        nc, ny = r.n_carry, r.n_ys
        body = self._body(r, "value")
        outer = _Scope(prefix="_cp")
        carry = outer.names(nc)
        x_names = outer.names(len(seg_xs))
        k_names = outer.names(len(ks))
        c_names = outer.names(len(body.constants))
        xs = [self._slice_shape(r, Name(x), i, s) for i, x in enumerate(x_names)]
        inner = self._forward(
            r,
            body,
            [Name(c) for c in carry],
            xs,
            [Name(k) for k in k_names],
            [Name(c) for c in c_names],
            s,
            False,
        )
        run = outer.emit(inner)
        results = [outer.emit(Item(run, c)).id for c in range(nc)]
        results += carry
        results += [outer.emit(Item(run, nc + y)).id for y in range(ny)]
        step = LoopBody(
            tuple(carry + x_names + k_names + c_names), tuple(outer.statements), tuple(results)
        )
        return Loop(tuple(init), tuple(seg_xs), (*ks, *self._constants(body)), step, q)

    def _slice_shape(self, r: Region, x: Node, i: int, s: int) -> Node:
        """A segment's slices of xs input i, (s, ...) with the body's slice shape."""
        b = r.body
        shape = b.shapes[r.n_consts + r.n_carry + i]
        return _reshape(x, (s, *shape))

    # -- adjoint ----------------------------------------------------------------------------

    def adjoint(self, op, operands: list[Node], cotangents: list[Node | None]) -> list:
        """The cotangents of the loop's operands given those of its outputs (None: zero),
        by the reverse sweep over the tape the forward sweep kept."""
        r: Region = op.param["region"]
        done = self._done[id(r)]
        if r.kind == "while" and "revolve" in done:
            return self._while_revolve(r, operands, cotangents, done)
        if r.kind == "while":
            return self._while_adjoint(r, operands, cotangents, done)
        if "schedule" in done:
            return self._binomial_adjoint(r, operands, cotangents, done)
        return self._scan_adjoint(r, operands, cotangents, done)

    def _reverse(self, r: Region, body: _Body, cbar, kbar, states, xs, ybars, ks, consts, length):
        """The adjoint loop over ``length`` steps, last first: carries (c̄ of the float
        carries, k̄ of the float constants), xs (each step's incoming state, its slices,
        its ȳ), invariants (the constants, the body's program constants); ys the x̄."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        n = len(b.inputs)
        fc, fk, fx, fy = _floats(r)
        arg = [body.arg[x] for x in b.inputs]
        cbar_names = [body.fresh() for _ in fc]
        kbar_names = [body.fresh() for _ in fk]
        ybar_names = [body.fresh() for _ in fy]
        seeds = _vjp_seeds(r, body, cbar_names, ybar_names)
        results = _vjp_bars(r, body, kbar_names, body.scope)
        bars = dict(zip(b.inputs, body.program.results, strict=True))
        results += [bars[b.inputs[i]] for i in fx]
        names = cbar_names + kbar_names
        names += [arg[i] for i in range(nk, nk + nc)] + [arg[i] for i in range(nk + nc, n)]
        names += ybar_names + [arg[i] for i in range(nk)] + body.constants
        statements = (*seeds, *body.statements())
        step = LoopBody(tuple(names), statements, tuple(results))
        xs_all = (*states, *xs, *ybars)
        return Loop((*cbar, *kbar), xs_all, (*ks, *consts), step, length, True)

    def _scan_adjoint(self, r: Region, operands, cotangents, done: dict) -> list:
        w, b, nk, nc, ny = self.w, r.body, r.n_consts, r.n_carry, r.n_ys
        n = len(b.inputs)
        fc, fk, fx, fy = _floats(r)
        ks, c0, xs = self._parts(r, operands)
        cbar, kbar, ybars = _initial_bars(r, cotangents)
        s, q, rem = done["s"], done["q"], done["rem"]
        T = int(r.length)
        vjp, value = self._body(r, "vjp"), self._body(r, "value")
        nf, nkf = len(fc), len(fk)
        if s == T:
            loop = self._reverse(
                r, vjp, cbar, kbar, done["states"], xs, ybars, ks, self._constants(vjp), T
            )
            name = w.emit(loop, self._name(r, "vjp_loop"))
            cbar = [Item(name, a) for a in range(nf)]
            kbar = [Item(name, nf + a) for a in range(nkf)]
            xbars = [Item(name, nf + nkf + a) for a in range(len(fx))]
        else:
            outer = _Scope(prefix="_rv")
            cb = outer.names(len(cbar))
            kb = outer.names(len(kbar))
            cp = outer.names(nc)
            xn = outer.names(len(xs))
            yn = outer.names(len(ybars))
            kn = outer.names(len(ks))
            vn = outer.names(len(value.constants))
            an = outer.names(len(vjp.constants))
            seg_x = [self._slice_shape(r, Name(x), a, s) for a, x in enumerate(xn)]
            seg_y = [
                _reshape(Name(y), (s, *r.out_shapes[o][1:])) for y, o in zip(yn, fy, strict=True)
            ]
            kk = [Name(k) for k in kn]
            fwd = self._forward(
                r, value, [Name(c) for c in cp], seg_x, kk, [Name(v) for v in vn], s, True
            )
            run = outer.emit(fwd)
            states = [Item(run, nc + ny + c) for c in range(nc)]
            back = self._reverse(
                r,
                vjp,
                [Name(c) for c in cb],
                [Name(k) for k in kb],
                states,
                seg_x,
                seg_y,
                kk,
                [Name(a) for a in an],
                s,
            )
            rv = outer.emit(back)
            results = [outer.emit(Item(rv, a)).id for a in range(nf + nkf + len(fx))]
            step = LoopBody(
                tuple(cb + kb + cp + xn + yn + kn + vn + an),
                tuple(outer.statements),
                tuple(results),
            )
            seg_xs = [
                self._segmented(x, s, q, rem, b.shapes[i])
                for x, i in zip(xs, range(nk + nc, n), strict=True)
            ]
            seg_xs += [
                self._segmented(y, s, q, rem, r.out_shapes[o][1:])
                for y, o in zip(ybars, fy, strict=True)
            ]
            loop = Loop(
                (*cbar, *kbar),
                (*done["checkpoints"], *seg_xs),
                (*ks, *self._constants(value), *self._constants(vjp)),
                step,
                q,
                True,
            )
            name = w.emit(loop, self._name(r, "vjp_loop"))
            cbar = [Item(name, a) for a in range(nf)]
            kbar = [Item(name, nf + a) for a in range(nkf)]
            xbars = [
                _reshape(Item(name, nf + nkf + a), (q * s, *b.shapes[i])) for a, i in enumerate(fx)
            ]
            if rem:
                first = [_cut(x, 0, rem) for x in xs]
                head = self._body(r, "value")
                fwd = self._forward(r, head, c0, first, ks, self._constants(head), rem, True)
                f = w.emit(fwd, self._name(r, "loop_head"))
                states = [Item(f, nc + ny + c) for c in range(nc)]
                back = self._reverse(
                    r,
                    self._body(r, "vjp"),
                    cbar,
                    kbar,
                    states,
                    first,
                    [_cut(y, 0, rem) for y in ybars],
                    ks,
                    self._constants(vjp),
                    rem,
                )
                h = w.emit(back, self._name(r, "vjp_head"))
                cbar = [Item(h, a) for a in range(nf)]
                kbar = [Item(h, nf + a) for a in range(nkf)]
                xbars = [_concat([Item(h, nf + nkf + a), xb]) for a, xb in enumerate(xbars)]
        return _operand_bars(r, cbar, kbar, xbars)

    # -- binomial checkpointing (revolve) -------------------------------------------------

    def _tables(self, r: Region, sched: Schedule):
        """The schedule as two tables of rows (each row one body step): the forward
        sweep's T - 1 steps (kind 0 advance, 1 takeshot then advance; the slot) and the
        reverse sweep's rows after the first turn (0 advance, 1 takeshot then advance,
        2 turn then restore, 3 turn then restore and free; the step; the slot)."""
        acts = list(sched.actions)
        first = next(i for i, a in enumerate(acts) if a.kind == "turn")
        fwd_kind, fwd_slot, shot = [], [], -1
        for a in acts[:first]:
            if a.kind == "takeshot":
                shot = a.slot
            else:
                fwd_kind.append(int(shot >= 0))
                fwd_slot.append(max(shot, 0))
                shot = -1
        rows: list[tuple[int, int, int]] = []
        i, shot = first, -1
        while i < len(acts):
            a = acts[i]
            if a.kind == "takeshot":
                shot = a.slot
            elif a.kind == "advance":
                rows.append((int(shot >= 0), a.t, max(shot, 0)))
                shot = -1
            else:  # a turn, then (but after the last) a restore
                nxt = acts[i + 1] if i + 1 < len(acts) else Action("restore", 0, 0)
                if nxt.kind != "restore":
                    raise DGraphError(f"{r.name}: a revolve turn not followed by a restore")
                rows.append((3 if nxt.free else 2, a.t, nxt.slot))
                i += 1
            i += 1
        return (fwd_kind, fwd_slot), np.array(rows, dtype=np.int64).reshape(-1, 3)

    def _stack_positions(self, r: Region, scope: _Scope, slot: str, aranges: list[str]):
        """Each carry's flat positions of ``slot`` in its stack: slot·size + arange
        (JAX: the slot's first position slot·size, read and written as one contiguous
        slice: :func:`_slot_read`, :func:`_slot_write`)."""
        out = []
        for ar, size in zip(aranges, _carry_sizes(r), strict=True):
            at: Node = BinOp("*", Name(slot), Const(size))
            if self.lang != "jax":
                at = BinOp("+", at, Name(ar))
            out.append(scope.emit(at).id)
        return out

    def _advance_branch(self, r, names, cur, stack, pos, xt, kn, cn, shot: bool, extra):
        """A Cond branch: (takeshot: the current state into the stack, then) one body
        step; results the new carries, the stack, then ``extra`` passed on (the reverse
        sweep's) or (None: the forward sweep's) the step's ys."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        body = self._body(r, "value")
        scope = _Scope(set(names) | body.scope.taken, prefix="_ba")
        new_stack = list(stack)
        if shot:
            for c in range(nc):
                flat = _reshape(Name(cur[c]), (int(np.prod(b.shapes[nk + c], dtype=np.int64)),))
                new_stack[c] = scope.emit(ScatterAdd(Name(stack[c]), ((Name(pos[c]), flat),))).id
        xs1 = [_reshape(Name(x), (1, *b.shapes[nk + nc + a])) for a, x in enumerate(xt)]
        run = _inline(
            scope,
            self._forward(
                r,
                body,
                [Name(c) for c in cur],
                xs1,
                [Name(k) for k in kn],
                [Name(v) for v in cn],
                1,
                False,
            ),
        )
        results = [scope.emit(_reshape(Name(run[c]), b.shapes[nk + c])).id for c in range(nc)]
        results += new_stack + list(extra or [])
        results += (
            []
            if extra is not None
            else [
                scope.emit(_reshape(Name(run[nc + y]), r.out_shapes[nc + y][1:])).id
                for y in range(r.n_ys)
            ]
        )
        return LoopBody(tuple(names), tuple(scope.statements), tuple(results))

    def _binomial_forward(self, r: Region, operands, sched: Schedule) -> dict:
        """The forward sweep under binomial checkpointing: T - 1 steps storing the
        schedule's checkpoints into a stack of K slots per carry, then the last step."""
        w, nc, ny = self.w, r.n_carry, r.n_ys
        T, K = sched.steps, sched.slots
        ks, c0, xs = self._parts(r, operands)
        (kind, slot), rows = self._tables(r, sched)
        sizes = _carry_sizes(r)
        aranges = [w.constants.add(np.arange(n, dtype=np.int64)) for n in sizes]
        value = self._body(r, "value")
        consts = self._constants(value)
        outer = _Scope(prefix="_bf")
        cur = outer.names(nc)
        stack = outer.names(nc)
        kd, sl = outer.fresh(), outer.fresh()
        xt = outer.names(len(xs))
        kn = outer.names(len(ks))
        cn = outer.names(len(consts))
        an = outer.names(len(aranges))
        pos = self._stack_positions(r, outer, sl, an)
        if self.lang == "jax":  # the stack written outside any branch: in place
            shot = BinOp("==", Name(kd), Const(1))
            new_stack = self._masked_write(r, outer, stack, pos, shot, cur)
            names = [*cur, *xt, *kn, *cn]
            step_only = self._advance_branch(r, names, cur, [], [], xt, kn, cn, False, None)
            outer.statements += list(step_only.statements)
            res = list(step_only.results)
            results = res[:nc] + new_stack + res[nc:]
        else:  # NumPy: the stack copied only on the rows that store into it
            names = [*cur, *stack, *xt, *kn, *cn, *pos]
            branches = tuple(
                self._advance_branch(r, names, cur, stack, pos, xt, kn, cn, shot, None)
                for shot in (False, True)
            )
            cond = outer.emit(Cond(Name(kd), tuple(Name(n) for n in names), branches))
            results = [outer.emit(Item(cond, a)).id for a in range(2 * nc + ny)]
        step = LoopBody(
            tuple([*cur, *stack, kd, sl, *xt, *kn, *cn, *an]),
            tuple(outer.statements),
            tuple(results),
        )
        init = [*c0, *(_zeros((K * n,)) for n in sizes)]
        table = [
            w.constants.add(np.array(kind, dtype=np.int64)),
            w.constants.add(np.array(slot, dtype=np.int64)),
        ]
        head = [_cut(x, 0, T - 1) for x in xs]
        loop = Loop(tuple(init), (*table, *head), (*ks, *consts, *aranges), step, T - 1)
        name = w.emit(loop, self._name(r, "loop"))
        current = [Item(name, c) for c in range(nc)]
        stacks = [Item(name, nc + c) for c in range(nc)]
        last = self._body(r, "value")
        tail = [_cut(x, T - 1, None) for x in xs]
        end = w.emit(
            self._forward(r, last, current, tail, ks, self._constants(last), 1, False),
            self._name(r, "loop_last"),
        )
        ys = [_concat([Item(name, 2 * nc + y), Item(end, nc + y)]) for y in range(ny)]
        self.notes.append(
            f"Loop {r.name or 'region'} (scan of {T} steps): an adjoint sweep backwards"
            f" under binomial checkpointing (revolve): at most {K} stored state"
            f"{'s' * (K != 1)} besides the current one, {sched.recomputed} steps recomputed"
            " (the fewest for that bound), the body's vjp each step (no Jacobian formed)"
        )
        return {
            "values": [Item(end, c) for c in range(nc)]
            + [_flip(y) if r.reverse else y for y in ys],
            "schedule": sched,
            "rows": rows,
            "current": current,
            "stacks": stacks,
            "aranges": aranges,
        }

    def _masked_write(self, r: Region, scope: _Scope, stack, starts, where, values) -> list[str]:
        """JAX: each stack with ``values`` written into the slot starting at ``starts``
        where ``where`` holds (the slot's own entries written back elsewhere), outside
        any branch: a dynamic_update_slice XLA does in place."""
        sizes = _carry_sizes(r)
        return [
            _slot_write(scope, stack[c], starts[c], sizes[c], where, v)
            for c, v in enumerate(values)
        ]

    def _binomial_adjoint(self, r: Region, operands, cotangents, done: dict) -> list:
        """The reverse sweep's rows (:meth:`_tables`) as one loop over the table: each
        row a Cond of an advance, a takeshot and advance, or a turn (the body's vjp at
        the current state, x̄_t written at its step) and a restore (NumPy; JAX:
        :meth:`_binomial_turns`)."""
        if self.lang == "jax":
            return self._binomial_turns(r, operands, cotangents, done)
        w, b, nc = self.w, r.body, r.n_carry
        T = done["schedule"].steps
        ks, _, xs = self._parts(r, operands)
        cbar, kbar, ybars = _initial_bars(r, cotangents)
        xsizes = [int(np.prod(b.shapes[i], dtype=np.int64)) for i in _floats(r).xs]
        xbar = [_zeros((T * m,)) for m in xsizes]
        xar = [w.constants.add(np.arange(m, dtype=np.int64)) for m in xsizes]
        value = self._body(r, "value")
        vjp0 = self._body(r, "vjp")
        vconsts, aconsts = self._constants(value), self._constants(vjp0)
        outer = _Scope(prefix="_br")
        cur = outer.names(nc)
        stack = outer.names(nc)
        cb = outer.names(len(cbar))
        kb = outer.names(len(kbar))
        xb = outer.names(len(xbar))
        kd, tt, sl = outer.fresh(), outer.fresh(), outer.fresh()
        xfull = outer.names(len(xs))
        yfull = outer.names(len(ybars))
        kn = outer.names(len(ks))
        vn = outer.names(len(vconsts))
        an = outer.names(len(aconsts))
        arn = outer.names(len(done["aranges"]))
        xarn = outer.names(len(xar))
        pos = self._stack_positions(r, outer, sl, arn)
        xt = [outer.emit(Index(Name(x), (Name(tt),))).id for x in xfull]
        yt = [outer.emit(Index(Name(y), (Name(tt),))).id for y in yfull]
        xpos = [
            outer.emit(BinOp("+", BinOp("*", Name(tt), Const(m)), Name(a))).id
            for m, a in zip(xsizes, xarn, strict=True)
        ]
        names = [*cur, *stack, *cb, *kb, *xb, *xt, *yt, *kn, *vn, *an, *pos, *xpos]
        extra = [*cb, *kb, *xb]
        branches = [
            self._advance_branch(r, names, cur, stack, pos, xt, kn, vn, shot, extra)
            for shot in (False, True)
        ]
        branches += [
            self._turn_branch(r, names, cur, stack, pos, xt, yt, kn, an, cb, kb, xb, xpos, free)
            for free in (False, True)
        ]
        cond = outer.emit(Cond(Name(kd), tuple(Name(x) for x in names), tuple(branches)))
        total = 2 * nc + len(cb) + len(kb) + len(xb)
        results = [outer.emit(Item(cond, a)).id for a in range(total)]
        args = [*cur, *stack, *cb, *kb, *xb, kd, tt, sl, *xfull, *yfull, *kn, *vn, *an, *arn, *xarn]
        step = LoopBody(tuple(args), tuple(outer.statements), tuple(results))
        rows = done["rows"]
        table = [w.constants.add(np.ascontiguousarray(rows[:, j])) for j in range(3)]
        init = (*done["current"], *done["stacks"], *cbar, *kbar, *xbar)
        invariants = (*xs, *ybars, *ks, *vconsts, *aconsts, *done["aranges"], *xar)
        loop = Loop(init, tuple(table), invariants, step, len(rows))
        name = w.emit(loop, self._name(r, "vjp_loop"))
        return _loop_bars(r, name, 2 * nc, T)

    def _turn_branch(self, r, names, cur, stack, pos, xt, yt, kn, an, cb, kb, xb, xpos, free):
        """A Cond branch: the body's vjp at the current state (c̄, k̄ carried, x̄_t written
        at its step), then the current state restored from the row's slot (``free``: the
        slot zeroed, so that a later takeshot adds onto zeros, exactly)."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        vjp = self._body(r, "vjp")
        scope = _Scope(set(names) | vjp.scope.taken, prefix="_bt")
        states = [_reshape(Name(x), (1, *b.shapes[nk + c])) for c, x in enumerate(cur)]
        xs1 = [_reshape(Name(x), (1, *b.shapes[nk + nc + a])) for a, x in enumerate(xt)]
        fy = _floats(r).ys
        ys1 = [_reshape(Name(y), (1, *r.out_shapes[o][1:])) for y, o in zip(yt, fy, strict=True)]
        back = _inline(
            scope,
            self._reverse(
                r,
                vjp,
                [Name(c) for c in cb],
                [Name(k) for k in kb],
                states,
                xs1,
                ys1,
                [Name(k) for k in kn],
                [Name(a) for a in an],
                1,
            ),
        )
        nf, nkf = len(cb), len(kb)
        if not stack:  # JAX: no restore here; the current state, c̄, k̄, the raw x̄_t
            results = [*cur, *(scope.emit(Name(back[a])).id for a in range(nf + nkf))]
            nx = len(_floats(r).xs)
            results += [scope.emit(_reshape(Name(back[nf + nkf + a]), (-1,))).id for a in range(nx)]
            return LoopBody(tuple(names), tuple(scope.statements), tuple(results))
        results, new_stack = [], list(stack)
        for c in range(nc):
            old = scope.emit(Index(Name(stack[c]), (Name(pos[c]),)))
            results.append(scope.emit(_carry_state(r, c, old)).id)
            if free:
                zeroed = ScatterAdd(Name(stack[c]), ((Name(pos[c]), UnaryOp("-", old)),))
                new_stack[c] = scope.emit(zeroed).id
        results += new_stack
        results += [scope.emit(Name(back[a])).id for a in range(nf + nkf)]
        for a, x in enumerate(xb):
            flat = _reshape(Name(back[nf + nkf + a]), (-1,))
            results.append(scope.emit(ScatterAdd(Name(x), ((Name(xpos[a]), flat),))).id)
        return LoopBody(tuple(names), tuple(scope.statements), tuple(results))

    # -- while loops ----------------------------------------------------------------------

    def _while_steps(self, r: Region, body: _Body, init, ks, consts, until=None, cond_ops=()):
        """A while loop of the body's value program counting its trips: carries (the
        loop's carries, the count); run while the loop's own test holds (``until`` None:
        over ``cond_ops``) or while the count is below ``until``."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        arg = [body.arg[x] for x in b.inputs]
        count = body.fresh()
        carry_names = [arg[i] for i in range(nk, nk + nc)]
        names = carry_names + [count] + [arg[i] for i in range(nk)] + body.constants
        invariants = [*ks, *consts]
        if until is None:
            test, cond_names, cond_nodes = self._condition(r, body, carry_names, list(cond_ops))
            names += cond_names
            invariants += cond_nodes
        else:
            bound = body.fresh()
            names.append(bound)
            invariants.append(until)
            test = ArrayStatement(body.fresh(), BinOp("<", Name(count), Name(bound)))
        results = [body.output(o) for o in range(nc)]
        results.append(body.scope.emit(BinOp("+", Name(count), Const(1))).id)
        step = LoopBody(tuple(names), body.statements(), tuple(results))
        return While((*init, Const(0)), tuple(invariants), _while_test(names, test), step)

    def _while_forward(self, r: Region, operands, taped: bool = False) -> dict:
        ks, c0, _ = self._parts(r, operands)
        body = self._body(r, "value")
        loop = self._while_steps(
            r, body, c0, ks, self._constants(body), cond_ops=operands[: r.n_cond_consts]
        )
        name = self.w.emit(loop, self._name(r, "loop"))
        nc = r.n_carry
        out = {"values": [Item(name, c) for c in range(nc)], "trips": Item(name, nc), "c0": c0}
        how = "each state recomputed from the first (one state kept)"
        if taped and self.tape is not None:
            K = out["revolve"] = self.tape
            how = (
                f"under binomial checkpointing computed as it runs (revolve): at most {K}"
                f" stored state{'s' * (K != 1)} besides the current one; the fewest forward"
                f" steps for {K} states and n trips, plus the n of the counting sweep"
            )
        self.notes.append(
            f"Loop {r.name or 'region'} (while_loop): the forward sweep counts its trips n;"
            f" the reverse sweep runs n steps backwards, {how}"
        )
        return out

    def _turn(self, r: Region, vjp: _Body, scope: _Scope, cb: list[str], kb: list[str]):
        """The body's vjp at the state its arguments are bound to (as in the scan's
        reverse step): its seeds from the c̄ named ``cb``, its statements, into ``scope``;
        the names of the new c̄ and of k̄ (``kb`` plus this step's)."""
        scope.statements += _vjp_seeds(r, vjp, cb)
        scope.statements += list(vjp.statements())
        return _vjp_bars(r, vjp, kb, scope)

    def _while_adjoint(self, r: Region, operands, cotangents, done: dict) -> list:
        """n steps backwards (n the trips the forward sweep counted): step j's state
        recomputed from the first by j - 1 body steps, then the body's vjp."""
        b, nk, nc = r.body, r.n_consts, r.n_carry
        fc, fk, _, _ = _floats(r)
        ks, c0, _ = self._parts(r, operands)
        vjp, value = self._body(r, "vjp"), self._body(r, "value")
        outer = _Scope(prefix="_wv")
        j = outer.fresh()
        cb = [vjp.fresh() for _ in fc]
        kb = [vjp.fresh() for _ in fk]
        cn = outer.names(nc)
        kn = outer.names(len(ks))
        vn = outer.names(len(value.constants))
        arg = [vjp.arg[x] for x in b.inputs]
        jm1 = outer.emit(BinOp("-", Name(j), Const(1)))
        recompute = self._while_steps(
            r, value, [Name(c) for c in cn], [Name(k) for k in kn], [Name(v) for v in vn], jm1
        )
        state = outer.emit(recompute)
        for c in range(nc):  # the body's vjp reads the state under its own names
            outer.statements.append(ArrayStatement(arg[nk + c], Item(state, c)))
        for a, k in enumerate(kn):
            outer.statements.append(ArrayStatement(arg[a], Name(k)))
        results = [jm1.id, *self._turn(r, vjp, outer, cb, kb)]
        an = list(vjp.constants)
        names = [j, *cb, *kb, *cn, *kn, *vn, *an]
        outer.taken |= set(names)
        test = ArrayStatement(outer.fresh(), BinOp(">", Name(j), Const(0)))
        step = LoopBody(tuple(names), tuple(outer.statements), tuple(results))
        cbar, kbar, _ = _initial_bars(r, cotangents)
        invariants = (*c0, *ks, *self._constants(value), *self._constants(vjp))
        loop = While((done["trips"], *cbar, *kbar), invariants, _while_test(names, test), step)
        return _loop_bars(r, self.w.emit(loop, self._name(r, "vjp_loop")), 1)

    # -- a while loop's reverse under tape=K: revolve computed at run time ---------------

    def _split(self, scope: _Scope, steps: str, slots: str) -> str:
        """The name of :func:`.revolve.split_at` (steps, slots) computed in the code: t
        and β by a loop over two integers, then Griewank and Walther's rule."""
        sub = _Scope(scope.taken, prefix="_ws")
        reps, span, length, room = (sub.fresh() for _ in range(4))
        r1 = sub.emit(BinOp("+", Name(reps), Const(1)))
        grown = BinOp("*", Name(span), BinOp("+", r1, Name(room)))
        s1 = sub.emit(Call("floor_divide", (grown, r1)))
        step = LoopBody((reps, span, length, room), tuple(sub.statements), (r1.id, s1.id))
        more = Call(
            "logical_and",
            (BinOp("<", Name(span), Name(length)), BinOp(">", Name(room), Const(1))),
        )
        cond = _while_test((reps, span, length, room), ArrayStatement(sub.fresh(), more))
        scope.taken |= sub.taken
        found = scope.emit(While((Const(0), Const(1)), (Name(steps), Name(slots)), cond, step))
        t, beta, s = scope.emit(Item(found, 0)), scope.emit(Item(found, 1)), Name(slots)

        def div(a: Node, b: Node) -> Node:
            return Call("floor_divide", (a, Call("maximum", (b, Const(1)))))

        def pick(test: Node, yes: Node, no: Node) -> Node:
            return scope.emit(Call("where", (test, yes, no)))

        b1 = scope.emit(div(BinOp("*", beta, t), BinOp("+", s, t)))
        b2 = scope.emit(div(BinOp("*", b1, s), BinOp("-", BinOp("+", s, t), Const(1))))
        b3 = pick(
            BinOp(">", s, Const(2)),
            div(BinOp("*", b2, BinOp("-", s, Const(1))), BinOp("-", BinOp("+", s, t), Const(2))),
            Const(1),
        )
        b4 = scope.emit(div(BinOp("*", b2, BinOp("-", t, Const(1))), s))
        b5 = pick(
            BinOp(">", s, Const(3)),
            div(BinOp("*", b3, BinOp("-", s, Const(2))), t),
            pick(BinOp("==", s, Const(3)), Const(1), Const(0)),
        )
        length = Name(steps)
        m = pick(
            BinOp("<=", length, BinOp("+", b1, b3)),
            b4,
            pick(
                BinOp(">=", length, BinOp("-", beta, b5)),
                b1,
                BinOp("-", BinOp("-", length, b2), b3),
            ),
        )
        one = BinOp("==", s, Const(1))  # one slot: advance to the last step
        return pick(one, BinOp("-", length, Const(1)), Call("maximum", (m, Const(1)))).id

    def _while_revolve(self, r: Region, operands, cotangents, done: dict) -> list:
        """The reverse sweep under ``tape=K`` once the forward sweep has counted n trips:
        binomial checkpointing (:func:`.revolve.run_time_schedule`) with its split
        computed as it runs. One while loop, each trip a Cond of an advance run (m steps,
        the state reached pushed onto a stack of K slots unless it is the one the next
        turn needs) or a turn (the body's vjp, then the top slot restored, popped when it
        holds the next turn's state); the stack is written outside the Cond (JAX: in
        place)."""
        b, nk, nc, K = r.body, r.n_consts, r.n_carry, int(done["revolve"])
        fc, fk, _, _ = _floats(r)
        ks, c0, _ = self._parts(r, operands)
        sizes = _carry_sizes(r)
        vjp, value = self._body(r, "vjp"), self._body(r, "value")
        vconsts, aconsts = self._constants(value), self._constants(vjp)
        outer = _Scope(vjp.scope.taken | value.scope.taken, prefix="_wr")
        cur = outer.names(nc)
        stack = outer.names(nc)
        ch, top, capo, fine = (outer.fresh() for _ in range(4))
        cb = outer.names(len(fc))
        kb = outer.names(len(fk))
        kn = outer.names(len(ks))
        vn = outer.names(len(vconsts))
        an = list(vjp.constants)
        names = [*cur, *stack, ch, top, capo, fine, *cb, *kb, *kn, *vn, *an]
        # the advance run: m = split(fine - capo, K - top) steps of the body
        adv = _Scope(set(names) | outer.taken, prefix="_wa")
        left = adv.emit(BinOp("-", Name(fine), Name(capo)))
        room = adv.emit(BinOp("-", Const(K), Name(top)))
        m = self._split(adv, left.id, room.id)
        run = adv.emit(
            self._while_steps(
                r,
                value,
                [Name(c) for c in cur],
                [Name(k) for k in kn],
                [Name(v) for v in vn],
                Name(m),
            )
        )
        moved = [adv.emit(Item(run, c)).id for c in range(nc)]
        advance = LoopBody(tuple(names), tuple(adv.statements), (*moved, *cb, *kb, m))
        # the turn: the body's vjp at the current state
        arg = [vjp.arg[x] for x in b.inputs]
        tn = _Scope(set(names) | outer.taken | adv.taken, prefix="_wt")
        for c in range(nc):
            tn.statements.append(ArrayStatement(arg[nk + c], Name(cur[c])))
        for a, k in enumerate(kn):
            tn.statements.append(ArrayStatement(arg[a], Name(k)))
        bars = self._turn(r, vjp, tn, cb, kb)
        none = tn.emit(BinOp("*", Name(capo), Const(0)))
        turn_branch = LoopBody(tuple(names), tuple(tn.statements), (*cur, *bars, none.id))
        outer.taken |= tn.taken | adv.taken
        turn = outer.emit(BinOp("==", Name(capo), BinOp("-", Name(fine), Const(1))))
        row = outer.emit(Cond(turn, tuple(Name(x) for x in names), (advance, turn_branch)))
        got = [outer.emit(Item(row, a)).id for a in range(nc + len(cb) + len(kb) + 1)]
        new, bars, steps = got[:nc], got[nc:-1], got[-1]
        reached = outer.emit(BinOp("+", Name(capo), Name(steps)))
        push = outer.emit(
            Call(
                "logical_and",
                (
                    Call("logical_not", (turn,)),
                    BinOp("<", reached, BinOp("-", Name(fine), Const(1))),
                ),
            )
        )
        top1 = outer.emit(Call("where", (push, BinOp("+", Name(top), Const(1)), Name(top))))
        starts = [outer.emit(BinOp("*", top1, Const(n))).id for n in sizes]
        stack1 = [
            _slot_write(outer, stack[c], starts[c], sizes[c], push, new[c]) for c in range(nc)
        ]
        ch1 = _slot_write(outer, ch, top1.id, 1, push, reached.id)
        back = outer.emit(_reshape(_slot_read(ch1, top1.id, 1), ()))
        fine1 = outer.emit(Call("where", (turn, BinOp("-", Name(fine), Const(1)), Name(fine))))
        current = []
        for c in range(nc):
            state = _carry_state(r, c, _slot_read(stack1[c], starts[c], sizes[c]))
            current.append(outer.emit(Call("where", (turn, state, Name(new[c])))).id)
        capo1 = outer.emit(Call("where", (turn, back, reached)))
        pop = Call("logical_and", (turn, BinOp("==", back, BinOp("-", fine1, Const(1)))))
        pop = Call("logical_and", (pop, BinOp(">", top1, Const(0))))  # x_0's slot kept
        top2 = outer.emit(Call("where", (pop, BinOp("-", top1, Const(1)), top1)))
        results = (*current, *stack1, ch1, top2.id, capo1.id, fine1.id, *bars)
        step = LoopBody(tuple(names), tuple(outer.statements), results)
        cond = _while_test(names, ArrayStatement(outer.fresh(), BinOp(">", Name(fine), Const(0))))
        cbar, kbar, _ = _initial_bars(r, cotangents)
        stacks = [
            _concat([AsType(_reshape(c0[c], (n,)), "float"), _zeros(((K - 1) * n,))])
            for c, n in enumerate(sizes)
        ]
        init = (*c0, *stacks, AsType(_zeros((K,)), "int"), Const(0), Const(0), done["trips"])
        loop = While((*init, *cbar, *kbar), (*ks, *vconsts, *aconsts), cond, step)
        return _loop_bars(r, self.w.emit(loop, self._name(r, "vjp_loop")), 2 * nc + 4)

    # -- binomial checkpointing's reverse sweep in JAX: one loop over the turns ----------

    def _binomial_turns(self, r: Region, operands, cotangents, done: dict) -> list:
        """JAX: the reverse rows (:meth:`_tables`) grouped by turn, with no Cond: a
        reverse scan over the T steps, each the body's vjp at the current state (its
        slices of xs and ȳ read as the scan's, x̄_t its y), the restore of the turn's
        slot, then a while loop over the advance rows up to the next turn (each a masked
        takeshot and a body step, its slices of xs read at the row's step)."""
        w, nc = self.w, r.n_carry
        T = done["schedule"].steps
        ks, _, xs = self._parts(r, operands)
        cbar, kbar, ybars = _initial_bars(r, cotangents)
        sizes = _carry_sizes(r)
        rows = done["rows"]
        turns = np.nonzero(rows[:, 0] >= 2)[0]
        if not np.array_equal(rows[turns, 1], np.arange(T - 1, -1, -1)):
            raise DGraphError(f"{r.name}: a revolve schedule that does not turn T-1 .. 0")
        ends = np.append(turns[1:], len(rows))
        by_step = [turns[::-1] + 1, ends[::-1], rows[turns[::-1], 2]]  # row t: step t's
        per_step = [w.constants.add(np.ascontiguousarray(a, dtype=np.int64)) for a in by_step]
        table = [  # indexed by a traced row: JAX arrays
            Call("asarray", (w.constants.add(np.ascontiguousarray(rows[:, j])),)) for j in range(3)
        ]
        vconsts = self._constants(self._body(r, "value"))
        aconsts = self._constants(self._body(r, "vjp"))
        outer = _Scope(prefix="_bw")
        cur = outer.names(nc)
        stack = outer.names(nc)
        cb = outer.names(len(cbar))
        kb = outer.names(len(kbar))
        lo, hi, back = outer.fresh(), outer.fresh(), outer.fresh()
        xt = outer.names(len(xs))
        yt = outer.names(len(ybars))
        xfull = outer.names(len(xs))
        kn = outer.names(len(ks))
        vn = outer.names(len(vconsts))
        an = outer.names(len(aconsts))
        tabs = outer.names(len(table))
        names = [*cur, *cb, *kb, *xt, *yt, *kn, *vn, *an]
        turn = self._turn_branch(r, names, cur, [], [], xt, yt, kn, an, cb, kb, [], [], False)
        outer.taken |= {s.target for s in turn.statements}
        outer.statements += list(turn.statements)
        bars = list(turn.results[nc:])
        restored = []
        for c in range(nc):
            at = outer.emit(BinOp("*", Name(back), Const(sizes[c])))
            restored.append(outer.emit(_carry_state(r, c, _slot_read(stack[c], at.id, sizes[c]))))
        run = self._advance_rows(r, (stack, sizes), (xfull, kn, vn, tabs))
        carried = (*restored, *(Name(x) for x in stack), Name(lo))
        fixed = tuple(Name(x) for x in (hi, *xfull, *kn, *vn, *tabs))
        loop = outer.emit(While(carried, fixed, *run))
        results = [outer.emit(Item(loop, a)).id for a in range(2 * nc)]
        results += bars
        args = [*cur, *stack, *cb, *kb, lo, hi, back, *xt, *yt, *xfull, *kn, *vn, *an, *tabs]
        step = LoopBody(tuple(args), tuple(outer.statements), tuple(results))
        init = (*done["current"], *done["stacks"], *cbar, *kbar)
        whole = [Call("asarray", (x,)) for x in xs]  # indexed by a traced step
        invariants = (*whole, *ks, *vconsts, *aconsts, *table)
        body = Loop(init, (*per_step, *xs, *ybars), invariants, step, T, True)
        name = w.emit(body, self._name(r, "vjp_loop"))
        return _loop_bars(r, name, 2 * nc, T)

    def _advance_rows(self, r: Region, stacks, invariant_names):
        """The condition and body of the while loop over advance rows lo .. hi - 1:
        carries (the state, the stacks, the row), invariants (hi, the full xs, the
        constants, the three row tables); each row a masked takeshot, then a step."""
        nc = r.n_carry
        stack_names, sizes = stacks
        xfull0, kn0, vn0, tabs0 = invariant_names
        inner = _Scope(prefix="_bv")
        cur = inner.names(nc)
        stack = inner.names(len(stack_names))
        j, hi = inner.fresh(), inner.fresh()
        xfull = inner.names(len(xfull0))
        kn = inner.names(len(kn0))
        vn = inner.names(len(vn0))
        kind, tt, slot = (inner.fresh() for _ in tabs0)
        args = (*cur, *stack, j, hi, *xfull, *kn, *vn, kind, tt, slot)
        row = [inner.emit(Index(Name(tab), (Name(j),))).id for tab in (kind, tt, slot)]
        shot = BinOp("==", Name(row[0]), Const(1))
        starts = [inner.emit(BinOp("*", Name(row[2]), Const(s))).id for s in sizes]
        new_stack = self._masked_write(r, inner, stack, starts, shot, cur)
        xt = [inner.emit(Index(Name(x), (Name(row[1]),))).id for x in xfull]
        names = [*cur, *xt, *kn, *vn]
        advanced = self._advance_branch(r, names, cur, [], [], xt, kn, vn, False, [])
        inner.taken |= {s.target for s in advanced.statements}
        inner.statements += list(advanced.statements)
        nxt = inner.emit(BinOp("+", Name(j), Const(1)))
        results = (*advanced.results[:nc], *new_stack, nxt.id)
        test = ArrayStatement(inner.fresh(), BinOp("<", Name(j), Name(hi)))
        step = LoopBody(args, tuple(inner.statements), results)
        return _while_test(args, test), step
