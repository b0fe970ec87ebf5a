"""Entries of a sparse Jacobian block that are zero for every input, dropped from its
pattern.

A block's pattern is the union of the patterns of the products summed into it
(:func:`dgraph.blocks.add`), so where summands are equal and opposite (``x·y − y·x``,
``sin(a)·b − b·sin(a)``) the entry stays, an explicit zero. Two passes take such entries
out, both from the structure, never from a value at a point:

- the summands that read no input are numbers known when the code is made (the constant
  blocks and their products and sums, which the module folds once): an entry that only
  they reach, and whose summands add to exactly 0 there (their exact sum, not one rounded
  summation order), is 0 for every input, and so is an entry of a block whose values,
  one array that reads no input, are 0.0 there;
- where summands read inputs, each one's values are polynomials over value-numbered
  unknowns (:mod:`.poly_values`): an entry whose summands add up to the zero polynomial
  is 0 wherever the code's values are defined. Only entries that are 0 (or within the
  rounding their own computation can leave, :mod:`~..bounds`, or not finite) at one drawn
  point are asked, since forming the polynomials costs passes over every array the
  summands read; a point only keeps an entry. The bound is tiered: a point is evaluated
  with one bound a statement (:class:`~..bounds.Scalar`, a reduction where the per-entry
  bound costs an array; per entry from a product whose one bound would be loose on, in
  the same pass), which decides every entry far from it; only the entries it leaves
  undecided get their own bound (:func:`_decided`). A run of statements over large
  arrays stacked along their first axis is evaluated a slice of rows at a time
  (:mod:`.slices`: the same values, its memory a slice's). For a symmetric J in NumPy
  the points are its narrowed program's (:func:`none_cancel`), and the pass runs on the
  whole program only where an entry is still asked after them.

:func:`drop_cancelled` removes both from the block, so the pattern is never smaller than
the nonzeros the code computes at any input.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...blocks import Block, RunTime, Sparse, sparse
from ...core.regions import trip_limit
from ...errors import DGraphError
from ..array_passes import node_shapes
from ..bounds import Bounded, BoundEvaluator, Scalar, bound_of, plain, run_bounded
from ..evaluate import ArrayEvaluator
from ..ir import ArrayStatement, Loop, Name, Node, names_in
from ..shapes import Shaped
from .blockops import BlockOps, Terms, Valued, values_at
from .entries import entries
from .entry_values import EntryValues, Whole, demand
from .entry_values import values as entry_values
from .footprint import read_argument
from .poly_arrays import GiveUp, add, broadcast, restricted, vector
from .poly_arrays import place as placed_at
from .poly_values import PolyValues
from .slices import Region, joined, plan, slice_env

__all__ = ["asked_later", "drop_cancelled", "needed_statements", "none_cancel"]


def _constant(w, node: Node) -> np.ndarray:
    """The value of ``node``, which reads no input, from the statements written so far."""
    known = {s.target: s for s in w.statements}
    needed, todo = [], list(names_in(node))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in known:
            continue
        seen.add(name)
        needed.append(known[name])
        todo.extend(names_in(known[name].value))
    order = {s.target: k for k, s in enumerate(w.statements)}
    needed.sort(key=lambda s: order[s.target])
    env = {n: a for n, a in w.constants.arrays.items()}
    env = ArrayEvaluator().run([*needed, ArrayStatement("_cancel_value", node)], env)
    return np.asarray(env["_cancel_value"], dtype=float)


SCREEN_TRIPS = 1_000
"""The trips a ``while_loop`` may run at the screen's random points (:func:`_screen_trips`):
a loop written to converge at the user's data (a fixed point to 1e-12) may never stop at
a random point, and evaluated here, with bounds, each trip costs as much as the body's
statements (BLP's share inversion ran for minutes). A point where a loop runs longer is
not evaluated: nothing is proven there (:func:`_cancelled`)."""


def _screen_trips(evaluate):
    """``evaluate`` (a random point's values, None where not evaluated) with its
    ``while_loop`` trips limited to :data:`SCREEN_TRIPS`: past them, None."""

    @functools.wraps(evaluate)
    def bounded(*args, **kwargs):
        with trip_limit(SCREEN_TRIPS):
            return evaluate(*args, **kwargs)

    return bounded


def _zeros(w, block: Block, values: Node | Terms, at: np.ndarray) -> np.ndarray | None:
    """Per entry, whether only constant summands reach it and their exact sum is 0 (None:
    none can be dropped)."""
    if isinstance(values, Terms):
        if all(w.varies(data) for _, data in values.parts):
            return None
        reached = np.zeros(values.size, dtype=bool)
        placed = []
        for where, data in values.parts:
            place = np.arange(values.size) if where is None else where
            if w.varies(data):
                reached[place] = True
                continue
            value = _constant(w, data).reshape(-1)
            if value.size not in (1, place.size):
                return None
            placed.append((place, np.broadcast_to(value, place.shape)))
        return _exactly_zero(values.size, placed, reached)[at]
    if w.varies(values):
        return None
    value = _constant(w, values).reshape(-1)
    if value.size == 1:
        return np.full(at.size, value.item() == 0.0)
    return value[at] == 0.0


def _exactly_zero(size: int, placed: list, reached: np.ndarray) -> np.ndarray:
    """Per position, whether the values ``placed`` there (each part's positions distinct)
    add up to exactly 0 and nothing in ``reached`` goes there. The rounded sum finds the
    candidates; ``math.fsum`` (exact, then rounded once: 0 only where the exact sum is,
    a nonzero sum of doubles being at least the least subnormal) decides them, so no
    rounding of one summation order drops an entry; where at most two summands are not 0
    the rounded sum is 0 exactly when theirs is."""
    total = np.zeros(size)
    for place, value in placed:
        total += np.bincount(place, weights=value, minlength=size)
    candidates = np.flatnonzero((total == 0.0) & ~reached)
    zero = np.zeros(size, dtype=bool)
    if candidates.size == 0:
        return zero
    where = np.full(size, -1, dtype=np.int64)
    where[candidates] = np.arange(candidates.size)
    parts = np.zeros((candidates.size, len(placed)))
    for k, (place, value) in enumerate(placed):
        row = where[place]
        hit = row >= 0
        parts[row[hit], k] = value[hit]
    exact = np.ones(candidates.size, dtype=bool)  # two summands: a + b rounds to 0 iff a = −b
    three = np.flatnonzero(np.count_nonzero(parts, axis=1) > 2)
    exact[three] = [math.fsum(parts[k]) == 0.0 for k in three]
    zero[candidates[exact]] = True
    return zero


def drop_cancelled(w, valued: Valued, symmetric: bool = False) -> Valued:
    """``valued`` (a block and its values, before :meth:`BlockOps.materialize`) without
    the entries proven zero for every input (module docstring): a sparse block of the
    rest and their values, or None where nothing is left. ``symmetric``: the block is a
    Hessian, and an entry proven zero leaves with its mirror image (equal to it)."""
    if valued is None or isinstance(valued[0], RunTime):  # its values read the inputs
        return valued
    block, values = valued
    rows, cols, at = entries(block)
    zero = _zeros(w, block, values, at)
    cancelled = _cancelled(w, values, at, zero)
    if cancelled is not None:
        zero = cancelled if zero is None else zero | cancelled
    if zero is None or not zero.any():
        return valued
    if symmetric:
        zero = _with_mirrors(rows, cols, zero)
    keep = np.flatnonzero(~zero)
    if keep.size == 0:
        return None
    width = max(1, int(np.prod(block.in_shape)))
    keep = keep[np.argsort(rows[keep] * width + cols[keep], kind="stable")]
    if isinstance(values, Terms):
        _, values = BlockOps(w.d.lang, w.constants, w.emit, w.varies).materialize(valued)
    kept = sparse(block.out_shape, block.in_shape, rows[keep], cols[keep], block.kind)
    return kept, w.emit(values_at(w.constants, block, values, at[keep]))


def _with_mirrors(rows: np.ndarray, cols: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """``zero`` with each entry's mirror image (column, row) zero where it is."""
    width = int(max(rows.max(initial=0), cols.max(initial=0))) + 1
    keys = rows.astype(np.int64) * width + cols
    mirrors = cols.astype(np.int64) * width + rows
    order = np.argsort(keys)
    at = np.minimum(np.searchsorted(keys[order], mirrors[zero]), keys.size - 1)
    found = keys[order][at] == mirrors[zero]
    out = zero.copy()
    out[order[at[found]]] = True
    return out


# -- values that vary ------------------------------------------------------------------
#
# Where a summand reads an input, the entry is zero for every input only if its summands'
# polynomials (:mod:`.poly_values`: the inputs and the elementwise functions of them as
# value-numbered unknowns) add up to the zero polynomial. Forming them costs passes over
# every entry of the arrays they read; an entry whose value at any drawn point is far
# from 0 is not zero for every input, so only the entries that are 0 at every drawn
# point, or nearly (its rounding), or not a number, are asked (a point only keeps
# entries: nothing is dropped because of a value at a point).

_SEEDS = (20261129, 20261130, 20261131)  # drawn points: near 0 at all three by chance is rare
# The second point's inputs have either sign: where every input in [0.25, 0.75] drives a
# sum of like-signed terms far out (a logistic loss's sigmoid' at z ≈ 50, 1e-22), an
# entry's true value sits below the rounding bound at every such point, and it is asked
# at all three and then by its polynomials; a point of mixed signs keeps it at once.
_MIXED = {_SEEDS[1]: (-0.75, 0.75)}
_WHOLE = 4  # more than 1/_WHOLE of the entries asked: a later point evaluates the whole
_NEAR = 1e-8  # |sum| at most this times Σ|summands| at the entry: asked
_NEAR_ALL = 1e-12  # |sum| at most this times the entry's bound (..bounds): asked
# at most 1/_FEW of the entries undecided by the scalar bounds: their own bounds at them
# alone, else the whole point (at those entries: silu_softplus_bce at 1,000, 48,489 of 10⁶,
# 1.07 s against 0.33 s for the whole point; cumsum_profile at 1,000 with one bound a
# statement everywhere, 1,184 of 10⁶, 0.63 s against 0.45 s; at 2,000, 25,698 of 4·10⁶,
# 2.5 s against 2.0 s; with its spread product per entry (..bounds) none is left at 1,000)
_FEW = 1024


def _cancelled(w, values: Node | Terms, at: np.ndarray, zero: np.ndarray | None):
    """Per entry, whether its summands' polynomials add up to zero (the section above);
    None where nothing is proven or nothing varies."""
    parts = values.parts if isinstance(values, Terms) else ((None, values),)
    if not any(w.varies(data) for _, data in parts):
        return None
    nodes = [data for _, data in parts]
    asked, shaped, named = None, {}, {}
    fixed: dict[int, tuple] = {}  # what no input reaches, the same at every point
    needed = _needed(w, nodes)  # the same statements at every point
    if needed is None:
        return None
    lookups: dict = {}  # a later point's scatter lookups start from the earlier one's
    # its large arrays a slice at a time (.slices): never at some entries (held whole there)
    schedule = _schedule(w, nodes, *needed)  # the same at every point
    sliced = any(kind == "region" for kind, _ in schedule)
    deferred: list[tuple] = []  # points whose scalar bounds left entries asked (_decided)
    tiered = True  # until the scalar bounds of a point leave entries: then per entry
    seeds = (*_SEEDS, USER) if _user_point(w, *needed[1:]) is not None else _SEEDS
    for seed in seeds:  # an entry far from 0 at any one point is not asked
        # a later point: the entries still asked alone, where they are few (the lookups of
        # most of the entries cost more than the whole program's pass)
        few = asked is not None and np.count_nonzero(asked) * _WHOLE <= asked.size
        if few and not sliced:
            near = _near_at_entries(w, parts, seed, fixed, named, asked, needed, lookups)
            if near is not None:
                asked &= near
                if not asked.any():
                    return None
                continue
        point = _at_a_point(w, nodes, seed, fixed, needed, tiered, schedule)
        if point is None and (seed == USER or (asked is not None and seed in _MIXED)):
            continue  # not evaluated there (a domain): the next point
        if point is None:
            return None
        if asked is None:
            numbers, shaped = point[0], point[1]
            part_shapes = [np.shape(v) for v in point[2]]
            named = {n: s.shape for n, s in shaped.items()}
            size = values.size if isinstance(values, Terms) else int(np.size(point[2][0]))
            asked = np.zeros(size, dtype=bool)
            asked[at[~zero] if zero is not None else at] = True
        if tiered:
            entries, whole = _own_bounds(w, parts, seed, fixed, named, needed, schedule)
            last = seed == seeds[-1]
            decided = _decided(w, parts, point[2], point[3], asked, entries, whole, not last)
            if decided is None:
                return None
            near, undecided, tiered = decided
            if undecided is not None:
                deferred.append((seed, undecided))
        else:  # a point after one the scalar bounds did not decide: its own bounds at once
            near = _near_zero(parts, point[2], point[3], size)
            if near is None:
                return None
            _count(w, "own")
        asked &= near
        if not asked.any():
            return None
    for seed, undecided in deferred:  # those still asked, by their own bounds there
        undecided &= asked
        if not undecided.any():
            continue
        own = _decided_by_own(
            w, undecided, *_own_bounds(w, parts, seed, fixed, named, needed, schedule)
        )
        if own is None:
            return None
        asked &= ~undecided | own
        if not asked.any():
            return None
    try:
        polys = _poly_values(w, numbers, shaped).of(nodes)
        placed = []
        for (where, _), p, shape in zip(parts, polys, part_shapes, strict=True):
            n = size if where is None else np.size(where)
            if p.shape != shape and math.prod(shape) == n:  # a row read as the part's rows
                p = broadcast(p, shape)
            p = broadcast(vector(p), (n,))
            if where is not None:
                p = placed_at(p, np.asarray(where), size)
            placed.append(restricted(p, asked))
        total_poly = add(*placed)
    except GiveUp:
        return None
    proven = total_poly.zero() & asked
    return proven[at]


def _poly_values(w, numbers: dict, shaped: dict) -> PolyValues:
    """The polynomial values of ``w``'s program: one instance for every block of a
    Writer's program (``w.poly_values``, grown as statements are appended: the values
    every block reads, a long loop unrolled, made once), else a new one."""
    shared = getattr(w, "poly_values", False)
    if shared is False:
        return PolyValues(w.statements, numbers, shaped, w.varying)
    if shared is None or shared.varying is not w.varying:
        w.poly_values = PolyValues(w.statements, numbers, shaped, w.varying)
        return w.poly_values
    return shared.grown(w.statements, numbers, shaped)


def _decided(
    w,
    parts,
    found: list,
    bounds: list,
    asked: np.ndarray,
    entries,
    whole,
    may_defer: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, bool] | None:
    """:func:`_near_zero` at a point evaluated with one bound a statement (``found``,
    ``bounds``: :func:`_at_a_point` with ``scalar``), each entry's own bound only where
    that one does not decide: an entry whose sum is above :data:`_NEAR_ALL` × the sum of
    its summands' statements' bounds is above it × its own (no smaller), and one near by
    its summands' magnitudes or not a number is asked whatever its bound. The rest of
    those still ``asked`` (undecided) are decided by their own bounds
    (:func:`_decided_by_own`; ``entries``, ``whole``: :func:`_own_bounds`). ``may_defer``:
    a later point follows; where it will evaluate the whole program anyway (more than
    1/:data:`_WHOLE` of the entries asked, the undecided counted), the undecided are left
    asked, that point's cheap bound asked first (the caller decides those still asked
    after the last point by their own bounds here). Returns the entries near 0, the
    undecided where it so deferred (else None) and whether the scalar bounds decided
    alone (else the caller's later points go per entry at once: "own"). Which tier
    decided is counted in ``w``'s ``cancel_tiers`` where it has one: "scalar",
    "entries", "whole", "deferred", "own"."""
    size = asked.size
    sums = _sums(parts, found, bounds, size)
    if sums is None:
        return None
    total, scale, bound = sums
    near = _near(total, scale, bound)
    undecided = near & asked & ~_near_by_values(total, scale)
    if not undecided.any():
        _count(w, "scalar")
        return near, None, True
    if may_defer and np.count_nonzero(near & asked) * _WHOLE > size:
        _count(w, "deferred")
        return near, undecided, False
    own = _decided_by_own(w, undecided, entries, whole)
    return None if own is None else ((near & ~undecided) | own, None, False)


def _decided_by_own(w, undecided: np.ndarray, entries, whole) -> np.ndarray | None:
    """Per entry, whether it is near 0 by its own bound (:func:`_near_zero`), asked of
    the entries ``undecided`` (the rest False): at those entries alone (``entries``: the
    per-entry :func:`_near_at_entries` of a mask, None where not so) where they are at
    most 1/:data:`_FEW` of them, else by the whole point again (``whole``: its values
    and per-entry bounds, None where not evaluated so)."""
    if np.count_nonzero(undecided) * _FEW <= undecided.size:
        own = entries(undecided)
        if own is not None:
            _count(w, "entries")
            return own & undecided
    again = whole()
    if again is None:
        return None
    _count(w, "whole")
    near = _near_zero(*again, undecided.size)
    return None if near is None else near & undecided


def _own_bounds(
    w, parts, seed: int | str, fixed: dict, named: dict, needed, schedule: list | None = None
) -> tuple:
    """:func:`_decided`'s ``entries`` and ``whole`` at the point drawn from ``seed``;
    ``schedule``: :func:`_schedule`'s, found before. Where it has a region (large arrays
    evaluated a slice at a time, :mod:`.slices`), never at some entries (which would hold
    them whole): the whole point instead, whose bounds at those entries are the same."""
    sliced = schedule is not None and any(kind == "region" for kind, _ in schedule)

    def entries(asked: np.ndarray) -> np.ndarray | None:
        if sliced:
            return None
        return _near_at_entries(w, parts, seed, fixed, named, asked, needed, {})

    def whole() -> tuple | None:
        point = _at_a_point(w, [data for _, data in parts], seed, fixed, needed, False, schedule)
        return None if point is None else (parts, point[2], point[3])

    return entries, whole


def _count(w, tier: str) -> None:
    """Count a decision of ``tier`` in ``w``'s ``cancel_tiers``, where it has one."""
    tiers = getattr(w, "cancel_tiers", None)
    if tiers is not None:
        tiers[tier] += 1


def _near_zero(parts, found, bounds, size: int) -> np.ndarray | None:
    """Per entry, whether its summands' values at a point add up to 0, or nearly (its
    rounding: within :data:`_NEAR` of the summands' magnitudes, or :data:`_NEAR_ALL` of
    its own computation's running error bound, ``bounds``: :mod:`~..bounds`), or to no
    number; None where a value's size does not fit its place."""
    sums = _sums(parts, found, bounds, size)
    return None if sums is None else _near(*sums)


def _sums(parts, found, bounds, size: int) -> tuple | None:
    """Per entry, the sum of its summands' values at a point, of their magnitudes and of
    their bounds (``bounds``, one per part: per entry or one number); None where a
    value's size does not fit its place."""
    total, scale, bound = np.zeros(size), np.zeros(size), np.zeros(size)
    for (where, _), value, b in zip(parts, found, bounds, strict=True):
        value = np.asarray(value, dtype=float)
        b = np.broadcast_to(np.asarray(b, dtype=float), value.shape).reshape(-1)
        value = value.reshape(-1)
        if where is None:  # every entry, in order: the same sums without a gather
            if value.size not in (1, size):
                return None
            total += value
            scale += np.abs(value)
            bound += b
            continue
        place_at = np.asarray(where)
        if value.size not in (1, place_at.size):
            return None
        total[place_at] += value
        scale[place_at] += np.abs(value)
        bound[place_at] += b
    return total, scale, bound


def _near_by_values(total: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Whether each sum ``total`` is no number, or within :data:`_NEAR` of its summands'
    magnitudes ``scale`` (asked whatever its bound)."""
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(total) | (np.abs(total) <= _NEAR * scale)


def _near(total: np.ndarray, scale: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Whether each sum ``total`` is no number, or within its rounding of 0 (``scale``:
    its summands' magnitudes; ``bound``: its computation's, no number where unknown)."""
    near = _near_by_values(total, scale)
    with np.errstate(invalid="ignore"):
        near |= ~(np.abs(total) > _NEAR_ALL * bound)  # a NaN bound: asked
    return near


def _needed(w, nodes: list[Node]):
    """The statements ``nodes`` read (indices, in program order), the arguments among
    the names and their shapes; None where an argument's shape is not found."""
    statements = w.statements
    by_target: dict[str, list[int]] = {}
    for k, s in enumerate(statements):
        by_target.setdefault(s.target, []).append(k)
    constants = w.constants.arrays
    needed: set[int] = set()
    arguments: set[str] = set()
    todo = [n for node in nodes for n in names_in(node)]
    while todo:
        name = todo.pop()
        if name in constants or name in arguments:
            continue
        if name not in by_target:
            arguments.add(name)
            continue
        for k in by_target[name]:
            if k not in needed:
                needed.add(k)
                todo.extend(names_in(statements[k].value))
                for a in statements[k].at:
                    todo.extend(names_in(a))
    shapes = _argument_shapes(statements, arguments)
    if shapes is None:
        return None
    return sorted(needed), sorted(arguments), shapes


def needed_statements(w, nodes: list[Node]):
    """:func:`_needed`: the statements ``nodes`` read, the arguments and their shapes."""
    return _needed(w, nodes)


USER = "user"
"""The seed of the user's point (:func:`_user_point`), screened after the drawn ones where
they leave entries asked, before their polynomials are formed: a program written for its
data may be degenerate at every drawn point (a projectile that lands at its first step,
its range's derivatives all 0 there), and an entry far from 0 at the user's point is not
asked (a point only keeps entries: the entries dropped are the same)."""


def _user_point(w, arguments: list[str], shapes: dict) -> dict | None:
    """The arguments at the user's point (``w.user_point``: the graph's point, by
    argument name), None where it has not every one of ``arguments`` in its shape."""
    given = getattr(w, "user_point", None)
    if not given or any(
        n not in given or np.shape(given[n]) != tuple(shapes[n]) for n in arguments
    ):
        return None
    return {n: given[n] for n in arguments}


def _drawn(w, arguments: list[str], shapes: dict, seed: int | str) -> dict:
    """The constants and the arguments at the point drawn from ``seed`` (inputs uniform
    in [0.25, 0.75], or in :data:`_MIXED`'s range for its seeds; :data:`USER`: the
    user's point)."""
    if seed == USER:
        return {**w.constants.arrays, **_user_point(w, arguments, shapes)}
    rng = np.random.default_rng(seed)
    low, high = _MIXED.get(seed, (0.25, 0.75))
    env: dict = dict(w.constants.arrays)
    for name in arguments:
        env[name] = rng.uniform(low, high, shapes[name])
    return env


@_screen_trips
def _at_a_point(
    w,
    nodes: list[Node],
    seed: int | str,
    fixed: dict[int, np.ndarray] | None = None,
    needed=None,
    scalar: bool = False,
    schedule: list | None = None,
):
    """The values of ``nodes`` at the point drawn from ``seed`` (:func:`_drawn`) and each
    one's running error bound per entry (:mod:`~..bounds`: from the magnitudes its own
    computation went through), with the values of the names no input reaches and every name's shape;
    None where the program is not evaluated here (its inputs not found, an operation the
    evaluator refuses). ``fixed``: by statement, the value of its target where no input
    reaches it, computed at an earlier point (and filled here). ``scalar``: one bound a
    statement (:class:`~..bounds.Scalar`, the cheaper tier) instead of one an entry.
    ``schedule``: the statements in the order :func:`_schedule` gives (found here where
    None): runs of large arrays evaluated a slice of rows at a time (:mod:`.slices`), the
    same values, each bound its own slice's."""
    fixed = {} if fixed is None else fixed
    statements = w.statements
    found_needed = _needed(w, nodes) if needed is None else needed
    if found_needed is None:
        return None
    order, arguments, shapes = found_needed
    env = _drawn(w, arguments, shapes, seed)
    shaped: dict = {n: Shaped.of(a) for n, a in env.items()}
    kind = Scalar if scalar else Bounded
    env.update((a, kind.exact(env[a])) for a in arguments)
    evaluator = ArrayEvaluator()
    # what reads an input only screens entries (never folded): its loops' steps batched
    screen = BoundEvaluator(batch_loops=True, scalar=scalar)
    screen_plainly = ArrayEvaluator(batch_loops=True)
    keep = not any(statements[k].at for k in order)  # a store changes an array in place
    kept = _point_values(w, seed, scalar, arguments, shapes)
    if schedule is None:
        schedule = _schedule(w, nodes, order, arguments, shapes)
    # by place in the schedule (a region's statements at its place): each value let go
    # after its last reader
    last: dict[str, int] = {n: len(schedule) for node in nodes for n in names_in(node)}
    for p, (kind_of, k) in enumerate(schedule):
        for j in k.indices if kind_of == "region" else (k,):
            for name in names_in(statements[j].value):
                last[name] = max(last.get(name, p), p)
    try:
        with np.errstate(all="ignore"):
            for p, (kind_of, k) in enumerate(schedule):
                if kind_of == "region":  # its large arrays a slice of rows at a time
                    _run_region(k, env, screen, screen_plainly, shaped)
                    for j in k.indices:
                        for name in names_in(statements[j].value):
                            if last.get(name) == p and name in w.varying:
                                env.pop(name, None)
                    continue
                s = statements[k]
                if k in fixed:
                    env[s.target] = fixed[k]
                elif s.target in w.varying:
                    hit = None if kept is None else kept.get(k)
                    if hit is not None and hit[0] is s.value:  # no store changes it
                        hit = hit[1] if keep else _copied(hit[1])
                    else:
                        hit = None
                    if hit is not None:
                        env[s.target] = hit
                    else:
                        run_bounded(screen, screen_plainly, s, env)
                        _keep_value(w, kept, k, s, env[s.target], keep)
                else:
                    known = getattr(w, "evaluated", {}).get(id(s)) if keep else None
                    if known is not None and known[0] is s:  # an earlier block's
                        env[s.target] = known[1]
                    else:
                        evaluator.run([s], env)
                    if keep:
                        fixed[k] = env[s.target]
                        _remember(w, s, env[s.target])
                value = plain(env[s.target])
                shaped[s.target] = Shaped(np.shape(value), np.asarray(value).dtype)
                if s.target not in w.varying:
                    shaped[s.target] = Shaped.of(value)
                for name in names_in(s.value):
                    if last.get(name) == p and name in w.varying and name != s.target:
                        env.pop(name, None)
            found = [screen.value(node, env) for node in nodes]
    except (DGraphError, ArithmeticError, ValueError, TypeError, IndexError, KeyError):
        return None
    numbers = {n: v for n, v in env.items() if n not in w.varying}
    return numbers, shaped, [plain(v) for v in found], [bound_of(v) for v in found]


POINT_KEEP = 2_000_000
"""The entries of the values at the drawn points (:func:`_at_a_point`) a Writer keeps
for its later blocks (each block of a Jacobian evaluates the one program at the same
points, a long loop unrolled read by all of them): beyond, evaluated again."""


def _point_values(w, seed: int | str, scalar: bool, arguments: list, shapes: dict) -> dict | None:
    """The values kept of ``w``'s statements (by index: the statement's value node and
    its value with bounds) at the point drawn from ``seed`` for ``arguments`` (their
    order decides the draws), evaluated with ``scalar`` bounds or not; None where ``w``
    keeps none (``w.point_values``, a Writer's)."""
    points = getattr(w, "point_values", None)
    if points is None:
        return None
    key = (seed, scalar, tuple((a, tuple(shapes[a])) for a in arguments))
    return points.setdefault(key, {})


def _keep_value(
    w, kept: dict | None, k: int, s: ArrayStatement, value, shared: bool = True
) -> None:
    """Keep statement ``k``'s ``value`` at a point for a later block, within
    :data:`POINT_KEEP` entries in all; ``shared`` False (the program stores into arrays
    in place): a copy, and one given out again (:func:`_copied`), so that no store
    changes it; where it cannot be copied, not kept."""
    if kept is None:
        return
    if not shared:
        value = _copied(value)
        if value is None:
            return
    size = int(np.size(plain(value)))
    if w.point_entries + size <= POINT_KEEP:
        kept[k] = (s.value, value)
        w.point_entries += size


def _copied(value):
    """A copy of a value at a point (an array, a number, or one with its bounds), None
    where it is none of those."""
    if isinstance(value, (np.ndarray, Bounded, Scalar)):
        return value.copy()
    if isinstance(value, (int, float, np.generic)):
        return value
    return None


def _schedule(w, nodes: list[Node], order: list[int], arguments, shapes) -> list[tuple]:
    """``order`` as :func:`~.slices.plan` schedules it (its large arrays' runs a slice of
    rows at a time), else statement by statement."""
    plain_order = [("statement", k) for k in order]
    named = _named_shapes(w, order, arguments, shapes)
    if named is None:
        return plain_order
    read_after = {n for node in nodes for n in names_in(node)}
    found = plan(w.statements, order, named, w.varying, read_after)
    return plain_order if found is None else found


def _run_region(region: Region, env: dict, screen, screen_plainly, shaped: dict) -> None:
    """``region``'s statements evaluated a slice at a time (:mod:`.slices`), with their
    bounds, its arrays read later joined into ``env`` (the others never whole)."""
    for s in region.once:
        run_bounded(screen, screen_plainly, s, env)
    parts: dict[str, list] = {t: [] for t in region.exits}
    for start in range(0, region.blocks, region.rows):
        local = dict(env)
        local.update(slice_env(region, env, start))
        for j, s in enumerate(region.statements):
            run_bounded(screen, screen_plainly, s, local)
            if s.target in parts:
                parts[s.target].append(local[s.target])
            if start == 0:
                value = plain(local[s.target])
                whole = (np.shape(value)[0] * region.blocks // region.rows, *np.shape(value)[1:])
                shaped[s.target] = Shaped(whole, np.asarray(value).dtype)
            for name in names_in(s.value):
                if region.last.get(name) == j and name != s.target:
                    local.pop(name, None)
        del local
    for s in region.once:
        env.pop(s.target, None)
    for target, found in parts.items():
        env[target] = joined(found)


def _remember(w, statement: ArrayStatement, value) -> None:
    """A value that reads no input, kept for the constant folding (the module's
    :attr:`~.module.Writer.evaluated`), where the writer keeps them."""
    evaluated = getattr(w, "evaluated", None)
    if evaluated is not None:
        evaluated[id(statement)] = (statement, value)


@_screen_trips
def _near_at_entries(
    w,
    parts,
    seed: int | str,
    fixed: dict,
    named: dict,
    asked: np.ndarray,
    needed=None,
    lookups: dict | None = None,
):
    """:func:`_near_zero` at the point drawn from ``seed`` for the entries ``asked``
    alone (the rest False), each summand evaluated only at the entries it places there
    (:mod:`.entry_values`), each entry's bound its own computation's (:mod:`~..bounds`).
    None where the program is not evaluated so (then the whole point is). ``named``:
    every name's shape; ``needed``: :func:`_needed` of the parts' nodes, found before;
    ``lookups``: the scatters' lookups of the positions asked at an earlier point
    (:class:`~.entry_values.EntryValues`), filled with this point's."""
    statements = w.statements
    nodes = [data for _, data in parts]
    found_needed = _needed(w, nodes) if needed is None else needed
    if found_needed is None:
        return None
    order, arguments, shapes = found_needed
    known = dict(w.constants.arrays)
    known.update((statements[k].target, fixed[k]) for k in order if k in fixed)
    program = EntryValues(named, known, lookups)
    entries = np.flatnonzero(asked)
    rank = np.full(asked.size, -1, dtype=np.int64)
    rank[entries] = np.arange(entries.size)
    wanted, places = [], []
    try:
        for where, node in parts:
            taken = entries if where is None else np.flatnonzero(asked[np.asarray(where)])
            place = rank[entries if where is None else np.asarray(where)[taken]]
            size = math.prod(program.shape(node))
            if size == 1 and place.size != 1:
                taken = np.zeros(1, dtype=np.int64)
            elif size != (asked.size if where is None else np.size(where)):
                return None
            wanted.append((node, taken))
            places.append(place)
        need = demand(program, [statements[k] for k in order], wanted)
        if need is None:
            return None
        env = _drawn(w, arguments, shapes, seed)
        env.update((a, Bounded.exact(env[a])) for a in arguments)
        env.update(known)  # what no input reaches, read whole by a statement taken whole
        evaluator, plainly = BoundEvaluator(), ArrayEvaluator()
        total, scale = np.zeros(entries.size), np.zeros(entries.size)
        bound = np.zeros(entries.size)
        with np.errstate(all="ignore"):
            for k in order:
                s = statements[k]
                if k in fixed or s.target not in need:
                    continue  # read whole (known) or by no asked entry
                if need[s.target] is None:
                    run_bounded(evaluator, plainly, s, env)
                else:
                    found = entry_values(program, s.value, need[s.target], env, evaluator)
                    env[s.target] = (need[s.target], found)
            for (node, taken), place in zip(wanted, places, strict=True):
                found = entry_values(program, node, taken, env, evaluator)
                value = np.asarray(plain(found), dtype=float)
                total[place] += value
                scale[place] += np.abs(value)
                bound[place] += np.broadcast_to(bound_of(found), value.shape)
            near = _near(total, scale, bound)
    except (Whole, DGraphError, ArithmeticError, ValueError, TypeError, IndexError, KeyError):
        return None
    if lookups is not None:
        lookups.clear()
        lookups.update(program.lookups)
    out = np.zeros(asked.size, dtype=bool)
    out[entries[near]] = True
    return out


def _argument_shapes(statements, arguments: set[str]) -> dict | None:
    """Each argument's shape, from the statement that reads it
    (``reshape(asarray(x), shape)``); None where one is not found."""
    shapes = dict(filter(None, (read_argument(s.value) for s in statements)))
    if not arguments <= shapes.keys():
        return None
    return shapes


# -- the first point on the lower triangle's program -------------------------------------
#
# A symmetric J in NumPy (a Hessian) is computed by the lower triangle's program, its
# statements folded and narrowed (:mod:`.triangle`): at the first point that program,
# not the whole unfolded one, gives every entry's value (an entry above the diagonal its
# mirror image's), each with its bound (:mod:`~..bounds`). Where an entry is then still
# asked after the later two points, the polynomials need the whole program's values: the
# caller makes the module again with the pass run before the narrowing (:func:`drop_cancelled`).


def asked_later(w, valued: Valued) -> tuple | None:
    """Where ``valued``'s entries can be asked after the narrowing (:func:`none_cancel`)
    rather than by :func:`drop_cancelled` before it, what its values read
    (:func:`_needed`, found before the module lets go of the constants only the folding
    read); None where they cannot. They can in a sparse block in row-major order (its
    values vector in the pattern's order) whose values are one array that reads an input
    (no constant summand to sum exactly, no summands' scale apart), read by no statement
    that stores in place or runs a loop (a narrowed program is then not narrowed, or a
    loop's several values are not one array: :func:`none_cancel` would not decide)."""
    if valued is None or isinstance(valued[0], RunTime):
        return None
    block, values = valued
    if not (isinstance(block, Sparse) and not isinstance(values, Terms) and w.varies(values)):
        return None
    needed = _needed(w, [values])
    statements = w.statements
    if needed is None or any(
        statements[k].at or isinstance(statements[k].value, Loop) for k in needed[0]
    ):
        return None
    return needed


def none_cancel(
    w, drawn: tuple | None, program: list[ArrayStatement], result: str, keep: np.ndarray
) -> bool:
    """Whether no entry of a block that :func:`asked_later` admits is asked after the
    three points (so none is dropped: what :func:`drop_cancelled` finds), each point's
    values those of ``program``, the narrowed statements (``result``: the lower
    entries' values, alone or at their places in the whole vector; the later points at
    the entries still asked alone, :func:`_near_at_entries`). An entry above the
    diagonal is its mirror image's copy: asked where that is. ``drawn``:
    :func:`asked_later`'s (the arguments, drawn as :func:`_at_a_point` draws them);
    ``keep``: the lower entries. False: undecided (an entry still asked, or a point not
    evaluated so)."""
    if drawn is None or any(s.at for s in program):
        return False
    _, arguments, shapes = drawn
    view = _Program(program, w.constants)
    view.cancel_tiers = getattr(w, "cancel_tiers", None)
    needed = _needed(view, [Name(result)])
    if needed is None or not set(needed[1]) <= set(arguments):
        return False
    needed = (needed[0], arguments, shapes)  # drawn as the whole program's are
    point = _narrowed_at_a_point(view, program, result, arguments, shapes, _SEEDS[0], scalar=True)
    if point is None:
        return False
    found, bound = point
    lower = None if found.size == np.count_nonzero(keep) else np.flatnonzero(keep)
    if lower is not None and found.size != keep.size:
        return False
    parts = ((None, Name(result)),)
    if lower is not None:
        found, bound = found[lower], bound[lower]
    named: list = []  # found once, where a point at some entries needs it

    def at_entries(seed: int, asked: np.ndarray, lookups: dict) -> np.ndarray | None:
        """:func:`_near_at_entries` of the lower entries ``asked``, in their order."""
        if not named:
            named.append(_named_shapes(view, needed[0], arguments, shapes))
        if named[0] is None:
            return None
        at = asked
        if lower is not None:  # the lower entries' places in the whole vector
            at = np.zeros(keep.size, dtype=bool)
            at[lower[asked]] = True
        near = _near_at_entries(view, parts, seed, {}, named[0], at, needed, lookups)
        return near if near is None or lower is None else near[lower]

    def whole() -> tuple | None:
        again = _narrowed_at_a_point(view, program, result, arguments, shapes, _SEEDS[0])
        if again is None or lower is None:
            return None if again is None else (parts, [again[0]], [again[1]])
        return parts, [again[0][lower]], [again[1][lower]]

    everything = np.ones(found.size, dtype=bool)
    decided = _decided(
        w, parts, [found], [bound], everything, lambda u: at_entries(_SEEDS[0], u, {}), whole
    )
    asked = None if decided is None else decided[0]
    lookups: dict = {}
    for seed in _SEEDS[1:]:
        if asked is None or not asked.any():
            return asked is not None
        near = at_entries(seed, asked, lookups)
        if near is None:
            return False
        asked &= near
    return not asked.any()


class _Program:
    """Statements and the module's constants, read as the writer's
    (:func:`_near_at_entries`, :func:`_needed`)."""

    def __init__(self, statements: list[ArrayStatement], constants) -> None:
        self.statements, self.constants = statements, constants
        self.cancel_tiers = None


@_screen_trips
def _narrowed_at_a_point(
    w,
    program: list[ArrayStatement],
    result: str,
    arguments: list[str],
    shapes: dict,
    seed: int | str,
    scalar: bool = False,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``result``'s values after ``program`` at the point drawn from ``seed``
    (:func:`_drawn`, the same arguments and order as :func:`_at_a_point`'s) and each
    entry's bound (:mod:`~..bounds`; ``scalar``: its statement's, the cheaper tier);
    each value let go after its last reader. None where it reads an argument not drawn,
    or the evaluator refuses it."""
    env = _drawn(w, arguments, shapes, seed)
    kind = Scalar if scalar else Bounded
    env.update((a, kind.exact(env[a])) for a in arguments)
    made = {s.target for s in program}
    last: dict[str, int] = {}
    for k, s in enumerate(program):
        for name in names_in(s.value):
            last[name] = k
    if not (last.keys() - made) <= env.keys():
        return None
    evaluator, plainly = BoundEvaluator(scalar=scalar), ArrayEvaluator()
    try:
        with np.errstate(all="ignore"):
            for k, s in enumerate(program):
                run_bounded(evaluator, plainly, s, env)
                for name in names_in(s.value):
                    if last[name] == k and name in made and name != result:
                        env.pop(name, None)
            found = env[result]
            value = np.asarray(plain(found), dtype=float).reshape(-1)
            bound = np.broadcast_to(bound_of(found), np.shape(plain(found))).reshape(-1)
    except (DGraphError, ArithmeticError, ValueError, TypeError, IndexError, KeyError):
        return None
    return value, bound


def _named_shapes(w, order: list[int], arguments: list[str], shapes: dict) -> dict | None:
    """The shape of every name the statements ``order`` read or make, found from the
    arguments' and constants' shapes (:func:`~..array_passes.node_shapes`), nothing
    evaluated; None where one is not found."""
    named: dict = {n: np.shape(a) for n, a in w.constants.arrays.items()}
    named.update(getattr(w.constants, "shapes", {}))
    named.update((a, tuple(shapes[a])) for a in arguments)
    for k in order:
        s = w.statements[k]
        shape = node_shapes(s.value, named).get(id(s.value))
        if shape is None:
            return None
        named[s.target] = tuple(shape)
    return named
