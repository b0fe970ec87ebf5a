"""Sums that a Python loop unrolled, run as maps before JAX differentiates: a finite
element energy written ``for t in tets: e = e + w(x[t])`` is ``jax.vmap`` of one
element's equations over the elements and one sum.

A Python loop leaves no loop in the jaxpr: each pass appends its equations again, so a
loop over 800 elements is 800 copies of one element's program, and JAX's gradient of it
800 copies of that program's adjoint. Read at the array level each copy is a handful of
small vertices, and the Hessian's build, search, check and code take a step per vertex.
As :mod:`.jaxpr_reductions` reads a ``fori_loop`` that adds up terms as a map, this reads
a *chain of sums* (``add`` equations of one shape, each read once, by the next) whose
terms are the same program (the same primitives, parameters, shapes and reads, only
constants differing: an element's index array, its rest shape's inverse, its volume) as
that program batched over the terms (the constants that differ stacked, the ones that do
not shared) and summed: the SLP vectorization of compilers (Larsen and Amarasinghe,
*Exploiting superword level parallelism with multimedia instruction sets*, PLDI 2000),
with JAX's batching rules doing the batching.

A term's program is the equations only it reads (its *cone*); what several terms read
(the reshaped input) is computed once, outside, as written. Terms whose programs differ
stay as they are, and so do groups of fewer than :data:`FEWEST` alike. The sum is taken
in another order than the loop's: values differ by rounding. The batched function is
kept only where its values are the function's as written, at the point and at a nearby
random one (:func:`_same`, to 1e-12 of the largest); the Hessian's reference is then JAX's
derivative of the batched function (of the loop as written it costs a JAX trace per
element: about 70 % of the build at 200 tetrahedra, benchmarks/RESULTS.md, mesh59).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from .jaxpr_arrays import run_eagerly
from .jaxpr_compat import bind_equation, is_literal

__all__ = ["FEWEST", "unrolled_sums"]

FEWEST = 4  # fewest alike terms batched: below it the unrolled program is small anyway

_SUMS = frozenset({"add", "add_any"})


def unrolled_sums(
    jax: Any, f: Callable[..., Any], args: list[Any], closed: Any = None
) -> Callable | None:
    """``f`` with each chain of sums of alike terms at the top level of its jaxpr run as
    a batched map and a sum; None where there is none. ``closed``: ``f``'s jaxpr at
    ``args``, where the caller traced it already."""
    closed = jax.make_jaxpr(f)(*args) if closed is None else closed
    plan = _plan(closed.jaxpr)
    if plan is None:
        return None
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))

    def mapped(*values: Any) -> Any:
        flat = jax.tree_util.tree_leaves(values)
        return jax.tree_util.tree_unflatten(tree, _run(jax, closed, flat, plan))

    try:  # a primitive JAX cannot batch (none known): the function as written
        batched = jax.make_jaxpr(mapped)(*args)
        same = all(_same(closed, batched, at) for at in (args, _nearby(args)))
    except Exception:
        return None
    return mapped if same else None


def _nearby(args: list[Any]) -> list[Any]:
    """``args`` moved by a few thousandths of their size, at random (seed 0): a second
    point to compare at, near enough to stay where the function is defined."""
    rng = np.random.default_rng(0)
    out = []
    for a in args:
        a = np.asarray(a)
        if a.dtype.kind != "f":
            out.append(a)
            continue
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1.0)
        out.append(a + 2e-3 * scale * rng.uniform(-1.0, 1.0, a.shape))
    return out


def _same(closed: Any, batched: Any, at: list[Any]) -> bool:
    """Whether the jaxpr ``batched`` gives ``closed``'s values at ``at`` (run equation
    by equation, NumPy's where it can: :func:`~.jaxpr_arrays.run_eagerly`), to the
    rounding another order of summation makes (1e-12 of the largest value; NaN where
    NaN)."""
    want = run_eagerly(closed.jaxpr, closed.consts, at)
    got = run_eagerly(batched.jaxpr, batched.consts, at)
    for w, g in zip(want, got, strict=True):
        w, g = np.asarray(w, float), np.asarray(g, float)
        scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
        if w.shape != g.shape or not np.allclose(
            g, w, rtol=1e-12, atol=1e-12 * scale, equal_nan=True
        ):
            return False
    return True


class _Plan:
    """Which equations a batched sum replaces: ``skipped`` (the chains' sums and the
    batched terms' cones, by position), and per chain's last sum (its position) the
    chain's leaves left as they are and its groups of alike terms (each a list of
    cones, a cone the positions of its equations in order)."""

    def __init__(self, constants: set[Any]) -> None:
        self.constants = constants  # the jaxpr's constvars: values known, compared by value
        self.skipped: set[int] = set()
        self.chains: dict[int, tuple[list[Any], list[list[list[int]]]]] = {}


def _plan(jaxpr: Any) -> _Plan | None:
    """The chains of sums of ``jaxpr`` with groups of at least :data:`FEWEST` alike
    terms; None where none has one."""
    eqns = jaxpr.eqns
    producer: dict[Any, int] = {}
    users: dict[Any, list[int]] = {}
    for k, eqn in enumerate(eqns):
        for v in eqn.invars:
            if not is_literal(v):
                users.setdefault(v, []).append(k)
        for v in eqn.outvars:
            producer[v] = k
    returned = {v for v in jaxpr.outvars if not is_literal(v)}

    def chained(v: Any, aval: Any) -> int | None:
        """The sum producing ``v`` when it continues a chain: of ``aval``, read once."""
        k = producer.get(v) if not is_literal(v) else None
        if k is None or eqns[k].primitive.name not in _SUMS or v in returned:
            return None
        return k if len(users.get(v, ())) == 1 and eqns[k].outvars[0].aval == aval else None

    depth: dict[int, int] = {}  # the longest run of chained sums down from a sum
    for k, eqn in enumerate(eqns):
        if eqn.primitive.name in _SUMS:
            below = [chained(v, eqn.outvars[0].aval) for v in eqn.invars]
            depth[k] = 1 + max((depth[j] for j in below if j is not None), default=0)
    plan = _Plan(set(jaxpr.constvars))
    done: set[int] = set()
    for root in sorted(depth, reverse=True):
        if root in done or root in plan.skipped:  # a chain inside a batched term: as it is
            continue
        spine, leaves = _spine(eqns, root, chained, depth)
        done.update(spine)
        groups = _groups(eqns, leaves, users, producer, returned, set(spine), plan.constants)
        if groups:
            batched = {id(c) for g in groups for c in g}
            cones = {id(c): c for g in groups for c in g}
            kept = [v for v, cone in leaves if cone is None or id(cone) not in batched]
            plan.skipped.update(k for c in cones.values() for k in c)
            plan.skipped.update(spine)
            plan.chains[root] = (kept, groups)
    return plan if plan.chains else None


def _spine(
    eqns: list[Any], root: int, chained: Callable[..., int | None], depth: dict[int, int]
) -> tuple[list[int], list[tuple[Any, Any]]]:
    """The sums of the chain ending at ``root`` (positions) and its leaves (each with no
    cone yet): at each sum the operand continuing the longer run of sums is the running
    total (a loop's ``e = e + w``), the other a term, itself a sum or not."""
    spine, leaves, k = [], [], root
    while k is not None:
        spine.append(k)
        eqn = eqns[k]
        below = [chained(v, eqn.outvars[0].aval) for v in eqn.invars]
        runs = [depth[j] if j is not None else 0 for j in below]
        nxt = int(np.argmax(runs)) if len(eqn.invars) == 2 and max(runs) > 0 else None
        for i, v in enumerate(eqn.invars):
            if i != nxt:
                leaves.append((v, None))
        k = below[nxt] if nxt is not None else None
    leaves.reverse()
    return spine, leaves


def _groups(
    eqns: list[Any],
    leaves: list[tuple[Any, Any]],
    users: dict[Any, list[int]],
    producer: dict[Any, int],
    returned: set[Any],
    spine: set[int],
    constants: set[Any],
) -> list[list[list[int]]]:
    """The leaves' cones grouped by program; groups of at least :data:`FEWEST`. Sets
    each leaf's cone in ``leaves`` (a list of positions, or None: a literal, an input)."""
    owner: dict[int, int] = {}  # an equation's term, where it is read by that term alone
    for t, (v, _) in enumerate(leaves):
        k = producer.get(v) if not is_literal(v) else None
        if k is not None and k not in spine and v not in returned and len(users[v]) == 1:
            owner[k] = t
    for k in range(max(owner, default=-1), -1, -1):
        if k in owner or k in spine:
            continue
        outs = eqns[k].outvars
        if any(v in returned for v in outs):
            continue
        readers = {owner.get(j, -1) for v in outs for j in users.get(v, ())}
        if len(readers) == 1 and -1 not in readers:
            owner[k] = readers.pop()
    cones: dict[int, list[int]] = {}
    for k in sorted(owner):
        cones.setdefault(owner[k], []).append(k)
    by_program: dict[Hashable, list[list[int]]] = {}
    keys: dict[int, Hashable] = {}  # parameters' keys by id (a jaxpr's text made once)
    for t, (v, _) in enumerate(leaves):
        cone = cones.get(t)
        if cone is None or producer[v] != cone[-1]:
            continue
        leaves[t] = (v, cone)
        key = _program(eqns, cone, keys, constants)
        if key is not None:
            by_program.setdefault(key, []).append(cone)
    return [g for g in by_program.values() if len(g) >= FEWEST]


def _program(
    eqns: list[Any], cone: list[int], keys: dict[int, Hashable], constants: set[Any]
) -> Hashable | None:
    """What makes two cones the same program: each equation's primitive, parameters and
    result types, and each operand as an earlier result of the cone, a variable read
    from outside (the same one), or a constant (its type only). None where a parameter
    cannot be compared."""
    local = {v: (i, j) for i, k in enumerate(cone) for j, v in enumerate(eqns[k].outvars)}
    parts: list[Hashable] = []
    for k in cone:
        eqn = eqns[k]
        try:
            given = _moved_slice(eqn) or eqn.params
            params = tuple((n, _param(p, keys)) for n, p in sorted(given.items()))
            hash(params)
        except TypeError:
            return None
        reads: list[Hashable] = []
        for v in eqn.invars:
            if is_literal(v) or v in constants:
                reads.append(("c", str(v.aval)))
            elif v in local:
                reads.append(("l", *local[v]))
            else:
                reads.append(("o", id(v)))
        outs = tuple(str(v.aval) for v in eqn.outvars)
        parts.append((eqn.primitive.name, params, tuple(reads), outs))
    return tuple(parts)


def _moved_slice(eqn: Any) -> dict[str, Any] | None:
    """A unit-stride ``slice``'s parameters less where it starts (``x[i]`` at an integer
    ``i`` of the loop): slices of one size at other places are alike, batched as a
    ``dynamic_slice`` at each term's start. None for any other equation."""
    if eqn.primitive.name != "slice" or any(n != 1 for n in eqn.params["strides"] or ()):
        return None
    starts, ends = eqn.params["start_indices"], eqn.params["limit_indices"]
    return {"sizes": tuple(b - a for a, b in zip(starts, ends, strict=True))}


def _param(p: Any, keys: dict[int, Hashable]) -> Hashable:
    """A parameter as a comparable key (a jaxpr by its text)."""
    if hasattr(p, "eqns") or hasattr(getattr(p, "jaxpr", None), "eqns"):
        if id(p) not in keys:
            keys[id(p)] = ("jaxpr", str(p))
        return keys[id(p)]
    if isinstance(p, (tuple, list)):
        return tuple(_param(q, keys) for q in p)
    hash(p)
    return p


def _run(jax: Any, closed: Any, values: list[Any], plan: _Plan) -> list[Any]:
    """``closed``'s outputs at ``values``, each planned chain's groups batched."""
    jaxpr = closed.jaxpr
    env = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    env.update(zip(jaxpr.invars, values, strict=True))

    def get(v: Any) -> Any:
        return v.val if is_literal(v) else env[v]

    for k, eqn in enumerate(jaxpr.eqns):
        if k in plan.chains:
            kept, groups = plan.chains[k]
            total = None
            for v in kept:
                total = get(v) if total is None else total + get(v)
            for group in groups:
                part = _batched(jax, jaxpr.eqns, group, get, plan.constants)
                total = part if total is None else total + part
            env[eqn.outvars[0]] = total
        elif k not in plan.skipped:
            env.update(
                zip(eqn.outvars, bind_equation(eqn, [get(v) for v in eqn.invars]), strict=True)
            )
    return [get(v) for v in jaxpr.outvars]


def _batched(
    jax: Any, eqns: list[Any], group: list[list[int]], get: Callable, constants: set[Any]
) -> Any:
    """The sum of a group's terms: the first cone's equations run under ``jax.vmap``
    over the constants that differ between the cones (stacked), the others as they are."""
    first = group[0]
    inside = {v for k in first for v in eqns[k].outvars}
    slots = [(i, j) for i, k in enumerate(first) for j, v in enumerate(eqns[k].invars)
             if is_literal(v) or v not in inside]  # fmt: skip
    stacked, shared = [], {}
    for i, j in slots:
        found = [get(eqns[cone[i]].invars[j]) for cone in group]
        v = eqns[first[i]].invars[j]
        if is_literal(v) or v in constants:
            same = all(np.array_equal(np.asarray(found[0]), np.asarray(x)) for x in found[1:])
            if not same:
                stacked.append(((i, j), np.stack([np.asarray(x) for x in found])))
                continue
        shared[(i, j)] = found[0]
    for i, k in enumerate(first):  # slices at other places: their starts stacked
        if _moved_slice(eqns[k]) is not None:
            starts = np.array([eqns[cone[i]].params["start_indices"] for cone in group])
            if (starts != starts[0]).any():
                stacked.append(((i, "start"), starts))
    where = [s for s, _ in stacked]

    def one(*columns: Any) -> Any:
        env = dict(zip(where, columns, strict=True))
        local: dict[Any, Any] = {}
        for i, k in enumerate(first):
            eqn = eqns[k]
            ins = [
                env[(i, j)] if (i, j) in env else shared[(i, j)] if (i, j) in shared else local[v]
                for j, v in enumerate(eqn.invars)
            ]
            if (i, "start") in env:
                sizes = eqn.outvars[0].aval.shape
                out = [jax.lax.dynamic_slice(ins[0], list(env[(i, "start")]), sizes)]
            else:
                out = bind_equation(eqn, ins)
            local.update(zip(eqn.outvars, out, strict=True))
        return local[eqns[first[-1]].outvars[0]]

    if not stacked:  # the terms are one value
        return len(group) * one()
    terms = jax.vmap(one)(*(x for _, x in stacked))
    return jax.numpy.sum(terms, axis=0)
