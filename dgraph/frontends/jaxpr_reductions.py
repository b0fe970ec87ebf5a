"""``scan``s whose carries only sum what each step computes, run as maps: a ``fori_loop``
that adds up terms (``lambda i, a: a + h(x, i)``) is ``a₀ + Σₜ h(x, t)``, ``jax.vmap`` of
its body over the steps and one sum.

A loop's graph is a region whose patterns and values are swept step by step
(:mod:`dgraph.core.regions`): its build and its generated code take a Python step per
iteration. Where no step reads what an earlier one computed, the steps are independent
(a *reduction*: the parallel loop of a map followed by a sum); JAX batches the body
itself (``jax.vmap``), and the program is a handful of array operations whatever the trip
count. JAX's gradient of it is a map too (a loop's gradient would be a reverse loop), so
the Hessian's graph has no loop at all.

A carry is read as

* *the same*: the body returns it unchanged (a loop constant);
* *a counter*: an integer carry the body returns as ``c + k`` with ``k`` a literal (the
  ``fori_loop`` index): ``c₀ + t·k`` at step ``t``;
* *a sum*: a floating carry the body returns as ``c ± u₁ ± u₂ …`` (``convert_element_type``
  to its own dtype allowed between), nothing else reading ``c`` or the partial sums, and
  no ``uᵢ`` reading a sum carry;
* *a write*: a carry the body returns as ``c.at[index].add(u)`` or ``.set(u)`` (one
  ``scatter`` of operand ``c``, nothing else reading ``c``; index and update reading no
  sum or write) in a forward scan: every step's index and update stacked are one scatter
  into the initial value. A ``.set`` only where no two steps write one position (its
  positions read counters alone: computed once, the same at every point), since a
  scatter's order among repeated positions is its implementation's.

A loop is a reduction where every carry is one of these and no stacked output (``ys``)
reads a sum carry. Run with the sum carries at zero, the body returns each sum's term of
the step (``0 ± u₁ ± u₂`` is the term, exactly); the loop's result is the initial value
plus the terms' sum over the steps (summed in another order than the loop's: values
differ by rounding). Loops at the top level of ``f``'s jaxpr, and those a map brings
there (a loop in a mapped body, batched by ``jax.vmap``), of at most :data:`MAP_LIMIT`
entries over all steps (the batched body holds every step's values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .jaxpr_compat import is_literal, scan_layout
from .jaxpr_exact import exact_program
from .jaxpr_hoist import varying_vars
from .jaxpr_static_while import evaluate_with

__all__ = ["MAP_LIMIT", "NESTING", "Reduction", "reduction", "reduction_loops"]

NESTING = 4  # most rounds of maps: loops nested that deep inside sums
MAP_LIMIT = 100_000_000  # most entries a batched body's equations hold over all steps (0.8 GB)


@dataclass(frozen=True)
class Reduction:
    """How a scan's carries are read: ``kinds[k]`` is ``"same"``, ``"sum"``, ``"write"``
    or the counter's step (an int); ``writes[k]`` the position in the body of a written
    carry's scatter."""

    kinds: tuple[str | int, ...]
    writes: tuple[tuple[int, int], ...] = ()


def _uses(jaxpr: Any) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    for v in [v for e in jaxpr.eqns for v in e.invars] + list(jaxpr.outvars):
        if not is_literal(v):
            counts[v] = counts.get(v, 0) + 1
    return counts


def _counter_step(c: Any, out: Any, producer: dict[Any, Any]) -> int | None:
    """``k`` where ``out`` is ``c + k`` (``k`` an integer literal) and ``c`` an integer."""
    e = producer.get(out)
    if e is None or e.primitive.name != "add" or not np.issubdtype(c.aval.dtype, np.integer):
        return None
    a, b = e.invars
    other = b if a is c else a if b is c else None
    if other is None or not is_literal(other) or np.ndim(other.val) != 0:
        return None
    return int(other.val)


def _sum_chain(
    c: Any, out: Any, producer: dict[Any, Any], uses: dict[Any, int]
) -> list[Any] | None:
    """The terms' operands of ``out = c ± u₁ ± …`` (None where ``out`` is not that): each
    partial sum read once, by the next addition."""
    terms, v = [], out
    while v is not c:
        e = producer.get(v)
        if e is None or (v is not out and uses.get(v, 0) != 1):
            return None
        name = e.primitive.name
        if name == "convert_element_type" and e.params["new_dtype"] == c.aval.dtype:
            v = e.invars[0]
            continue
        if name not in ("add", "sub", "add_any") or e.outvars[0].aval.shape != c.aval.shape:
            return None
        a, b = e.invars
        if name != "sub" and not _reaches(a, c, producer):
            a, b = b, a  # the carry on the right of an addition
        if not _reaches(a, c, producer) or _reaches(b, c, producer):
            return None
        terms.append(b)
        v = a
    return terms if uses.get(c, 0) == 1 else None


