"""Window sums written as differences of a running sum, read as the sums they are.

``cs = cumsum([0, x]); q = cs[i + k + 1] - cs[i]`` (CUTEst's CURLY10/20/30, moving
windows) computes each ``q_i`` as ``x_{i+1} + … + x_{i+k}``. Read as written, its
Jacobian is the difference of two products of a selection with the running sum's
triangle of ones: each a triangle, their sum a triangle whose entries below the window
are ``1 - 1``. A block knows its pattern, not the signs of its values, so that
cancellation is left to the code's pass over the final block, where a Hessian's entry
is a sum of up to n monomials (past what that pass forms) and the pattern is dense; from
n ≈ 10,000 the triangles (n²/2 entries) are refused.

:func:`prefix_differences` rewrites the function before it is read (as
:mod:`.jaxpr_reductions` runs a summing loop as a map): each ``sub`` whose operands
select entries of the same ``cumsum`` (slices, gathers at constant positions, reshapes,
along one axis of an array of any rank) is computed as the window sum it is: the
operand's entries of each window gathered, times the window's sign, and added into
their output entry (a ``scatter_add`` at constant positions). Its Jacobian block is
then the windows' ``[start, end)`` intervals of ones, ``Σ`` window lengths entries, and
a Hessian's pattern the pairs two windows share, exactly. The positions are read by
running each selection on the entries' numbers, so nothing about an index expression's
form is assumed. The values are the window sums (no rounding of the running sum's
difference); the derivatives are checked against JAX's own of the function as written.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blocks import FORGETS
from .jaxpr_compat import bind_equation, is_literal

__all__ = ["MOST_ENTRIES", "RunningSum", "Windows", "prefix_differences", "windows_between"]

#: the most entries all windows of one function may sum (the gathered vector's length)
MOST_ENTRIES = 50_000_000
#: a window's mean length at most: longer windows keep the running sum (a gradient's
#: work would grow from O(n) to the windows' total)
MOST_MEAN = 64
#: the most entries of a constant the rewrite evaluates to read a selection's positions
MOST_CONSTANT = 10_000_000

_CALLS = frozenset({"pjit", "jit", "closed_call", "core_call"})
#: equations each of whose output entries is one entry of their first operand (or a fill)
_SELECTIONS = frozenset(
    {"slice", "gather", "reshape", "squeeze", "transpose", "rev", "broadcast_in_dim",
     "dynamic_slice", "expand_dims", "copy", "copy_p"}
)  # fmt: skip


@dataclass(frozen=True)
class RunningSum:
    """A ``cumsum`` of ``operand`` along ``axis`` (``reverse``: from the end)."""

    operand: Any
    axis: int
    reverse: bool


@dataclass(frozen=True)
class Windows:
    """A difference computed as window sums of ``operand`` (flat): ``index`` the entries
    gathered, ``sign`` each one's (None: all +1), ``segment`` the output entry each adds
    into (sorted), ``shape`` the output's."""

    operand: Any
    index: np.ndarray
    sign: np.ndarray | None
    segment: np.ndarray
    shape: tuple[int, ...]


def prefix_differences(
    jax: Any, f: Callable[..., Any], args: list[Any], closed: Any = None
) -> Callable | None:
    """``f`` with each difference of two selections of one running sum computed as its
    window sums (module docstring); None where ``f`` has none (a running sum at its top
    level, its differences there or in a call it is passed to: ``jnp.diff``).
    ``closed``: ``f``'s jaxpr at ``args``, where the caller traced it already."""
    closed = jax.make_jaxpr(f)(*args) if closed is None else closed
    if not any(_running(eqn) is not None for eqn in closed.jaxpr.eqns):
        return None
    try:
        plan = _plan(closed.jaxpr, closed.consts)
    except Exception:  # a program the rewrite does not follow (JAX's own refusal): as written
        return None
    if not plan:
        return None
    given = jax.eval_shape(f, *args)
    tree = jax.tree_util.tree_structure(given)
    jaxpr, consts = closed.jaxpr, list(closed.consts)

    def windowed(*values: Any) -> Any:
        flat = jax.tree_util.tree_leaves(values)
        return jax.tree_util.tree_unflatten(tree, _run(jax, jaxpr, consts, flat, plan))

    try:  # traced once abstractly: what it returns is what f returns
        same = jax.eval_shape(windowed, *args)
    except Exception:  # the rewrite's own failure on a program it did not foresee: as written
        return None
    shapes = [jax.tree_util.tree_leaves(r) for r in (given, same)]
    if [(a.shape, a.dtype) for a in shapes[0]] != [(a.shape, a.dtype) for a in shapes[1]]:
        return None
    return windowed


