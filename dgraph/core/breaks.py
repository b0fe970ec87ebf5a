"""Where a program is at a break: an operation whose pieces meet at the point's values,
where the function's slope may jump (a kink) or the function itself may (a jump), and
JAX's rule picks a side (relu's 0, ``max``'s ½, ``floor``'s 0), which JAX's ``jvp`` and a
graph read from it share. The value check (:mod:`dgraph.core.value_check`) asks
:func:`at_a_break` at the user's point and compares the derivative there only where
one-sided differences confirm it.

The breaks: ``|x|`` or ``sign`` of an entry exactly 0; a tie of an ordering comparison
(``lt le gt ge``) or of ``max``/``min``; tied maxima of ``reduce_max``/``reduce_min``
and of ``argmax``/``argmin``; tied keys of ``sort``/``argsort`` along their dimension
(``jnp.sort``, ``argsort``-then-gather, ``top_k``, ``median`` and ``percentile`` are
made of them: at a tie the order flips and the sorted values' slopes swap); ``floor`` and
``ceil`` of a whole number, ``round`` of a half, ``rem`` (``fmod``) of a nonzero multiple
of its divisor (the function jumps). Not ``eq``/``ne``: equal values hold on whole
regions (JAX's max rule compares ``x`` with ``max(x, 0)``). An operation whose operands
are all integers (a loop's counter against its bound), constant between breaks of their
own (comparisons' results: a batched ``while_loop``'s ``any`` of its entries' conditions)
or read none of the inputs (a parameter's integer cast, ``sign(T)·floor(|T|)``) is the
same on both sides of the point: no break.

Loops and branches are walked too (:mod:`dgraph.core.regions`,
:mod:`dgraph.core.branches`): a ``scan``'s or ``while_loop``'s body at each trip, with
the values its operations read at that trip (a relu of a carry that reaches 0 at trip 3),
a ``while_loop``'s condition before each trip and after the last (its trip count jumps
where it ties), and the taken branch of a ``cond``; nested ones within them the same way.
The steps are run again only where a body holds such an operation, and only until a
break is found.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..blocks.array_extra import sort_order
from ..blocks.arrays import REGIONS, ArrayOp, names_read, operand_value
from ..errors import InputError
from .graph import DGraph
from .regions import Region

__all__ = ["NEAR_TIE", "at_a_break"]

NEAR_TIE = 1e-13  # operands this close (relative) are ordered by the evaluation's rounding

_ORDERED = frozenset({"lt", "le", "gt", "ge", "max", "min"})  # a tie is where they break
_AT_ZERO = frozenset({"abs", "sign"})
_EXTREMES = frozenset({"reduce_max", "reduce_min", "argmax", "argmin"})
_ORDERS = frozenset({"sort", "argsort"})  # tied keys along the dimension
_WHOLE = frozenset({"floor", "ceil", "round", "rem"})  # jumps at whole numbers (round's: halves)
_EXACT = _ORDERED | _AT_ZERO | _EXTREMES | _ORDERS | _WHOLE

# results constant between their own breaks (each checked where it is computed)
_STEPWISE = frozenset(
    {"lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not", "is_finite", "floor", "ceil"}
    | {"round", "sign", "argmax", "argmin", "argsort", "searchsorted"}
)

# what a walk visits: (vertex, operation) pairs, their operands' values, whether every
# name there moves with the inputs (a loop body: True), where it is (for the reason), and
# the graph whose vertices the names are (None: a while_loop's condition)
_Visit = tuple[
    list[tuple[str, ArrayOp]], Mapping[str, Any], bool, str, DGraph | None, dict[Any, bool]
]


def at_a_break(
    graph: DGraph, values: Mapping[str, Any], near: bool = False, exact: bool = True
) -> str:
    """Which piecewise operation of ``graph`` (at any depth: a comparison feeding a
    ``select_n``, an operation of a loop's body at one of its trips) is at its break at
    the vertex ``values`` (the module's list); "" where none is.

    ``near``: also (``exact`` False: only) an ordering comparison or ``max``/``min``
    whose operands are not equal but within :data:`NEAR_TIE` of each other, where the
    branch taken is the evaluation's rounding's (NumPy's sum and XLA's may order one
    differently). One walk asks both."""
    names = _EXACT if exact else _ORDERED
    top = [(v, op) for v in graph.intermediates + graph.outputs if (op := graph.op(v)) is not None]
    pending: list[Iterator[_Visit]] = [iter([(top, values, False, "", graph, {})])]
    moving: set[str] | None = None  # the vertices that read the inputs, found where asked
    while pending:
        visit = next(pending[-1], None)
        if visit is None:
            pending.pop()
            continue
        ops, found, inside, where, g, steady = visit
        walked: set[int] = set()  # nested operations share their parts: each once
        stepwise: dict[Any, bool] = dict(steady)
        for v, first in ops:
            stack = [first]
            while stack:
                op = stack.pop()
                if id(op) in walked:
                    continue
                walked.add(id(op))
                stack += [x for x in op.operands if isinstance(x, ArrayOp)]
                if op.primitive in REGIONS:
                    if _holds_breaks(op.param["region"], names):
                        inner = _steady_inputs(op, g, stepwise)
                        pending.append(_region_visits(op, v, found, inner))
                    continue
                if op.primitive not in names:
                    continue
                try:
                    args = [operand_value(x, found) for x in op.operands]
                    tied = exact and _breaks_here(op, args)
                    close = near and not tied and op.primitive in _ORDERED and _nearly_tied(args)
                except (KeyError, ValueError, TypeError, IndexError):  # not read here: no break
                    continue
                if not (tied or close) or all(_stepwise(x, g, stepwise) for x in op.operands):
                    continue
                if not inside:
                    moving = _moving(graph) if moving is None else moving
                    if not names_read([op]) & moving:
                        continue
                how = "is at its break" if tied else "is within rounding of a tie"
                what = "(an entry at a tie or 0)" if tied else ""
                return f"its {op.primitive} ({v}){where} {how} there {what}".rstrip()
    return ""


def _breaks_here(op: ArrayOp, args: list[Any]) -> bool:
    """Whether the piecewise ``op`` (:func:`at_a_break`) is at its break at an entry of
    its operands' values ``args``."""
    args = [np.asarray(a) for a in args]
    if all(a.dtype.kind in "biu" for a in args):  # whole numbers do not move
        return False
    name = op.primitive
    with np.errstate(all="ignore"):
        if name in _AT_ZERO:
            return bool(np.any(args[0] == 0))
        if name in _EXTREMES:
            axes = tuple(op.param.get("axes", ()))
            pick = np.max if name in ("reduce_max", "argmax") else np.min
            top = pick(args[0], axis=axes, keepdims=True)
            return bool(np.any(np.sum(args[0] == top, axis=axes) > 1))
        if name in _ORDERS:
            return _tied_keys(args[:-1] if name == "sort" and len(args) > 1 else args, op)
        if name in ("floor", "ceil"):
            return bool(np.any(np.isfinite(args[0]) & (args[0] == np.floor(args[0]))))
        if name == "round":
            return bool(np.any(np.abs(args[0]) % 1 == 0.5))
        if name == "rem":
            return bool(np.any((np.fmod(args[0], args[1]) == 0) & (args[0] != 0)))
        return len(args) == 2 and bool(np.any(np.equal(args[0], args[1])))


def _tied_keys(keys: list[np.ndarray], op: ArrayOp) -> bool:
    """Whether two entries of a fibre along a sort's dimension have equal keys (every
    key: ``lax.sort``'s order breaks ties by the next key)."""
    d = int(op.param["dimension"])
    order = sort_order(keys, d)
    same = None
    for k in keys:
        ranked = np.take_along_axis(np.asarray(k, dtype=float), order, axis=d)
        equal = np.diff(ranked, axis=d) == 0
        same = equal if same is None else same & equal
    return same is not None and bool(np.any(same))


def _nearly_tied(args: list[Any]) -> bool:
    """Whether two operands ``args`` differ at an entry by more than 0 and at most
    :data:`NEAR_TIE` of their magnitude (:func:`at_a_break`'s ``near``)."""
    if len(args) != 2:
        return False
    a, b = (np.asarray(x, dtype=float) for x in args)
    with np.errstate(all="ignore"):
        gap = np.abs(a - b)
        return bool(np.any((gap > 0) & (gap <= NEAR_TIE * np.maximum(np.abs(a), np.abs(b)))))


def _stepwise(x: Any, graph: DGraph | None, memo: dict[Any, bool]) -> bool:
    """Whether the operand ``x`` is constant between breaks of its own: a constant, a
    comparison's or rounding's result (:data:`_STEPWISE`), or computed from such alone (a
    batched ``while_loop``'s ``any`` of its entries' conditions, ``reduce_max`` of them
    cast to floats, tied wherever two entries still run). A tie of such values moves
    nothing: where one of them jumps, the operation computing it is at its own break."""

    def key(y: Any) -> Any:
        return y if isinstance(y, str) else id(y)

    stack = [x]
    while stack:
        y = stack[-1]
        if key(y) in memo:
            stack.pop()
            continue
        op = y if isinstance(y, ArrayOp) else None
        if isinstance(y, str) and graph is not None and y not in graph.nx:
            memo[y] = True  # a parameter's value: the direction does not move it
            stack.pop()
            continue
        if isinstance(y, str):
            op = None if graph is None else graph.op(y)
            if op is None:  # an input (or a name this walk cannot read): it moves
                memo[y] = False
                stack.pop()
                continue
        if op is None or op.primitive in _STEPWISE:  # a constant, or a step's result
            memo[key(y)] = True
            stack.pop()
            continue
        if op.primitive in REGIONS:
            memo[key(y)] = False
            stack.pop()
            continue
        waiting = [o for o in op.operands if key(o) not in memo]
        if waiting:
            stack += waiting
            continue
        memo[key(y)] = all(memo[key(o)] for o in op.operands)
        stack.pop()
    return memo[key(x)]


def _moving(graph: DGraph) -> set[str]:
    """The inputs and the vertices whose operations read them, through any operand (a
    comparison's too, where no derivative flows); found once per graph."""
    if "moving" not in graph.derived:
        found = set(graph.inputs)
        for v in graph.order():
            op = graph.op(v)
            if op is not None and names_read(op.operands) & found:
                found.add(v)
        graph.derived["moving"] = frozenset(found)
    return graph.derived["moving"]  # type: ignore[return-value]


def _ops_of(graph: DGraph) -> list[tuple[str, ArrayOp]]:
    """A body's (vertex, operation) pairs in program order."""
    return [(v, op) for v in graph.order() if (op := graph.op(v)) is not None]


def _holds_breaks(region: Any, names: frozenset[str]) -> bool:
    """Whether a loop's body (its condition too) or any branch holds an operation of
    ``names`` or a region that does; found once per body graph."""
    bodies = region.branches if hasattr(region, "branches") else [region.body]
    extra = [region.cond] if isinstance(getattr(region, "cond", None), ArrayOp) else []
    key = ("breaks", names)
    for body in bodies:
        if key not in body.graph.derived:
            kinds, holds = set(), False
            stack: list[Any] = [op for _, op in _ops_of(body.graph)]
            while stack:
                op = stack.pop()
                kinds.add(op.primitive)
                stack += [x for x in op.operands if isinstance(x, ArrayOp)]
                if op.primitive in REGIONS:
                    holds = holds or _holds_breaks(op.param["region"], names)
            body.graph.derived[key] = holds or bool(kinds & names)
        if body.graph.derived[key]:
            return True
    stack = list(extra)
    while stack:
        op = stack.pop()
        if op.primitive in names:
            return True
        stack += [x for x in op.operands if isinstance(x, ArrayOp)]
    return False


def _steady_inputs(op: ArrayOp, graph: DGraph | None, memo: dict[Any, bool]) -> dict[str, bool]:
    """The body inputs of the region ``op`` (a loop's, a branch's; a ``while_loop``'s
    condition's) that are constant between breaks of their own (:func:`_stepwise`): an
    input no derivative flows from (an integer in JAX's program: a reverse sweep's count
    of trips left, ``k − 1``, compared with 0 at the last), an operand that is, and a
    loop's carry whose operand is and whose update reads only such inputs, as True by
    name."""
    region = op.param["region"]
    operands = list(op.operands)
    if not isinstance(region, Region):  # a cond: operand 0 is the index
        steady: dict[str, bool] = {}
        for body in region.branches:
            for name, x in zip(body.inputs, operands[1:], strict=False):
                if _stepwise(x, graph, memo):
                    steady[name] = True
        return steady
    body, first = region.body, region.n_cond_consts
    carries = range(region.n_consts, region.n_consts + region.n_carry)
    kept = {  # an input no derivative flows from is an integer of JAX's (a count)
        i
        for i, x in enumerate(operands[first : first + len(body.inputs)])
        if not body.floats[i] or _stepwise(x, graph, memo)
    }
    while True:  # the largest set whose carries' updates read only its own inputs
        inside = {n: i in kept for i, n in enumerate(body.inputs)}
        out = [i for i in kept if i in carries and body.floats[i]]
        dropped = {
            i
            for i in out
            if not _stepwise(body.outputs[i - region.n_consts], body.graph, dict(inside))
        }
        if not dropped:
            break
        kept -= dropped
    steady = {body.inputs[i]: True for i in kept}
    for k, name in enumerate(region.cond_inputs[:first]):
        if _stepwise(operands[k], graph, memo):
            steady[name] = True
    return steady


def _region_visits(
    op: ArrayOp, v: str, values: Mapping[str, Any], steady: dict[str, bool]
) -> Iterator[_Visit]:
    """What :func:`at_a_break` walks of the region ``op`` computes (a loop's or branch's
    output ``v``) at the operand ``values``: the taken branch's operations with its
    values; a loop's body at each trip, with that trip's values, and a ``while_loop``'s
    condition before each trip and after the last, run step by step as they are asked
    for. Nothing where an operand is not read here."""
    region = op.param["region"]
    try:
        args = [np.asarray(operand_value(x, values)) for x in op.operands]
    except (KeyError, ValueError, TypeError, IndexError):
        return
    if not isinstance(region, Region):  # a cond: the branch its index takes
        try:
            run = region._run(args)
        except (InputError, ArithmeticError, ValueError, TypeError, IndexError, KeyError):
            return
        body = region.branches[run["branch"]]
        where = f" in branch {run['branch']} of {v}"
        yield _ops_of(body.graph), run["values"], True, where, body.graph, steady
        return
    body, first = region.body, region.n_cond_consts
    ops = _ops_of(body.graph)
    condition = [("the condition", region.cond)] if isinstance(region.cond, ArrayOp) else []
    steps = region._steps(args)
    carry: list[Any] | None = None
    t = 0
    while True:
        if condition:
            start = args[first + region.n_consts : first + region.n_consts + region.n_carry]
            env = [*args[:first], *(start if carry is None else carry)]
            where = f" of the while_loop of {v} before trip {t}"
            known = dict(zip(region.cond_inputs, env, strict=True))
            yield condition, known, True, where, None, steady
        try:
            _, inputs = next(steps) if carry is None else steps.send(carry)
            found = body.values(inputs)
        except StopIteration:
            return
        except (InputError, ArithmeticError, ValueError, TypeError, IndexError, KeyError):
            return  # steps that do not run here (they ran where the values were found)
        where = f" in the body of the {region.kind} of {v} at trip {t}"
        yield ops, found, True, where, body.graph, steady
        carry = [np.asarray(c) for c in body.results(found)[: region.n_carry]]
        t += 1