def _reaches(v: Any, c: Any, producer: dict[Any, Any]) -> bool:
    """Whether ``v`` is computed from ``c``."""
    todo, seen = [v], set()
    while todo:
        u = todo.pop()
        if u is c:
            return True
        if is_literal(u) or u in seen or u not in producer:
            continue
        seen.add(u)
        todo.extend(producer[u].invars)
    return False


def reduction(eqn: Any) -> Reduction | None:
    """How ``eqn`` (a ``scan``) is a reduction (module docstring), or None."""
    params = eqn.params
    closed, nc, nk = scan_layout(params)
    body = closed.jaxpr
    carries, outs = body.invars[nc : nc + nk], body.outvars
    producer = {v: e for e in body.eqns for v in e.outvars}
    uses = _uses(body)
    kinds: list[str | int] = []
    terms: list[Any] = []
    writes: list[tuple[int, int]] = []
    for c, out in zip(carries, outs[:nk], strict=True):
        if out is c:
            kinds.append("same")
            continue
        step = _counter_step(c, out, producer)
        if step is not None:
            kinds.append(step)
            continue
        chain = None
        if np.issubdtype(c.aval.dtype, np.floating):
            chain = _sum_chain(c, out, producer, uses)
        written = chain is None and not params["reverse"] and _write(c, out, producer, uses)
        if chain is None and not written:
            return None
        kinds.append("sum" if chain is not None else "write")
        if written:
            writes.append((len(kinds) - 1, body.eqns.index(producer[out])))
            terms += producer[out].invars[1:]
        terms += chain or []
    changing = [
        nc <= i < nc + nk and kinds[i - nc] in ("sum", "write") for i in range(len(body.invars))
    ]
    varying = varying_vars(body, nc, nk, [not c for c in changing])
    read = [t for t in terms if not is_literal(t)] + [v for v in outs[nk:] if not is_literal(v)]
    if any(v in varying for v in read):
        return None
    skipped = {at for _, at in writes}  # a write's scatter is not run a step
    entries = sum(
        math.prod(v.aval.shape)
        for at, e in enumerate(body.eqns)
        if at not in skipped
        for v in e.outvars
    )
    if entries * int(params["length"]) > MAP_LIMIT:
        return None
    return Reduction(tuple(kinds), tuple(writes))


def _write(c: Any, out: Any, producer: dict[Any, Any], uses: dict[Any, int]) -> bool:
    """Whether ``out`` is ``c.at[index].set(update)`` or ``.add`` (a ``scatter`` of
    operand ``c``, nothing else reading ``c``, no batching dimensions): each step's
    writes, stacked, are one scatter into the initial value (a ``.set`` only where no
    two steps write one position: :func:`_distinct_positions`)."""
    e = producer.get(out)
    if e is None or e.primitive.name not in ("scatter", "scatter-add") or e.invars[0] is not c:
        return False
    numbers = e.params["dimension_numbers"]
    return not getattr(numbers, "operand_batching_dims", ()) and uses.get(c, 0) == 1


def as_map(jax: Any, eqn: Any, ins: list[Any], plan: Reduction) -> list[Any]:
    """The outputs of the reduction ``eqn`` at ``ins``: its body mapped over the steps by
    ``jax.vmap``, the sum carries' terms summed."""
    closed, nc, nk = scan_layout(eqn.params)
    length, backward = int(eqn.params["length"]), bool(eqn.params["reverse"])
    consts, init, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]
    jnp = jax.numpy

    def step(t: Any, *x: Any) -> list[Any]:
        carries = [
            c
            if k == "same"
            else jnp.zeros_like(c)
            if k in ("sum", "write")
            else c + jnp.asarray(t * k, dtype=c.dtype)  # a counter keeps its dtype
            for c, k in zip(init, plan.kinds, strict=True)
        ]
        operands: list[Any] = []  # each write's index and update: its scatter not run
        rules = {at: _kept(operands) for _, at in plan.writes}
        out = evaluate_with(jax, closed, [*consts, *carries, *x], rules)
        sums = [o for o, k in zip(out[:nk], plan.kinds, strict=True) if k == "sum"]
        return sums + operands + out[nk:]

    steps = jnp.arange(length)  # the step that reads xs[j]: j, or length - 1 - j backward
    mapped = jax.vmap(step)(length - 1 - steps if backward else steps, *xs)
    summed = iter(mapped[: plan.kinds.count("sum")])
    written = iter(mapped[plan.kinds.count("sum") : plan.kinds.count("sum") + 2 * len(plan.writes)])
    scatters = iter(closed.jaxpr.eqns[at] for _, at in plan.writes)
    finals = [
        c
        if k == "same"
        else c + jnp.sum(next(summed), axis=0)
        if k == "sum"
        else _stacked_write(next(scatters), c, next(written), next(written))
        if k == "write"
        else c + length * k
        for c, k in zip(init, plan.kinds, strict=True)
    ]
    return finals + list(mapped[plan.kinds.count("sum") + 2 * len(plan.writes) :])


