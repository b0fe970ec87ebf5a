"""``while_loop``s whose trip count no input reaches, as ``scan``s, so that JAX's reverse
mode (which refuses a ``while_loop``) gives the gradient whose graph the Hessian reads.

A loop's condition reads some carries; where those carries, followed through the body
to what they are computed from, start from constants and read no input (a counter
``i < 8`` stepped by ``i + 1``), the loop runs as many times at every point: it is the
``scan`` of that many steps (JAX's ``fori_loop`` with static bounds is one), its trip
count counted once at the example point. Loops of the top level of ``f``'s jaxpr only;
any other loop is kept (and the Hessian takes JAX's forward mode through it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .jaxpr_compat import is_literal

__all__ = ["counted_while", "evaluate_with", "feeding", "static_trip_loops"]


def _read(jaxpr: Any) -> set[Any]:
    """The variables a jaxpr's equations and outputs read."""
    used = {v for e in jaxpr.eqns for v in e.invars if not is_literal(v)}
    return used | {v for v in jaxpr.outvars if not is_literal(v)}


def _sources(jaxpr: Any) -> list[set[int]]:
    """For each output of ``jaxpr``, the positions of the inputs it is computed from
    (an equation's outputs from all of its inputs)."""
    index = {v: {k} for k, v in enumerate(jaxpr.invars)}
    for e in jaxpr.eqns:
        found = set().union(*(index.get(v, set()) for v in e.invars if not is_literal(v)))
        for v in e.outvars:
            index[v] = found
    return [set() if is_literal(v) else index.get(v, set()) for v in jaxpr.outvars]


def _static(eqn: Any, live: set[Any]) -> bool:
    """Whether the ``while`` equation's trip count is the same whatever ``live`` (the
    variables the inputs reach) holds."""
    p = eqn.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    ops = eqn.invars
    cond, body = p["cond_jaxpr"].jaxpr, p["body_jaxpr"].jaxpr
    read = _read(cond)
    reached = [not is_literal(o) and o in live for o in ops[:cn]]
    if any(v in read and r for v, r in zip(cond.invars[:cn], reached, strict=True)):
        return False
    carries = {k for k, v in enumerate(cond.invars[cn:]) if v in read}
    sources, todo = _sources(body), list(carries)
    while todo:
        for s in sources[todo.pop()]:
            if s < bn:
                if not is_literal(ops[cn + s]) and ops[cn + s] in live:
                    return False
            elif s - bn not in carries:
                carries.add(s - bn)
                todo.append(s - bn)
    init = ops[cn + bn :]
    return not any(not is_literal(init[k]) and init[k] in live for k in carries)


def static_trip_loops(jax: Any, f: Callable[..., Any], args: list[Any]) -> Callable | None:
    """``f`` with each top-level ``while_loop`` of a trip count no input reaches run as the
    ``scan`` of that count (counted at ``args``); None where ``f`` has none."""
    closed = jax.make_jaxpr(f)(*args)
    jaxpr = closed.jaxpr
    live, static = set(jaxpr.invars), set()
    for k, e in enumerate(jaxpr.eqns):
        if e.primitive.name == "while" and _static(e, live):
            static.add(k)
        if any(not is_literal(v) and v in live for v in e.invars):
            live.update(e.outvars)
    if not static:
        return None
    counts: dict[int, int] = {}
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))

    def run(*values: Any, counting: bool) -> Any:
        rules = {k: _counted(jax, counts, k, counting) for k in static}
        out = evaluate_with(jax, closed, jax.tree_util.tree_leaves(values), rules)
        return jax.tree_util.tree_unflatten(tree, out)

    counting = {k: _counted(jax, counts, k, True) for k in static}  # what the loops read
    leaves = jax.tree_util.tree_leaves(args)
    evaluate_with(jax, closed, leaves, counting, only=feeding(jaxpr, static))
    return lambda *a: run(*a, counting=False)