def _single(eqn: Any) -> Any:
    """The one equation of the call ``eqn`` (``jnp.cumsum``'s, ``jnp.flip``'s), reading
    the call's operands and giving its results as they are; None for any other."""
    if eqn.primitive.name not in _CALLS:
        return None
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    body = getattr(inner, "jaxpr", inner)
    eqns = getattr(body, "eqns", ())
    if len(eqns) != 1 or getattr(inner, "consts", ()):
        return None
    if eqns[0].invars != list(body.invars) or eqns[0].outvars != list(body.outvars):
        return None
    return eqns[0]


def _running(eqn: Any) -> RunningSum | None:
    """The running sum ``eqn`` computes: a ``cumsum`` of floats, or a call whose jaxpr
    is one (``jnp.cumsum``'s); None for any other equation."""
    one = _single(eqn)
    if one is not None:
        found = _running(one)
        return None if found is None else RunningSum(eqn.invars[0], found.axis, found.reverse)
    if eqn.primitive.name != "cumsum":
        return None
    if not np.issubdtype(np.dtype(eqn.outvars[0].aval.dtype), np.floating):
        return None
    return RunningSum(eqn.invars[0], int(eqn.params["axis"]), bool(eqn.params["reverse"]))


def _selection(eqn: Any) -> bool:
    """Whether each output entry of ``eqn`` is one entry of its first operand (or a
    fill): a slice, gather, reshape, …, or a call of one (``jnp.flip``'s)."""
    one = _single(eqn)
    return (one if one is not None else eqn).primitive.name in _SELECTIONS


def _in(v: Any, found: dict) -> bool:
    """Whether the variable ``v`` (not a literal: those are not hashable) is in ``found``."""
    return not is_literal(v) and v in found


@dataclass(frozen=True)
class _Inline:
    """A call whose jaxpr holds planned differences of a running sum the caller made:
    evaluated inline (its windows read the caller's operand), its own ``plan``."""

    jaxpr: Any
    consts: list[Any]
    plan: dict[int, Any]


@dataclass
class _Found:
    """What the walk knows: values that read no input (``known``), running sums by their
    result, each selection's running sum and positions (``chosen``), entries summed."""

    known: dict[Any, np.ndarray]
    running: dict[Any, RunningSum]
    chosen: dict[Any, tuple[Any, np.ndarray]]
    total: int = 0


def _plan(jaxpr: Any, consts: list[Any], found: _Found | None = None) -> dict[int, Any]:
    """The ``sub`` equations (by position) that are differences of one running sum's
    selections, each with its windows (:class:`Windows`), and the calls holding such
    (:class:`_Inline`)."""
    found = _Found({}, {}, {}) if found is None else found
    known, chosen = found.known, found.chosen
    for var, value in zip(jaxpr.constvars, consts, strict=True):
        if np.size(value) <= MOST_CONSTANT:
            known[var] = np.asarray(value)
    plan: dict[int, Any] = {}
    for at, eqn in enumerate(jaxpr.eqns):
        ins = [v for v in eqn.invars if not is_literal(v)]
        if all(v in known for v in ins) and not eqn.effects:
            _fold(eqn, known)
            continue
        run = _running(eqn)
        if run is not None:
            out = eqn.outvars[0]
            found.running[out] = run
            shape = tuple(out.aval.shape)
            chosen[out] = (out, np.arange(math.prod(shape), dtype=np.int64).reshape(shape))
            continue
        if eqn.invars and _in(eqn.invars[0], chosen) and _selection(eqn):
            if all(is_literal(v) or v in known for v in eqn.invars[1:]):
                positions = _selected(eqn, chosen[eqn.invars[0]][1], known)
                if positions is not None:
                    chosen[eqn.outvars[0]] = (chosen[eqn.invars[0]][0], positions)
            continue
        if eqn.primitive.name == "sub" and all(_in(v, chosen) for v in eqn.invars):
            windows = _difference(eqn, found)
            if windows is not None:
                plan[at] = windows
            continue
        inner = _called(eqn)
        if inner is not None and any(_in(v, chosen) for v in eqn.invars):
            inline = _inside(eqn, inner, found)
            if inline is not None:
                plan[at] = inline
    return plan


def _difference(eqn: Any, found: _Found) -> Windows | None:
    """The windows of ``eqn``, a ``sub`` of two selections, where they are of one running
    sum and within the limits."""
    (r, a), (s, b) = (found.chosen[v] for v in eqn.invars)
    if r is not s or a.shape != b.shape:
        return None
    windows = windows_between(found.running[r], tuple(r.aval.shape), a, b)
    if windows is None or found.total + windows.index.size > MOST_ENTRIES:
        return None
    found.total += windows.index.size
    return windows


