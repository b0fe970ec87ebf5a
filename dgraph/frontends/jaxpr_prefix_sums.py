"""Window sums written as differences of a running sum, read as the sums they are.

``cs = cumsum([0, x]); q = cs[i + k + 1] - cs[i]`` (CUTEst's CURLY10/20/30, moving
windows) computes each ``q_i`` as ``x_{i+1} + … + x_{i+k}``. Read as written, its
Jacobian is the difference of two products of a selection with the running sum's
triangle of ones: each a triangle, their sum a triangle whose entries below the window
are ``1 - 1``. A block knows its pattern, not the signs of its values, so that
cancellation is left to the code's pass over the final block, where a Hessian's entry
is a sum of up to n monomials (past what that pass forms) and the pattern is dense; at
n = 2,000 the triangles alone do not fit in memory.

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

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .jaxpr_compat import bind_equation

__all__ = ["MOST_ENTRIES", "prefix_differences"]

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
class _Running:
    """A ``cumsum`` of ``operand`` along ``axis`` (``reverse``: from the end)."""

    operand: Any
    axis: int
    reverse: bool


@dataclass(frozen=True)
class _Windows:
    """A difference computed as window sums of ``operand`` (flat): ``index`` the entries
    gathered, ``sign`` each one's (None: all +1), ``segment`` the output entry each adds
    into (sorted), ``shape`` the output's."""

    operand: Any
    index: np.ndarray
    sign: np.ndarray | None
    segment: np.ndarray
    shape: tuple[int, ...]


def prefix_differences(jax: Any, f: Callable[..., Any], args: list[Any]) -> Callable | None:
    """``f`` with each difference of two selections of one running sum computed as its
    window sums (module docstring); None where ``f`` has none (at its top level)."""
    closed = jax.make_jaxpr(f)(*args)
    plan = _plan(closed.jaxpr, closed.consts)
    if not plan:
        return None
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))
    jaxpr, consts = closed.jaxpr, list(closed.consts)

    def windowed(*values: Any) -> Any:
        flat = jax.tree_util.tree_leaves(values)
        return jax.tree_util.tree_unflatten(tree, _run(jax, jaxpr, consts, flat, plan))

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


def _running(eqn: Any) -> _Running | None:
    """The running sum ``eqn`` computes: a ``cumsum`` of floats, or a call whose jaxpr
    is one (``jnp.cumsum``'s); None for any other equation."""
    one = _single(eqn)
    if one is not None:
        found = _running(one)
        return None if found is None else _Running(eqn.invars[0], found.axis, found.reverse)
    if eqn.primitive.name != "cumsum":
        return None
    if not np.issubdtype(np.dtype(eqn.outvars[0].aval.dtype), np.floating):
        return None
    return _Running(eqn.invars[0], int(eqn.params["axis"]), bool(eqn.params["reverse"]))


def _selection(eqn: Any) -> bool:
    """Whether each output entry of ``eqn`` is one entry of its first operand (or a
    fill): a slice, gather, reshape, …, or a call of one (``jnp.flip``'s)."""
    one = _single(eqn)
    return (one if one is not None else eqn).primitive.name in _SELECTIONS


def _literal(v: Any) -> bool:
    return type(v).__name__ == "Literal"


def _in(v: Any, found: dict) -> bool:
    """Whether the variable ``v`` (not a literal: those are not hashable) is in ``found``."""
    return not _literal(v) and v in found


def _plan(jaxpr: Any, consts: list[Any]) -> dict[int, _Windows]:
    """The ``sub`` equations (by position) that are differences of one running sum's
    selections, each with its windows."""
    known: dict[Any, np.ndarray] = {}
    for var, value in zip(jaxpr.constvars, consts, strict=True):
        if np.size(value) <= MOST_CONSTANT:
            known[var] = np.asarray(value)
    running: dict[Any, _Running] = {}
    chosen: dict[Any, tuple[Any, np.ndarray]] = {}  # var -> (running sum, its positions)
    plan: dict[int, _Windows] = {}
    total = 0
    for at, eqn in enumerate(jaxpr.eqns):
        ins = [v for v in eqn.invars if not _literal(v)]
        if all(v in known for v in ins) and not eqn.effects:
            _fold(eqn, known)
            continue
        found = _running(eqn)
        if found is not None:
            out = eqn.outvars[0]
            running[out] = found
            shape = tuple(out.aval.shape)
            chosen[out] = (out, np.arange(math.prod(shape), dtype=np.int64).reshape(shape))
            continue
        if eqn.invars and _in(eqn.invars[0], chosen) and _selection(eqn):
            if all(_literal(v) or v in known for v in eqn.invars[1:]):
                positions = _selected(eqn, chosen[eqn.invars[0]][1], known)
                if positions is not None:
                    chosen[eqn.outvars[0]] = (chosen[eqn.invars[0]][0], positions)
            continue
        if eqn.primitive.name == "sub" and all(_in(v, chosen) for v in eqn.invars):
            (r, a), (s, b) = (chosen[v] for v in eqn.invars)
            if r is not s or a.shape != b.shape:
                continue
            windows = _windows(running[r], tuple(r.aval.shape), a, b)
            if windows is None or total + windows.index.size > MOST_ENTRIES:
                continue
            total += windows.index.size
            plan[at] = windows
    return plan