def _distinct_positions(jax: Any, eqn: Any, plan: Reduction) -> bool:
    """Whether no two steps ``.set`` one position (``.add`` may: its sum is one
    scatter-add of them all, in any order): the positions of every ``scatter`` write
    read only counters that start at a literal, so they are the same at every point and
    are computed here, once. A scatter's order among repeated positions is its
    implementation's (XLA's on a GPU differs), so one that would repeat stays a loop."""
    closed, nc, nk = scan_layout(eqn.params)
    body = closed.jaxpr
    sets = [at for _, at in plan.writes if body.eqns[at].primitive.name == "scatter"]
    if not sets:
        return True
    counters = {k for k, kind in enumerate(plan.kinds) if isinstance(kind, int)}
    init = eqn.invars[nc : nc + nk]
    if any(not is_literal(init[k]) for k in counters):
        return False
    counted = [nc <= i < nc + nk and i - nc in counters for i in range(len(body.invars))]
    varying = varying_vars(body, nc, nk, counted)  # what reads anything but a counter
    if any(body.eqns[at].invars[1] in varying for at in sets):
        return False
    length = int(eqn.params["length"])
    starts = {nc + k: (init[k].val, plan.kinds[k]) for k in counters}
    for index in _set_positions(
        jax, closed, starts, [body.eqns[at].invars[1] for at in sets], length
    ):
        rows = np.asarray(index).reshape(index.shape[0], -1)
        if len(np.unique(rows, axis=0)) != len(rows):
            return False
    return True


STEPS_BY_NUMPY = 10_000
"""The most steps times equations of the sets' positions evaluated by NumPy, a step at a
time (:func:`_set_positions`, some 15-25 µs an equation); beyond, one compiled
``jax.vmap`` over the steps (0.1-0.25 CPU s, its compile). ``out.at[i].set(…)`` in a
``fori_loop`` (5 equations a step), CPU s: 0.001-0.003 at 11 and 12 steps, 0.07-0.12 at
999 (the compiled vmap 0.11-0.26; main's whole body run eagerly under ``jax.vmap``
0.53-0.61 each, a compile per equation and shape)."""


def _set_positions(
    jax: Any, closed: Any, starts: dict[int, tuple[Any, int]], wanted: list[Any], length: int
) -> list[np.ndarray]:
    """The values of ``wanted`` (variables of the scan body ``closed`` computed from its
    counters alone: body input ``i`` is ``start + t·step`` at step ``t``, ``starts[i]``)
    at every step, stacked: only the equations they are computed from, by NumPy
    (:func:`~.jaxpr_exact.exact_program`: index arithmetic is exact, its values JAX's),
    or, where one of them is not NumPy's, by one compiled ``jax.vmap`` over the steps.
    Before, the whole body was evaluated eagerly under ``jax.vmap``: one compile per
    equation (54 in tests/test_reduction_loops.py)."""
    body = closed.jaxpr
    sliced = body.replace(eqns=_needed(body, wanted), outvars=list(wanted))
    kinds = [np.dtype(body.invars[i].aval.dtype) for i in starts]

    def values(t: Any, xp: Any) -> list[Any]:
        found = [xp.zeros(v.aval.shape, v.aval.dtype) for v in body.invars]
        for (i, (start, step)), kind in zip(starts.items(), kinds, strict=True):
            found[i] = xp.asarray(int(start) + t * step).astype(kind)
        return found

    if length * max(1, len(sliced.eqns)) <= STEPS_BY_NUMPY:
        rows = []
        for t in range(length):
            row = exact_program(sliced, closed.consts, values(t, np))
            if row is None:
                break
            rows.append(row)
        else:
            if rows:
                return [np.stack(r) for r in zip(*rows, strict=True)]
            return [np.zeros((0, *v.aval.shape), v.aval.dtype) for v in wanted]

    def positions(t: Any) -> list[Any]:
        return jax.core.eval_jaxpr(sliced, closed.consts, *values(t, jax.numpy))

    with jax.ensure_compile_time_eval():
        stacked = jax.jit(jax.vmap(positions))(jax.numpy.arange(length))
    return [np.asarray(x) for x in stacked]


def _needed(jaxpr: Any, wanted: list[Any]) -> list[Any]:
    """The equations of ``jaxpr`` that ``wanted`` is computed from, in order."""
    todo = {v for v in wanted if not is_literal(v)}
    kept = []
    for e in reversed(jaxpr.eqns):
        if any(v in todo for v in e.outvars):
            kept.append(e)
            todo.update(v for v in e.invars if not is_literal(v))
    return kept[::-1]