def _called(eqn: Any) -> Any:
    """The closed jaxpr a call ``eqn`` runs (``jnp.diff``'s); None for any other."""
    if eqn.primitive.name not in _CALLS:
        return None
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    return inner if hasattr(getattr(inner, "jaxpr", None), "eqns") else None


def _inside(eqn: Any, inner: Any, found: _Found) -> _Inline | None:
    """The call ``eqn``'s plan, its operands' selections and values passed in (a scope of
    its own: a jaxpr called from several places is planned once per call); None where it
    plans nothing."""
    body = inner.jaxpr
    scope = _Found({}, found.running, {}, found.total)
    for outer, var in zip(eqn.invars, body.invars, strict=True):
        if is_literal(outer):
            scope.known[var] = np.asarray(outer.val)
        elif outer in found.known:
            scope.known[var] = found.known[outer]
        elif outer in found.chosen:
            scope.chosen[var] = found.chosen[outer]
    plan = _plan(body, list(inner.consts), scope)
    found.total = scope.total
    return _Inline(body, list(inner.consts), plan) if plan else None


def _fold(eqn: Any, known: dict[Any, np.ndarray]) -> None:
    """Evaluate ``eqn``, whose operands are all known, where its outputs are small."""
    if any(math.prod(v.aval.shape) > MOST_CONSTANT for v in eqn.outvars):
        return
    try:
        ins = [v.val if is_literal(v) else known[v] for v in eqn.invars]
        outs = bind_equation(eqn, ins)
    except Exception:  # JAX's own failure (a primitive it binds only traced): not known
        return
    for var, value in zip(eqn.outvars, outs, strict=True):
        known[var] = np.asarray(value)


def _selected(eqn: Any, positions: np.ndarray, known: dict[Any, np.ndarray]) -> np.ndarray | None:
    """The positions in the running sum of ``eqn``'s output entries (-1: a fill of 0, no
    entry), from its operand's: the selection run on the positions plus one and on twice
    that, as doubles (exact below 2⁵³). An entry that is one of the operand's doubles;
    a fill stays, so only a fill of 0 is taken (as no entry); None where any other is
    (NaN's fill, a constant)."""
    rest = [v.val if is_literal(v) else known[v] for v in eqn.invars[1:]]
    once = positions.astype(np.float64) + 1.0
    try:
        out, twice = (np.asarray(bind_equation(eqn, [p, *rest])[0]) for p in (once, 2.0 * once))
    except Exception:  # a selection JAX does not apply to doubles here: not followed
        return None
    if out.shape != tuple(eqn.outvars[0].aval.shape) or not np.array_equal(twice, 2.0 * out):
        return None
    return np.rint(out).astype(np.int64) - 1


