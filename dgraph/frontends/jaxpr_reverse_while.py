"""``while_loop``s whose trip count the inputs reach (Newton to a tolerance, a bisection),
given a reverse sweep of their own, so that JAX's reverse mode (which refuses a
``while_loop``) gives the gradient whose graph the Hessian reads.

The loop runs as written; its trip count ``n`` is known once it has run. Its reverse sweep
first stores checkpoints: a ``scan`` of ``S`` steps (static: the loop's trips where the
function is made, at most :data:`SLOTS`; one, no scan, up to :data:`RECOMPUTE_MOST`
trips there; :func:`slots_for`) from the initial carries keeps
the states x_0, x_d, x_2d, … (d = max(⌈n/S⌉, 1), at most n − 1 body steps); then a
reverse ``scan`` over those S segments runs each one's steps back by a ``while_loop``,
step ``k``'s state recomputed from its segment's checkpoint by ``k mod d`` body steps,
and the body's pullback at that state (JAX's ``vjp`` of the body) carries the adjoint one
step back (Griewank and Walther, *Evaluating Derivatives*, 2nd ed., SIAM 2008, ch. 12:
reversal of a loop by checkpointing and recomputation). Extra body steps:
:func:`extra_steps`, at most ``n − 1 + n²/(2S)`` (every state stored while n ≤ S), where
recomputing each state from the first took ``n(n − 1)/2``. A ``jax.custom_vjp`` holds the
pair, so ``jax.grad`` of ``f`` is the forward loop, which counts its trips, followed by
the reverse sweep of that many steps: both run to the point's own trip count wherever
the gradient (and the Hessian, its Jacobian) is evaluated, never another point's. The
derivative is that of the trips the loop runs at the point (JAX's forward-mode
convention through a ``while_loop``): no derivative flows through the condition, whose
outcome is piecewise constant.

The checkpoints are a scan's outputs, each segment's the reverse scan's slice of them:
read at a run-time slot in a ``while_loop`` instead, the buffer's block in the loop's body
is held dense by the generated Hessian (S·n × n: refused from n = 2,000 at S = 32). Why
not binomial checkpointing (:mod:`dgraph.codegen.tensor.revolve`'s run-time schedule, as
dgraph's own ``vjp`` of a ``while_loop`` under ``tape=K``): the sweep written here is read
back by the jaxpr reader, differentiated once more and generated, and that reader refuses
the schedule's stack push, a ``dynamic_update_slice`` at an index that changes from trip
to trip of a ``while_loop`` (writes at a run-time index are read in a ``scan`` only).
Fixed segments, stored by one scan and reversed by another, need none.

Loops of the top level of ``f``'s jaxpr whose operands the inputs reach, and those in a
call there (``jax.jit``: inlined); a loop nested in another loop or in a ``cond`` is
kept, and the Hessian takes JAX's forward mode through it. Run after
:func:`~.jaxpr_static_while.static_trip_loops` (a trip count no input reaches is a
``scan``, whose reverse sweep needs no recomputation).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from .jaxpr_compat import is_literal
from .jaxpr_static_while import counted_while, evaluate_with, feeding

__all__ = [
    "RECOMPUTE_MOST",
    "SLOTS",
    "extra_steps",
    "has_while",
    "reverse_loops",
    "reversed_while",
    "slots_for",
    "worth_reversing",
]

SLOTS = 32  # the checkpoints of a reverse sweep: states stored per carry (static)
# Loops of at most this many trips where the function is made are reversed by
# recomputation from the first state (S = 1): a scan storing checkpoints and a reverse scan
# over segments cost more than their saved steps there (benchmarks/while_hessian.py,
# RESULTS.md session 34: a 13-trip damped Newton's JAX call 0.69 ms recomputed, 1.80 ms
# checkpointed)
RECOMPUTE_MOST = 16


def _inexact(v: Any) -> bool:
    return bool(np.issubdtype(v.aval.dtype, np.inexact))


def reverse_loops(
    jax: Any, f: Callable[..., Any], args: list[Any], tangents: int
) -> Callable | None:
    """``f`` with each top-level ``while_loop`` the inputs reach (one in a ``jax.jit`` too)
    run by :func:`reversed_while` (its reverse sweep JAX's reverse mode takes); None where
    ``f`` has none. Each loop is run once at ``args`` to count its trips n, and reversed
    where its recomputation's :func:`extra_steps` are at most the n·``tangents`` that
    JAX's forward mode carries through it (``tangents``: the entries of the
    differentiated arguments), :func:`worth_reversing`; a long loop over few unknowns
    (a bisection of 42 trips in 1) keeps the forward mode."""
    closed = jax.make_jaxpr(f)(*args)
    trips: dict[int, int] = {}
    counting = _rules(jax, closed.jaxpr, set(closed.jaxpr.invars), lambda e: True, trips)
    if not counting:
        return None
    leaves = jax.tree_util.tree_leaves(args)  # only what the loops read: nothing after them
    evaluate_with(jax, closed, leaves, counting, only=feeding(closed.jaxpr, set(counting)))
    keep = lambda e: _slots(trips.get(id(e), 0), tangents)  # noqa: E731
    rules = _rules(jax, closed.jaxpr, set(closed.jaxpr.invars), keep)
    if not rules:
        return None
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))

    def run(*values: Any) -> Any:
        out = evaluate_with(jax, closed, jax.tree_util.tree_leaves(values), rules)
        return jax.tree_util.tree_unflatten(tree, out)

    return run


def has_while(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` has a ``while`` equation at its top level or in a call there
    (what :func:`reverse_loops` and :func:`~.jaxpr_static_while.static_trip_loops` look
    at): where it has none, neither need trace ``f`` again."""
    for e in jaxpr.eqns:
        if e.primitive.name == "while":
            return True
        inner = e.params.get("jaxpr") or e.params.get("call_jaxpr")
        if (
            e.primitive.name in CALLS
            and inner is not None
            and has_while(inner.jaxpr if hasattr(inner, "jaxpr") else inner)
        ):
            return True
    return False