def _kept(operands: list[Any]) -> Callable[[Any, list], list]:
    """A scatter's rule in a step: its index and update kept, the operand passed on."""

    def rule(e: Any, ins: list[Any]) -> list[Any]:
        operands.extend(ins[1:3])
        return [ins[0]]

    return rule


def _stacked_write(e: Any, initial: Any, index: Any, update: Any) -> Any:
    """The scatter ``e`` of every step's ``index`` and ``update`` (stacked on a first
    axis) into ``initial``: the same dimension numbers with the update's window axes one
    further (the steps are a batch of scatter indices)."""
    numbers = e.params["dimension_numbers"]
    windows = tuple(d + 1 for d in numbers.update_window_dims)
    params = dict(
        e.params,
        dimension_numbers=numbers._replace(update_window_dims=windows),
        indices_are_sorted=False,
        unique_indices=False,
    )
    bound = e.primitive.get_bind_params(params)  # (subfuns, params) before 0.7
    sub, params = bound if isinstance(bound, tuple) else ((), bound)
    return e.primitive.bind(*sub, initial, index, update, **params)


def reduction_loops(
    jax: Any, f: Callable[..., Any], args: list[Any], closed: Any = None
) -> Callable | None:
    """``f`` with each top-level ``scan`` that is a reduction run as a map
    (:func:`as_map`), and again in the result while it has such scans (a sum over ``j``
    inside a sum over ``i``: the inner loop, batched over ``i`` by the outer map, is at
    the top level then), at most :data:`NESTING` times; None where ``f`` has none.
    ``closed``: ``f``'s jaxpr at ``args`` where the caller has it."""
    found = None
    for _ in range(NESTING):
        mapped = _mapped_once(jax, f if found is None else found, args, closed)
        if mapped is None:
            break
        found, closed = mapped, None
    return found


def _mapped_once(jax: Any, f: Callable[..., Any], args: list[Any], closed: Any) -> Callable | None:
    closed = jax.make_jaxpr(f)(*args) if closed is None else closed
    rules: dict[int, Callable[[Any, list], list]] = {}
    for k, e in enumerate(closed.jaxpr.eqns):
        if e.primitive.name != "scan":
            continue
        plan = reduction(e)
        if plan is not None and _distinct_positions(jax, e, plan):
            rules[k] = _rule(jax, plan)
        elif (inner := _inner_maps(jax, e)) is not None:
            rules[k] = inner
    if not rules:
        return None
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))

    def mapped(*values: Any) -> Any:
        out = evaluate_with(jax, closed, jax.tree_util.tree_leaves(values), rules)
        return jax.tree_util.tree_unflatten(tree, out)

    return mapped


def _rule(jax: Any, plan: Reduction) -> Callable[[Any, list], list]:
    return lambda e, ins: as_map(jax, e, ins, plan)


def _inner_maps(jax: Any, eqn: Any) -> Callable[[Any, list], list] | None:
    """A rule running the ``scan`` ``eqn``, not a reduction itself, with the reductions of
    its body run as maps (:func:`reduction_loops` of the body): a time step's summing
    loop (forces summed over particles) is array operations in each step of the loop that
    stays. None where its body has none. The body's new constants (the maps' step
    numbers) are passed as more loop constants, as a ``scan``'s body has none of its own."""
    params = eqn.params
    if "num_consts" not in params or not any(
        sub.primitive.name == "scan" for sub in params["jaxpr"].jaxpr.eqns
    ):
        return None
    body = params["jaxpr"]
    avals = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in body.jaxpr.invars]
    mapped = reduction_loops(jax, lambda *vals: evaluate_with(jax, body, list(vals), {}), avals)
    if mapped is None:
        return None
    traced = jax.make_jaxpr(mapped)(*avals)
    consts = list(traced.consts)
    shapes = [jax.ShapeDtypeStruct(np.shape(c), c.dtype) for c in consts]
    flat = jax.make_jaxpr(
        lambda *cv: evaluate_with(
            jax, _Closed(traced.jaxpr, cv[: len(consts)]), list(cv[len(consts) :]), {}
        )
    )(*shapes, *avals)
    if flat.consts:
        return None
    new = dict(params, jaxpr=flat, num_consts=int(params["num_consts"]) + len(consts))
    if "linear" in params:
        new["linear"] = (False,) * len(consts) + tuple(params["linear"])
    return lambda e, ins: e.primitive.bind(*consts, *ins, **new)


@dataclass(frozen=True)
class _Closed:
    """A jaxpr with its constants, as :func:`evaluate_with` reads a closed jaxpr."""

    jaxpr: Any
    consts: tuple[Any, ...]