def windows_between(
    run: RunningSum, shape: tuple[int, ...], a: np.ndarray, b: np.ndarray
) -> Windows | None:
    """``c[a] - c[b]`` entry by entry as window sums of the running sum ``c``'s operand
    (flat positions ``a``, ``b``; -1 none): forward, ``c_p = Σ_{j≤p} x_j``, so the
    window is ``(b, a]`` (sign +) or ``(a, b]`` (sign -); reversed, ``c_p = Σ_{j≥p}``,
    ``[a, b)`` or ``[b, a)``. None where an entry's two positions are in different lanes
    (no window), or the windows are too long (:data:`MOST_MEAN`)."""
    out_shape = a.shape
    a, b = a.reshape(-1), b.reshape(-1)
    stride = math.prod(shape[run.axis + 1 :])
    length = shape[run.axis]
    none = length if run.reverse else -1  # the position of a missing entry
    pa = np.where(a >= 0, (a // stride) % length, none)
    pb = np.where(b >= 0, (b // stride) % length, none)
    la, lb = a - np.maximum(pa, 0) * stride, b - np.maximum(pb, 0) * stride
    both = (a >= 0) & (b >= 0)
    if np.any(both & (la != lb)):
        return None
    lane = np.where(a >= 0, la, lb)
    if run.reverse:
        lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
        sign = np.where(pa < pb, 1.0, -1.0)
    else:
        lo, hi = np.minimum(pa, pb) + 1, np.maximum(pa, pb) + 1
        sign = np.where(pa > pb, 1.0, -1.0)
    lengths = hi - lo
    count = int(lengths.sum())
    if count > MOST_MEAN * max(a.size, 1):
        return None
    segment = np.repeat(np.arange(a.size, dtype=np.int64), lengths)
    offset = np.arange(count, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    index = np.repeat(lane, lengths) + (np.repeat(lo, lengths) + offset) * stride
    signs = np.repeat(sign, lengths)
    found = Windows(run.operand, index, None if np.all(signs > 0) else signs, segment, out_shape)
    return found if _agrees(run, shape, a, b, found) else None


def _agrees(run: RunningSum, shape: tuple[int, ...], a: np.ndarray, b: np.ndarray, w) -> bool:
    """Whether the windows ``w`` give ``c[a] - c[b]`` at random integers of up to 2²⁰ (the
    sums exact in doubles below 2³³ entries): a guard on the construction, whose two
    linear maps, if they differed, would agree there with probability 2⁻²¹ at most."""
    x, flat = _random_running(shape, run.axis, run.reverse)
    terms = x[w.index] * (1.0 if w.sign is None else w.sign)
    got = np.bincount(w.segment, weights=terms, minlength=a.size)
    return bool(np.array_equal(got, flat[a] - flat[b]))


@functools.lru_cache(maxsize=2)
def _random_running(shape: tuple[int, ...], axis: int, reverse: bool) -> tuple[np.ndarray, ...]:
    """Random integers of ``shape`` (flat) and their running sum (flat, a 0 appended for
    position -1), made once per running sum (a program's many differences of one)."""
    x = np.random.default_rng(0).integers(-(2**20), 2**20, size=shape).astype(np.float64)
    c = np.flip(np.cumsum(np.flip(x, axis), axis), axis) if reverse else np.cumsum(x, axis)
    found = x.reshape(-1), np.append(c.reshape(-1), 0.0)
    for array in found:
        array.flags.writeable = False
    return found


def _run(
    jax: Any, jaxpr: Any, consts: list[Any], values: list[Any], plan: dict, outer: Any = None
) -> list[Any]:
    """``jaxpr``'s outputs at ``values``, each planned ``sub`` computed as its window
    sums (:func:`_window_sums`), each planned call evaluated inline, and only the
    equations the outputs read evaluated (a running sum read by the windows alone is
    not computed). ``outer``: the caller's values (a call's windows read them)."""
    needed, _ = _needed(jaxpr, plan)
    env = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, values, strict=True))

    def get(v: Any) -> Any:
        if is_literal(v):
            return v.val
        return env[v] if v in env or outer is None else outer(v)

    for at, eqn in enumerate(jaxpr.eqns):
        if at not in needed:
            continue
        planned = plan.get(at)
        if isinstance(planned, Windows):
            dtype = eqn.outvars[0].aval.dtype
            out = [_window_sums(jax, get(planned.operand), planned, dtype)]
        elif isinstance(planned, _Inline):  # an operand the call does not read: not computed
            ins = [get(v) if is_literal(v) or v in env else None for v in eqn.invars]
            out = _run(jax, planned.jaxpr, planned.consts, ins, planned.plan, get)
        else:
            out = bind_equation(eqn, [get(v) for v in eqn.invars])
        env.update(zip(eqn.outvars, out, strict=True))
    return [get(v) for v in jaxpr.outvars]


def _needed(jaxpr: Any, plan: dict[int, Any]) -> tuple[set[int], set[Any]]:
    """The equations the outputs read, every equation with an effect, and the variables
    they read: a planned ``sub`` reads its running sum's operand, not its own operands;
    a planned call the operands its own plan reads."""
    wanted = {v for v in jaxpr.outvars if not is_literal(v)}
    needed: set[int] = set()
    for at in reversed(range(len(jaxpr.eqns))):
        eqn = jaxpr.eqns[at]
        if not eqn.effects and not any(v in wanted for v in eqn.outvars):
            continue
        needed.add(at)
        planned = plan.get(at)
        if isinstance(planned, Windows):
            reads = [planned.operand]
        elif isinstance(planned, _Inline):
            _, inside = _needed(planned.jaxpr, planned.plan)
            body = planned.jaxpr.invars
            reads = [v for v, w in zip(eqn.invars, body, strict=True) if w in inside]
            reads += list(inside)  # the caller's operands its windows read
        else:
            reads = eqn.invars
        wanted.update(v for v in reads if not is_literal(v))
    return needed, wanted


def _window_sums(jax: Any, operand: Any, windows: Windows, dtype: Any) -> Any:
    """The window sums: the operand's entries gathered, signed, added into their
    output entries."""
    jnp = jax.numpy
    taken = jnp.reshape(operand, (-1,))[windows.index]
    if windows.sign is not None:
        taken = taken * windows.sign.astype(dtype)
    size = math.prod(windows.shape)
    total = jnp.zeros(size, dtype).at[windows.segment].add(taken, indices_are_sorted=True)
    return jnp.reshape(total, windows.shape)


FORGETS.append(_random_running.cache_clear)