def _fold(eqn: Any, known: dict[Any, np.ndarray]) -> None:
    """Evaluate ``eqn``, whose operands are all known, where its outputs are small."""
    if any(math.prod(v.aval.shape) > MOST_CONSTANT for v in eqn.outvars):
        return
    try:
        ins = [v.val if _literal(v) else known[v] for v in eqn.invars]
        outs = bind_equation(eqn, ins)
    except Exception:  # JAX's own failure (a primitive it binds only traced): not known
        return
    for var, value in zip(eqn.outvars, outs, strict=True):
        known[var] = np.asarray(value)


def _selected(eqn: Any, positions: np.ndarray, known: dict[Any, np.ndarray]) -> np.ndarray | None:
    """The positions in the running sum of ``eqn``'s output entries (-1: a fill, no
    entry), from its operand's: the selection run on the positions plus one, as
    doubles (exact below 2⁵³), a fill's 0 then -1."""
    ins = [positions.astype(np.float64) + 1.0]
    ins += [v.val if _literal(v) else known[v] for v in eqn.invars[1:]]
    try:
        out = np.asarray(bind_equation(eqn, ins)[0])
    except Exception:  # a selection JAX does not apply to doubles here: not followed
        return None
    if out.shape != tuple(eqn.outvars[0].aval.shape):
        return None
    return np.rint(out).astype(np.int64) - 1


def _windows(
    run: _Running, shape: tuple[int, ...], a: np.ndarray, b: np.ndarray
) -> _Windows | None:
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
    return _Windows(
        run.operand, index, None if np.all(signs > 0) else signs, segment, out_shape
    )


def _run(jax: Any, jaxpr: Any, consts: list[Any], values: list[Any], plan: dict) -> list[Any]:
    """``jaxpr``'s outputs at ``values``, each planned ``sub`` computed as its window
    sums (:func:`_window_sums`) and only the equations the outputs read evaluated (a
    running sum read by the windows alone is not computed)."""
    needed = _needed(jaxpr, plan)
    env = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, values, strict=True))

    def get(v: Any) -> Any:
        return v.val if _literal(v) else env[v]

    for at, eqn in enumerate(jaxpr.eqns):
        if at not in needed:
            continue
        if at in plan:
            windows = plan[at]
            out = [_window_sums(jax, get(windows.operand), windows, eqn.outvars[0].aval.dtype)]
        else:
            out = bind_equation(eqn, [get(v) for v in eqn.invars])
        env.update(zip(eqn.outvars, out, strict=True))
    return [get(v) for v in jaxpr.outvars]


def _needed(jaxpr: Any, plan: dict[int, _Windows]) -> set[int]:
    """The equations the outputs read (a planned ``sub`` reads its running sum's
    operand, not its own operands); every equation with an effect."""
    wanted = {v for v in jaxpr.outvars if not _literal(v)}
    needed: set[int] = set()
    for at in reversed(range(len(jaxpr.eqns))):
        eqn = jaxpr.eqns[at]
        if not eqn.effects and not any(v in wanted for v in eqn.outvars):
            continue
        needed.add(at)
        reads = [plan[at].operand] if at in plan else eqn.invars
        wanted.update(v for v in reads if not _literal(v))
    return needed


def _window_sums(jax: Any, operand: Any, windows: _Windows, dtype: Any) -> Any:
    """The window sums: the operand's entries gathered, signed, added into their
    output entries."""
    jnp = jax.numpy
    taken = jnp.reshape(operand, (-1,))[windows.index]
    if windows.sign is not None:
        taken = taken * windows.sign.astype(dtype)
    size = math.prod(windows.shape)
    total = jnp.zeros(size, dtype).at[windows.segment].add(taken, indices_are_sorted=True)
    return jnp.reshape(total, windows.shape)