def worth_reversing(trips: int, tangents: int) -> bool:
    """Whether a loop of ``trips`` at the point is reversed by checkpointed recomputation
    (:func:`extra_steps` under :func:`slots_for` checkpoints, body steps beyond the
    forward sweep and the reverse's own) rather than carrying ``tangents`` tangents
    forward through its ``trips`` steps.

    >>> worth_reversing(13, 12), worth_reversing(33, 2), worth_reversing(42, 1)
    (True, True, False)
    """
    return extra_steps(trips, slots_for(trips)) <= trips * tangents


def slots_for(trips: int) -> int:
    """The checkpoints S of the reverse sweep of a loop of ``trips`` at the point: one
    (each state recomputed from the first, one ``while_loop``) up to
    :data:`RECOMPUTE_MOST` trips, else as many as its trips (every state stored there: a
    sweep of fixed length S runs even where a call's loop stops sooner), at most
    :data:`SLOTS`. A call of more trips spaces them further apart.

    >>> slots_for(0), slots_for(5), slots_for(17), slots_for(100)
    (1, 1, 17, 32)
    """
    return 1 if trips <= RECOMPUTE_MOST else min(SLOTS, trips)


def _slots(trips: int, tangents: int) -> int:
    """The checkpoints of the reverse sweep of a loop of ``trips`` at the point, 0 where
    it keeps the forward mode (:func:`worth_reversing`)."""
    return slots_for(trips) if worth_reversing(trips, tangents) else 0