def feeding(jaxpr: Any, ks: set[int]) -> set[int]:
    """The positions of the equations of ``jaxpr`` that the equations ``ks`` read,
    directly or not, and ``ks``: what a run that only needs those equations' inputs
    evaluates (the equations after a loop are skipped: each one run eagerly compiles an
    XLA program the first time its kind and shapes are met)."""
    producer = {v: k for k, e in enumerate(jaxpr.eqns) for v in e.outvars}
    found, todo = set(ks), list(ks)
    while todo:
        for v in jaxpr.eqns[todo.pop()].invars:
            k = None if is_literal(v) else producer.get(v)
            if k is not None and k not in found:
                found.add(k)
                todo.append(k)
    return found


def evaluate_with(
    jax: Any,
    closed: Any,
    values: list[Any],
    rules: dict[int, Callable[[Any, list], Any]],
    only: set[int] | None = None,
) -> list[Any]:
    """The outputs of the closed jaxpr ``closed`` at ``values`` (its flat inputs), its
    ``k``-th equation evaluated by ``rules[k](eqn, operands)`` where given (the others
    bound as they are). ``only``: the equations evaluated, the others skipped (None: all);
    an output no evaluated equation computes is None."""
    jaxpr = closed.jaxpr
    env = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    env.update(zip(jaxpr.invars, values, strict=True))

    def get(v: Any) -> Any:
        return v.val if is_literal(v) else env[v]

    for k, e in enumerate(jaxpr.eqns):
        if only is not None and k not in only:
            continue
        ins = [get(v) for v in e.invars]
        if k in rules:
            out = rules[k](e, ins)
        else:
            bound = e.primitive.get_bind_params(e.params)  # (subfuns, params) before 0.7
            sub, params = bound if isinstance(bound, tuple) else ((), bound)
            out = e.primitive.bind(*sub, *ins, **params)
        out = out if e.primitive.multiple_results else [out]
        env.update(zip(e.outvars, out, strict=True))
    if only is not None:
        return [v.val if is_literal(v) else env.get(v) for v in jaxpr.outvars]
    return [get(v) for v in jaxpr.outvars]


def counted_while(jax: Any, e: Any, ins: list[Any]) -> tuple[list[Any], Any]:
    """The ``while`` equation ``e`` at ``ins``, run (compiled) with a counter beside its
    carries: its final carries and its trip count."""
    p = e.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]

    def counted(cc: list[Any], bc: list[Any], carry: list[Any]) -> Any:
        def more(s: Any) -> Any:
            return jax.core.eval_jaxpr(cond.jaxpr, cond.consts, *cc, *s[0])[0]

        def again(s: Any) -> Any:
            return jax.core.eval_jaxpr(body.jaxpr, body.consts, *bc, *s[0]), s[1] + 1

        return jax.lax.while_loop(more, again, (carry, 0))

    return jax.jit(counted)(list(ins[:cn]), list(ins[cn : cn + bn]), list(ins[cn + bn :]))


def _counted(jax: Any, counts: dict[int, int], k: int, counting: bool) -> Callable:
    return lambda e, ins: _loop(jax, e, ins, counts, k, counting)


def _loop(jax: Any, e: Any, ins: list[Any], counts: dict[int, int], k: int, counting: bool):
    """The ``while`` equation ``e`` (the ``k``-th) at ``ins``: run to its end and its trip
    count kept (``counting``), else the ``scan`` of that count."""
    p = e.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    body = p["body_jaxpr"]
    bc, carry = ins[cn : cn + bn], list(ins[cn + bn :])

    def step(c: list[Any]) -> list[Any]:
        return jax.core.eval_jaxpr(body.jaxpr, body.consts, *bc, *c)

    if counting:  # the loop itself, compiled, with a counter beside its carries
        carry, n = counted_while(jax, e, ins)
        counts[k] = int(n)
        return carry
    out, _ = jax.lax.scan(lambda c, _: (step(c), None), carry, length=counts[k])
    return out