def extra_steps(trips: int, slots: int = SLOTS) -> int:
    """The body steps the reverse sweep of a loop of ``trips`` runs beyond the forward
    sweep's ``trips`` and its own ``trips`` pullbacks: the checkpoint sweep's (c − 1)·d
    (d = max(⌈trips/slots⌉, 1), c = ⌈trips/d⌉ checkpoints) and, per step, its state's
    offset from its checkpoint, Σ_k (k mod d) ≤ trips·(d − 1)/2: at most trips −
    1 + trips²/(2·slots), against trips(trips − 1)/2 recomputing from the first state.

    >>> extra_steps(5), extra_steps(32), extra_steps(33), extra_steps(1000)
    (4, 31, 48, 16396)
    """
    if trips <= 0:
        return 0
    d = max(-(-trips // slots), 1)
    count = -(-trips // d)
    tail = trips - (count - 1) * d
    return (count - 1) * d + (count - 1) * d * (d - 1) // 2 + tail * (tail - 1) // 2


CALLS = frozenset({"pjit", "jit", "closed_call", "core_call"})  # looked into, inlined


def _rules(
    jax: Any,
    jaxpr: Any,
    live: set[Any],
    keep: Callable[[Any], int],
    trips: dict[int, int] | None = None,
) -> dict[int, Callable]:
    """Per equation of ``jaxpr`` to rewrite, its rule (:func:`evaluate_with`): a
    ``while`` that ``live`` (the variables the inputs reach) reaches, that carries floats
    and that ``keep`` takes (its checkpoints, 0: kept), by :func:`reversed_while` under
    that many checkpoints (with ``trips``: run to its end,
    its trip count kept in ``trips`` by the equation's id); a call (``jax.jit``) holding
    one, its jaxpr inlined and evaluated with its own rules."""
    live, rules = set(live), {}
    for k, e in enumerate(jaxpr.eqns):
        reached = [not is_literal(v) and v in live for v in e.invars]
        if e.primitive.name == "while" and any(reached) and any(map(_inexact, e.outvars)):
            if trips is not None:
                rules[k] = lambda e, ins: _counted(jax, e, ins, trips)
            elif slots := keep(e):
                rules[k] = _reversing(jax, slots)
        elif e.primitive.name in CALLS and any(reached):
            inner = e.params.get("jaxpr") or e.params.get("call_jaxpr")
            closed = inner if hasattr(inner, "consts") else SimpleNamespace(jaxpr=inner, consts=[])
            inner_live = {v for v, r in zip(closed.jaxpr.invars, reached, strict=True) if r}
            found = _rules(jax, closed.jaxpr, inner_live, keep, trips)
            if found:
                rules[k] = lambda e, ins, c=closed, r=found: evaluate_with(jax, c, ins, r)
        if any(reached):
            live.update(e.outvars)
    return rules


def _reversing(jax: Any, slots: int) -> Callable:
    return lambda e, ins: reversed_while(jax, e, ins, slots)


def _counted(jax: Any, e: Any, ins: list[Any], trips: dict[int, int]) -> list[Any]:
    """The ``while`` equation ``e`` at ``ins``, run (compiled) with a counter beside its
    carries; its trip count kept in ``trips[id(e)]``."""
    carry, n = counted_while(jax, e, ins)
    trips[id(e)] = int(n)
    return list(carry)


def _spacing(jax: Any, n: Any, slots: int) -> tuple[Any, Any]:
    """The checkpoints' spacing d = max(⌈n/S⌉, 1) for a trip count ``n`` (S = ``slots``)
    and the steps they hold, 0, d, …, (S − 1)·d (a float ceiling)."""
    jnp = jax.numpy
    spacing = jnp.maximum(jnp.ceil(n / slots).astype(jnp.result_type(n)), 1)
    return spacing, jnp.arange(slots) * spacing


def reversed_while(jax: Any, e: Any, ins: list[Any], slots: int = SLOTS) -> list[Any]:
    """The ``while`` equation ``e`` at its operands ``ins``, as a ``jax.custom_vjp``: the
    loop forward, counting its trips; its pullback the reverse loop of that many steps
    (module docstring), its states recomputed from ``slots`` checkpoints (S, static). The
    floating body constants and initial carries are
    differentiated; integer and boolean ones (a counter), and the condition's constants
    (no derivative flows through the condition), are not."""
    lax = jax.lax
    p = e.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    bvars, cvars = e.invars[cn : cn + bn], e.invars[cn + bn :]
    fb = [k for k, v in enumerate(bvars) if _inexact(v)]  # differentiated body constants
    fc = [k for k, v in enumerate(cvars) if _inexact(v)]  # differentiated carries
    fixed = (list(ins[:cn]), list(ins[cn : cn + bn]), list(ins[cn + bn :]))

    def merge(values: list[Any], floats: list[Any], where: list[int]) -> list[Any]:
        out = list(values)
        for k, v in zip(where, floats, strict=True):
            out[k] = v
        return out

    def step(consts: list[Any], state: list[Any]) -> list[Any]:
        return jax.core.eval_jaxpr(body.jaxpr, body.consts, *consts, *state)

    def counted(cc: list[Any], consts: list[Any], state: list[Any]) -> tuple[list[Any], Any]:
        def more(s: tuple) -> Any:
            return jax.core.eval_jaxpr(cond.jaxpr, cond.consts, *cc, *s[0])[0]

        return lax.while_loop(more, lambda s: (step(consts, s[0]), s[1] + 1), (state, 0))

    def after(consts: list[Any], state: list[Any], k: Any) -> list[Any]:
        """The state after ``k`` body steps from ``state`` (a run-time count)."""
        return lax.while_loop(
            lambda s: s[1] < k, lambda s: (step(consts, s[0]), s[1] + 1), (state, 0)
        )[0]

    # the operands not differentiated are arguments too: a custom_vjp closes over no tracer
    @jax.custom_vjp
    def loop(b: list[Any], c: list[Any], rest: tuple) -> list[Any]:
        cc, bc, carry = rest
        return counted(cc, merge(bc, b, fb), merge(carry, c, fc))[0]

    def forward(b: list[Any], c: list[Any], rest: tuple) -> tuple[list[Any], tuple]:
        cc, bc, carry = rest
        out, n = counted(cc, merge(bc, b, fb), merge(carry, c, fc))
        return out, (b, c, rest, n)

    def backward(residuals: tuple, g: list[Any]) -> tuple:
        b, c, (_, bc, carry), n = residuals
        consts, state = merge(bc, b, fb), merge(carry, c, fc)

        def segment(s: tuple, xs: tuple) -> tuple:
            """One segment's steps back, each state recomputed from its checkpoint."""
            start, length = xs

            def back(s: tuple) -> tuple:
                k, gc, gb = s
                k = k - 1
                at = after(consts, start, k)  # x of the segment's step k

                def floats(b_: list[Any], c_: list[Any]) -> list[Any]:
                    new = step(merge(consts, b_, fb), merge(at, c_, fc))
                    return [new[j] for j in fc]

                _, pullback = jax.vjp(floats, b, [at[j] for j in fc])
                db, dc = pullback(gc)
                return k, dc, [u + w for u, w in zip(gb, db, strict=True)]

            return lax.while_loop(lambda s: s[0] > 0, back, (length, *s))[1:], None

        g_c = [g[j] for j in fc]
        zeros = [jax.numpy.zeros_like(v) for v in b]
        if slots == 1:  # one segment from the first state: no checkpoints stored
            gc, gb = segment((g_c, zeros), (state, n))[0]
            return gb, gc, None
        spacing, marks = _spacing(jax, n, slots)
        stored = checkpoints(consts, state, n, spacing, marks)
        lengths = jax.numpy.clip(n - marks, 0, spacing)  # each segment's steps (0: unused)
        gc, gb = lax.scan(segment, (g_c, zeros), (stored, lengths), reverse=True)[0]
        return gb, gc, None

    def checkpoints(
        consts: list[Any], state: list[Any], n: Any, spacing: Any, marks: Any
    ) -> list[Any]:
        """The states x_0, x_d, x_2d, … (d = ``spacing``, the steps ``marks``) below the
        trip count ``n``, as the outputs of a ``scan`` of ``slots`` steps (a buffer of
        that many states per carry; slots past the last checkpoint repeat it): (⌈n/d⌉ −
        1)·d ≤ n − 1 body steps. A scan's outputs, not writes into a buffer in a
        ``while_loop``: the reader takes a loop's writes at a run-time index only in a
        ``scan``."""

        def store(at: list[Any], mark: Any) -> tuple[list[Any], list[Any]]:
            return after(consts, at, jax.numpy.where(mark + spacing < n, spacing, 0)), at

        return lax.scan(store, list(state), marks)[1]

    loop.defvjp(forward, backward)
    _, bc, carry = fixed
    return loop([bc[k] for k in fb], [carry[k] for k in fc], fixed)
