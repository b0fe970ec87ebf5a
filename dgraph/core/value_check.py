"""The one value check of dgraph: derivatives that were computed (an expression set's
blocks, generated code) against a derivative that shares no code with them, at the
user's point first, then at random points. Verification, ``make_function``, ``codegen``
and the sweeps all call it; they supply only how to run what they made.

* **Points.** The inputs' values the user gave (:attr:`DGraph.point`: ``from_jax``'s
  example arguments, ``from_function(point=...)``, ``--at``), where the program is finite
  there; then random points, inputs uniform in one of :data:`RANGES` in turn, where it is
  finite (:func:`check_points` for a tensor graph, :func:`scalar_points` for a scalar
  one). A program finite only near the user's point is checked there. A tensor graph's
  vertex may hold an infinity that no partial reads (a masked softmax's ``-inf``
  logits), or a NaN no output reads (a where's untaken case: ``np.nanmean`` of missing
  data): the point is checked where its inputs and outputs are finite and every partial
  an output reads is (:func:`_checkable`); a user's point with a vertex not finite that
  no reference could judge leaves the result not verified.
* **Directions.** Each input's entries normal times their size there (:func:`scaled`):
  a step along the direction moves every entry by the same relative amount (a scalar
  graph's inputs each by its own size, however far apart their scales, where the
  program is finite along that direction only: :func:`_direction`).
* **Reference.** ``J·v`` where the graph was built from a JAX function: JAX's own
  ``jvp`` of it (:attr:`DGraph.jvp_reference`; exact up to rounding); elsewhere central
  differences of the program along the direction (:func:`richardson`: steps t, t/2 and
  t/4 extrapolated twice, error O(t⁴), the steps of :data:`STEPS` tried in turn until one's
  estimated error is small against ``|J|·|v|``); the estimate enters the tolerance, and a
  point no step resolves is not used: one where an entry's slope jumps (a kink, whose
  one-sided slopes differ at every step) among them. At a scalar graph's user point
  where the steps leave the program's domain (``ndtri`` at 1 − 10⁻¹⁰), along a direction
  shrunk there, its steps exact (:func:`edge_differences`). An entry the derivative holds at 0
  whose values do not move at all is judged against the output's largest ``|J|·|v|``.
  ``vᵀ·J`` by the dot-product test wᵀ(J v) = (wᵀJ) v.
  For scalar graphs also the tangent sweep of the graph's own partials
  (:func:`sweep_reference`), and for the residuals of a linear system the solved
  reference (s = -A⁻¹ h(x, 0) and its derivative by NumPy alone).
* **Error.** Entry by entry against ``|J|·|v|`` (every partial and tangent by its
  magnitude: the size of the terms each entry of ``J·v`` sums), so the check does not
  change with the program's scale: ``1e-6*sin(x)`` with a wrong ``sin`` rule fails as
  ``sin(x)`` does (:func:`errors_per_point`). An entry passes when
  ``|got - reference| <= TOLERANCE·unit + 2·estimate``, ``unit`` its ``|J|·|v|`` plus
  :data:`FLOOR` times the largest at that point.
* **Status.** ``wrong`` where anything compared disagrees; ``verified`` where every
  point compared agrees; ``not verified`` where nothing could be compared (the program
  finite nowhere tried, differences that cannot resolve ``J·v``), or where the user's
  point was passed over (not finite there, or a reference that does not hold there:
  :class:`Declined`): never a pass.

An expression set is checked by :func:`check_expression_set` (:class:`ValueCheck`);
generated code by :func:`check_code` (a tensor graph's: the code against the expression
set, whose ``J·v`` is checked as above, at the same points and directions) and
:func:`check_scalar_code` (a scalar graph's), reported as :class:`CodeCheck`.
"""

from __future__ import annotations

import contextlib
import hashlib
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import sympy

from ..blocks import FORGETS, in_scope, to_matrix
from ..blocks.arrays import ArrayOp, operand_values
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..blocks.dynamic_take import DYNAMIC_TAKE
from ..errors import DGraphError
from . import numeric
from .block_values import (
    all_finite,
    edge_parts,
    graph_jvp_and_scale,
    jacobian_blocks,
    jvp_and_scale,
    values_at,
    vertex_values,
    vjp_and_scale,
)
from .breaks import at_a_break
from .elementary import RuleValue, StopGradient, rint
from .graph import vertex_symbol
from .regions import LoopNotStopped, Region, regions_of, trip_limit

if TYPE_CHECKING:
    from .expression_data import ExpressionData
    from .graph import DGraph

__all__ = [
    "DERIVATIVES",
    "FLOOR",
    "KINK",
    "RANGES",
    "RESOLVED",
    "STATUSES",
    "STEPS",
    "TOLERANCE",
    "CheckPoints",
    "CodeCheck",
    "CodeValues",
    "Declined",
    "FinitePoint",
    "Point",
    "ScalarPoints",
    "Status",
    "ValueCheck",
    "check_code",
    "check_code_by_sweep",
    "check_expression_set",
    "check_points",
    "check_scalar_code",
    "check_values",
    "check_whole_jacobian",
    "code_check",
    "code_check_of",
    "cotangent_at",
    "direction_at",
    "errors_per_point",
    "finite_point",
    "no_points",
    "not_run",
    "reference_jvp",
    "richardson",
    "scalar_points",
    "scalar_reference_jvp",
    "scaled",
    "sweep_reference",
    "worst_error",
]

Status = Literal["verified", "not verified", "wrong"]
STATUSES: tuple[Status, ...] = ("verified", "not verified", "wrong")
TOLERANCE = 1e-8  # of |J|·|v|: rounding of J·v either way, never a wrong rule's 1e-3
FLOOR = 1e-6  # of the largest |J|·|v| at a point: an entry's unit is at least this
RESOLVED = 1e-7  # differences decide a point only where their error estimate is below this
STEPS = (1e-3, 1e-2, 1e-4, 1e-5, 1e-6)  # differences' steps t along the scaled direction, in turn
DRAWN_POINT_TRIPS = 10_000  # a while_loop's trips at a random point before it is passed over
RANGES = ((0.5, 1.5), (-1.0, 1.0), (0.05, 0.5), (1.0, 3.0), (-3.0, -0.5))  # random points
UNRESOLVED = "central differences cannot resolve J·v there"  # no step resolves it (richardson)
KINK = "the slope jumps there (a kink: no derivative for central differences to find)"
"""Why :func:`richardson` passes a point over where an entry's one-sided slopes differ
(:func:`_kinked`); also asked where JAX's ``jvp`` checks a point (:func:`_passed_over`)."""
JAX_JVP = "JAX's jvp"  # the reference's name where it is JAX's own jvp
EPS = float(np.finfo(float).eps)
TINY = float(np.finfo(float).tiny)

Apply = Callable[["Point", Mapping[str, np.ndarray]], dict[str, tuple[np.ndarray, np.ndarray]]]


# -- the error measure ---------------------------------------------------------------------


def errors_per_point(got, expected, scale, estimate=0.0) -> np.ndarray:
    """For a batch (first axis: points), the worst ``(|got - expected| - 2·estimate)⁺``
    per point in units of ``scale`` (``|J|·|v|``, broadcast to ``expected``) plus
    :data:`FLOOR` times its largest at that point; infinite where ``got`` is not finite."""
    expected = np.asarray(expected, dtype=float)
    batch = len(expected)
    with np.errstate(all="ignore"):
        got = np.broadcast_to(np.asarray(got, dtype=float), expected.shape).reshape(batch, -1)
        size = np.abs(np.broadcast_to(np.asarray(scale, dtype=float), expected.shape))
        size = size.reshape(batch, -1)
        unit = size + FLOOR * size.max(axis=1, initial=0.0)[:, None] + TINY
        margin = 2 * np.broadcast_to(np.asarray(estimate, dtype=float), expected.shape)
        error = np.abs(got - expected.reshape(batch, -1)) - margin.reshape(batch, -1)
        worst = np.max(np.maximum(error, 0.0) / unit, axis=1, initial=0.0)
    return np.where(np.isfinite(got).all(axis=1) & ~np.isnan(worst), worst, np.inf)


def worst_error(got, expected, scale, estimate=0.0) -> float:
    """:func:`errors_per_point` of one point (flat arrays)."""
    return float(
        errors_per_point(
            np.ravel(got)[None],
            np.ravel(expected)[None],
            np.ravel(scale)[None],
            np.ravel(estimate)[None] if np.ndim(estimate) else estimate,
        )[0]
    )


# -- points and directions -----------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """Where a tensor graph's values are checked: its name in reports, the inputs, every
    vertex's value and the ``stop_gradient`` values to keep
    (:func:`~dgraph.core.block_values.vertex_values`)."""

    label: str
    inputs: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    frozen: dict[int, np.ndarray] = field(default_factory=dict)
    # what was found of the values at the point, kept with it where the point is
    # remembered and its values are not (:func:`_underflowed`)
    memo: dict = field(default_factory=dict, compare=False)


def _finite(values: Mapping[str, np.ndarray]) -> bool:
    return all(np.isfinite(v).all() for v in values.values())


def _checkable(graph: DGraph, values: Mapping[str, np.ndarray]) -> bool:
    """Whether a tensor graph can be checked at a point: every vertex finite there; or
    the inputs and outputs finite, and every edge's partials finite: an infinity no
    derivative reads (``jnp.where(mask, x, -inf)`` then a softmax or ``logsumexp``: the
    masked entries' partials are 0, ``exp(-inf)`` and the select's constant branch), or a
    NaN behind a where's untaken case (``np.nanmean`` of data with missing entries),
    whose partials :func:`~dgraph.core.block_values.edge_parts` sets to 0 where no output
    reads them, so that ``J·v`` is the finite chain of finite partials and is compared as
    anywhere. A partial not finite where an output reads it (``log`` at 0) still passes
    the point over."""
    if _finite(values):
        return True
    ends = [*graph.inputs, *graph.outputs]
    if not all(np.isfinite(values[x]).all() for x in ends if x in values):
        return False
    try:
        with np.errstate(all="ignore"):
            parts = edge_parts(graph, values)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # a rule fails on inf
        return False
    return all(
        value is None or np.isfinite(np.asarray(value)).all()
        for found in parts.values()
        for _, value in found
    )


class FinitePoint(NamedTuple):
    """A random point of a tensor graph where every vertex is finite (:func:`finite_point`)."""

    inputs: dict[str, np.ndarray]
    values: dict[str, np.ndarray]  # every vertex's value there
    frozen: dict[int, np.ndarray]  # the ``stop_gradient`` values to keep
    range: tuple[float, float]  # the inputs were drawn uniform in [low, high)


class CheckPoints(NamedTuple):
    """A tensor graph's points to check at (:func:`check_points`) and why a candidate was
    passed over."""

    points: list[Point]
    notes: list[str]


def index_parameters(graph: DGraph) -> frozenset[str]:
    """The array parameters whose values reach a position: a take's or a scatter's at
    positions computed at run time (``x[p.astype(int)]``, ``np.take``, a floor used as
    an index) or a conversion to integers, directly or through vertices. A random value
    there moves every position (in [0.5, 1.5) all collapse to 0 or 1: a pair of equal
    points, a distance 0), so :func:`finite_point` keeps the user's values of these.
    Found once per graph (``graph.derived``)."""
    if "index_parameters" in graph.derived:
        return graph.derived["index_parameters"]  # type: ignore[return-value]
    parameters = set(graph.parameter_shapes)
    reach: dict[str, set[str]] = {p: {p} for p in parameters}  # name -> parameters in it
    found: set[str] = set()

    def reached(x: Any) -> set[str]:
        names = [x] if isinstance(x, str) else x.vertices() if isinstance(x, ArrayOp) else []
        return set().union(*(reach.get(u, set()) for u in names))

    def positions(op: ArrayOp) -> None:
        pending = [op]
        while pending:
            o = pending.pop()
            if o.primitive in (DYNAMIC_TAKE, DYNAMIC_ADD):
                for x in o.operands[1:2] if o.primitive == DYNAMIC_ADD else o.operands[1:]:
                    found.update(reached(x))
            elif o.primitive == "convert_element_type" and _integer(o):
                found.update(reached(o))
            pending += [x for x in o.operands if isinstance(x, ArrayOp)]

    if parameters:
        for v in graph.order():
            op = graph.op(v)
            if op is None:
                continue
            reach[v] = reached(op)
            if reach[v]:
                positions(op)
    graph.derived["index_parameters"] = frozenset(found)
    return graph.derived["index_parameters"]  # type: ignore[return-value]


def _integer(op: ArrayOp) -> bool:
    dtype = op.param.get("new_dtype")
    try:
        return dtype is not None and np.dtype(dtype).kind in "iub"
    except TypeError:
        return False


def finite_point(graph: DGraph, seed: int = 0) -> FinitePoint | None:
    """The first random point of a tensor graph, inputs uniform in one of :data:`RANGES`
    in turn, where it can be checked (:func:`_checkable`: every vertex finite, or every
    partial); None where there is none. Parameters that reach a position
    (:func:`index_parameters`) keep the values the user gave with the point."""
    kept = {p: v for p, v in graph.parameter_point.items() if p in index_parameters(graph)}
    for attempt, (low, high) in enumerate(RANGES):
        rng = np.random.default_rng([seed, attempt])
        arrays = [*graph.inputs, *graph.parameter_shapes]  # array parameters drawn too
        inputs = {x: rng.uniform(low, high, graph.shape(x)) for x in arrays}
        inputs.update(kept)
        frozen: dict[int, np.ndarray] = {}
        try:  # a loop that does not converge there: passed over as a non-finite point is
            with np.errstate(all="ignore"), trip_limit(DRAWN_POINT_TRIPS):
                values = vertex_values(graph, inputs, frozen)
        except LoopNotStopped:
            continue
        if _checkable(graph, values):
            return FinitePoint(inputs, values, frozen, (low, high))
    return None


class _Lazy(Mapping):
    """Named arrays made by ``_all`` when first read."""

    def _all(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> np.ndarray:
        return self._all()[key]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _Values(_Lazy):
    """Every vertex's value at a point found finite before, evaluated again only when
    first read (:func:`~dgraph.core.block_values.vertex_values`, the ``stop_gradient``
    values kept from the first evaluation)."""

    def __init__(self, graph: DGraph, inputs: Mapping[str, np.ndarray], frozen: dict) -> None:
        self._graph, self._inputs, self._frozen = graph, inputs, frozen
        self._values: dict[str, np.ndarray] | None = None

    def _all(self) -> dict[str, np.ndarray]:
        if self._values is None:
            with np.errstate(all="ignore"):
                self._values = vertex_values(self._graph, self._inputs, dict(self._frozen))
        return self._values

    def all_finite(self) -> bool:
        """:func:`~dgraph.core.block_values.all_finite` of the values, remembered."""
        return all_finite(self._all())


_SHARED_SIZE = 8  # the newest entries a table keeps whatever their size
_SHARED_MOST = 64  # the most entries a table keeps
_SHARED_BYTES = 2**24  # the arrays' bytes past which a table keeps only the newest _SHARED_SIZE


class _Shared(OrderedDict):
    """What the checks of one code generation call share (points, directions, JAX's
    ``J·v``, an expression set's ``J·v``), by key, the least recently used dropped first:
    the newest :data:`_SHARED_SIZE` entries always kept, older ones while the table holds
    at most :data:`_SHARED_BYTES` of arrays and :data:`_SHARED_MOST` entries. A loop
    body's own verification (a few small graphs, each with its points and references)
    runs between an outer graph's expression check and its code check: kept by count
    alone, the outer graph's entries were dropped and found again (its JAX ``jvp`` run
    and its random point searched twice); at 10⁶ unknowns (8 MB an array) the newest
    eight are kept, as before."""

    def __init__(self) -> None:
        super().__init__()
        self._sizes: dict[tuple, int] = {}
        self._held = 0

    def remember(self, key: tuple, entry: Any) -> None:
        """Keep ``entry`` for ``key``, the newest; drop the oldest past the bounds."""
        self.pop(key, None)
        self[key] = entry
        self._sizes[key] = _nbytes(entry)
        self._held += self._sizes[key]
        while len(self) > _SHARED_MOST or (len(self) > _SHARED_SIZE and self._held > _SHARED_BYTES):
            self.popitem(last=False)

    def found(self, key: tuple) -> Any:
        """The entry for ``key`` (then the most recently used), else None."""
        entry = self.get(key)
        if entry is not None:
            self.move_to_end(key)
        return entry

    def pop(self, key: tuple, *default: Any) -> Any:
        self._held -= self._sizes.pop(key, 0)
        return super().pop(key, *default)

    def popitem(self, last: bool = True) -> tuple[Any, Any]:
        key, entry = super().popitem(last)
        self._held -= self._sizes.pop(key, 0)
        return key, entry

    def clear(self) -> None:
        super().clear()
        self._sizes.clear()
        self._held = 0


def _nbytes(entry: Any) -> int:
    """The bytes of the NumPy arrays an entry holds (in tuples, lists and mappings)."""
    if isinstance(entry, np.ndarray):
        return int(entry.nbytes)
    if isinstance(entry, (tuple, list)):
        return sum(_nbytes(x) for x in entry)
    if isinstance(entry, Mapping):
        return sum(_nbytes(x) for x in entry.values())
    return 0


_POINTS = _Shared()  # (graph, version, seed): (graph, [(label, inputs, frozen)], notes)
_REFERENCES = _Shared()  # (graph, version, outputs, point, direction): (graph, JAX's J·v)
FORGETS.extend([_POINTS.clear, _REFERENCES.clear])


USER_POINT = "the user's point"
NOT_FINITE_THERE = "the program is not finite at the user's point"
"""The note of a user's point passed over: a value there is NaN or infinite
(``np.where(x > 0, np.log(x), 0)`` at x = 0: the untaken branch's ``log``), so the
derivatives there are not checked, and a check that agrees elsewhere is not a pass
(:func:`check_values`; the scalar check's rule, :func:`check_scalar_code`). So too where
the values are finite and the reference is not (:data:`NOT_FINITE_REFERENCE`: ``sqrt``'s
partial at 0, a Hessian that overflows)."""
NOT_FINITE_REFERENCE = (
    "JAX's jvp is not finite there",
    "the program is not finite beside the point",
)


class Declined(str):
    """Why the graph's :attr:`~DGraph.jvp_reference` does not hold at a point (it returned
    this line instead of ``J·v``: JAX's ``abs`` rule at a power spectrum's zero bin, where
    the graph computes the true derivative and JAX's is 0). The user's point declined is
    passed over as one that is not finite is: a check that agrees elsewhere is not a pass."""


def check_points(graph: DGraph, seed: int = 0) -> CheckPoints:
    """A tensor graph's points: the user's (where finite) and the first finite random
    one, and why a candidate was passed over. Within one code generation call
    (:func:`dgraph.blocks.scoped`) the points found for a graph (by identity and
    version) and seed are remembered, not their vertex values: a second check there
    (generated code after its expression set) gets the same points, their values
    evaluated again only where it reads them."""
    notes: list[str] = []
    return CheckPoints(list(_points_in_turn(graph, seed, notes)), notes)


def _points_in_turn(graph: DGraph, seed: int, notes: list[str]) -> Iterator[Point]:
    """:func:`check_points`'s points one at a time, each found (its vertex values
    evaluated) only when the one before it has been taken, its notes added to ``notes``
    as they are found: a caller that lets a point go before asking for the next holds
    one point's values at a time (at 10⁶ unknowns some 0.5 GB a point)."""
    if not in_scope():
        yield from _each_check_point(graph, seed, notes)
        return
    key = (id(graph), graph.version, seed)
    found = _POINTS.found(key)
    if found is not None and found[0]() is graph:
        notes.extend(found[2])
        for label, inputs, frozen, memo in found[1]:
            yield Point(label, inputs, _Values(graph, inputs, frozen), frozen, memo)
        return
    kept = []
    for point in _each_check_point(graph, seed, notes):
        kept.append((point.label, point.inputs, dict(point.frozen), point.memo))
        yield point
        del point  # not held while the next one is found
    _POINTS.remember(key, (weakref.ref(graph), kept, list(notes)))


def _each_check_point(graph: DGraph, seed: int, notes: list[str]) -> Iterator[Point]:
    """The user's point (where finite), then the first finite random one, each found
    when asked for; why a candidate was passed over added to ``notes``."""
    given = graph.point
    if given is not None and len(graph.parameter_point) < len(graph.parameter_shapes):
        notes.append("the user's point gives no values for the array parameters")
        given = None
    if given is not None:
        given = {**given, **graph.parameter_point}
        frozen: dict[int, np.ndarray] = {}
        with np.errstate(all="ignore"):
            values = vertex_values(graph, given, frozen)
        if _checkable(graph, values):
            yield Point(USER_POINT, dict(given), values, frozen)
        else:
            notes.append(NOT_FINITE_THERE)
        del values
    drawn = finite_point(graph, seed)
    if drawn is not None:
        low, high = drawn.range
        where = f"a random point in [{low:g}, {high:g})"
        kept = sorted(index_parameters(graph))
        if kept:  # positions at random values would collapse: said, not hidden
            given_there = set(graph.parameter_point)
            held = [p for p in kept if p in given_there]
            drawn_too = [p for p in kept if p not in given_there]
            if held:
                where += f" ({', '.join(held)} at the user's values: they reach an index)"
            if drawn_too:
                where += (
                    f" ({', '.join(drawn_too)} drawn though they reach an index: no values given)"
                )
        yield Point(where, drawn.inputs, drawn.values, drawn.frozen)
    else:
        ask = "" if given is not None else ": give a point where it is (point=, --at)"
        notes.append(f"no random point in {_ranges()} where the program is finite{ask}")


def _ranges() -> str:
    return ", ".join(f"[{lo:g}, {hi:g})" for lo, hi in RANGES)


def scaled(value: np.ndarray, draw: np.ndarray, apart: bool = False) -> np.ndarray:
    """``draw`` times the size of ``value``'s entries (at least 10⁻³ of its largest; 1
    where all are zero): a step along it moves every entry by the same relative amount.
    ``apart``: the entries are inputs of their own (a scalar graph's), each its own size
    and 10⁻³ of the largest only where it is 0, as finite-difference codes scale each
    step, ``h_i ∝ max(|x_i|, typical_i)`` (Dennis and Schnabel 1996, §5.4): a Reynolds
    number 10⁵ beside a roughness 10⁻⁵ moves both by the same relative amount, where
    10⁻³ of the largest (10²) would take the roughness below 0 at any step
    (:func:`_direction` chooses)."""
    value = np.abs(np.asarray(value, dtype=float))
    top = float(value.max(initial=0.0))
    if top == 0:
        return draw * 1.0
    return draw * (
        np.where(value > 0, value, 1e-3 * top) if apart else np.maximum(value, 1e-3 * top)
    )


def direction_at(point: Point, inputs: Iterable[str], seed: int) -> dict[str, np.ndarray]:
    """A random direction at a tensor graph's point (:func:`scaled`), zero for the
    graph's inputs not in ``inputs``."""
    rng = np.random.default_rng([seed, len(RANGES)])
    wanted = set(inputs)
    out = {}
    for x, value in point.inputs.items():
        draw = scaled(value, rng.standard_normal(np.shape(value)))
        out[x] = draw if x in wanted else np.zeros(np.shape(value))
    return out


def cotangent_at(graph: DGraph, seed: int) -> dict[str, np.ndarray]:
    """A random cotangent w, normal entries, one array per output of the graph."""
    rng = np.random.default_rng(seed + 1)
    return {y: rng.standard_normal(graph.shape(y)) for y in graph.outputs}


class _Cotangent(_Lazy):
    """:func:`cotangent_at`, drawn when first read and then kept: generated Jacobian code
    reads no cotangent (its check compares ``J·v`` and F(x)), and at 10⁶ unknowns each
    draw is 10⁶ normal numbers per point."""

    def __init__(self, graph: DGraph, seed: int) -> None:
        self._graph, self._seed = graph, seed
        self._drawn: dict[str, np.ndarray] | None = None

    def _all(self) -> dict[str, np.ndarray]:
        if self._drawn is None:
            self._drawn = cotangent_at(self._graph, self._seed)
        return self._drawn


class _Frozen(Mapping):
    """Named arrays no one writes (each read-only, the mapping private), so that their
    :func:`_digest` is computed once: a direction shared by the checks of one code
    generation call (:func:`_shared_direction`)."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self._arrays = {k: np.asarray(a) for k, a in arrays.items()}  # 0-d scalars too
        for array in self._arrays.values():
            array.flags.writeable = False
        self._hash: bytes | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        return self._arrays[key]

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def digest(self) -> bytes:
        if self._hash is None:
            self._hash = _digest(self._arrays)
        return self._hash


_DIRECTIONS = _Shared()  # (inputs, moved, seed, parameters): (inputs, direction)
FORGETS.append(_DIRECTIONS.clear)


def _shared_direction(
    graph: DGraph, point: Point, inputs: Sequence[str], seed: int
) -> Mapping[str, np.ndarray]:
    """:func:`direction_at` without the array parameters (not differentiated: no
    tangent). Within one code generation call remembered for the point's inputs (the
    mapping :func:`check_points` gives both checks, by identity, kept alive here), the
    inputs moved and the seed, read-only: generated code is checked along the
    direction its expression set's check drew, and the direction is drawn and hashed
    once (at 10⁶ unknowns 10⁶ normal numbers and 8 MB hashed per point and check)."""
    if not in_scope():
        direction = direction_at(point, inputs, seed)
        for p in graph.parameter_shapes:
            direction.pop(p, None)
        return direction
    key = (id(point.inputs), tuple(inputs), seed, tuple(graph.parameter_shapes))
    found = _DIRECTIONS.found(key)
    if found is not None and found[0] is point.inputs:
        return found[1]
    direction = direction_at(point, inputs, seed)
    for p in graph.parameter_shapes:
        direction.pop(p, None)
    frozen = _Frozen(direction)
    _DIRECTIONS.remember(key, (point.inputs, frozen))
    return frozen


# -- the reference: JAX's jvp or differences --------------------------------------------------


Shifted = Callable[[np.ndarray], list[dict[str, np.ndarray]] | None]


def richardson(
    shifted: Shifted,
    unit: Mapping[str, np.ndarray],
    steps: Sequence[float] = STEPS,
    constant: Mapping[str, np.ndarray] | None = None,
    still: Mapping[str, np.ndarray] | None = None,
    symmetric: bool = False,
) -> tuple[dict, dict, str] | str:
    """``J·v`` by central differences along a direction at steps t, t/2, t/4,
    extrapolated twice, for each output of ``unit`` (its ``|J|·|v|`` units), and an
    estimate of the error per entry (the extrapolations' difference plus the rounding of
    the values over the step). ``shifted(h)`` gives the outputs (flat) at the point moved
    by each step of ``h``, None where one is not finite. The step of ``steps`` with the
    smallest estimate relative to ``unit`` (the first below a tenth of :data:`RESOLVED`
    ends the search); why there is none (a string) where no step resolves ``J·v``.
    ``constant`` marks entries the graph's structure holds fixed (no path from a moved
    input): their ``J·v`` is exactly zero, with no error to estimate. ``still`` marks
    entries whose computed ``|J|·|v|`` is zero (a clipped entry, a constant branch):
    where the program's values do not move either, bit for bit at every step, rounding
    hides at most the estimate, which is judged against the output's largest unit, not
    their own, which is only the floor (or zero); where they move but their differences
    are zero within the estimate (a stationary point: a minimum's gradient), it is
    judged against the slope they reach within the step, ``|f(t) + f(-t) - f(t/4) -
    f(-t/4)| / t`` (about ``|f''|·t``): a nonzero ``J·v`` the differences resolve is
    never taken as zero. ``symmetric``: at a kink, the
    symmetric derivative ``lim (f(h) - f(-h)) / 2h`` is what is estimated (|x| at 0: 0;
    a tie of three maxima: the mean of the largest and smallest of their directions),
    settled where the extrapolations settle, not refused for the kink: what the excuse
    of JAX's one-sided rule compares with (:func:`_jax_not_the_derivative`)."""
    if constant is None:
        constant = {}
    if still is None:
        still = {}
    outputs = list(unit)
    best: tuple[float, dict, dict, float, bool] | None = None
    suspect: dict[str, tuple[float, np.ndarray]] = {}  # the first step's kink-like jumps
    for t in steps:
        hs = _shifts(t)
        with np.errstate(all="ignore"):
            moved = shifted(hs)
        if moved is None:
            continue
        value, estimate, ratio, kinks = {}, {}, 0.0, False
        for y in outputs:
            f = [np.ravel(m[y]) for m in moved]
            d = [(f[k] - f[k + 1]) / (2 * hs[k]) for k in (0, 2, 4)]
            r1, r2 = (4 * d[1] - d[0]) / 3, (4 * d[2] - d[1]) / 3
            largest = np.max(np.abs(f), axis=0)
            rounding = 10 * EPS * largest / (t / 4)
            # halving the step divides a smooth function's difference error by 4; one
            # that does not shrink (the step spans a pole beside the point: 1/x² at
            # 1e-9) leaves the extrapolations' spread no estimate of their error. An entry
            # that cancels to 1e-16 carries the rounding of terms the size of the others,
            # and a value that cancels (0.05 of terms up to 2) that of its own terms
            noise = np.maximum(np.max(rounding, initial=0.0), _terms_rounding(unit[y], f, t))
            settled = np.abs(d[2] - d[1]) <= 0.5 * np.abs(d[1] - d[0]) + 2 * noise
            fixed = constant.get(y, False)
            kinked = _kinked(f, t, noise) & ~np.asarray(fixed, dtype=bool)
            kinked &= ~_shrinking_jump(suspect, y, kinked, _jump(f, t), t)
            if not symmetric:
                kinks |= bool((kinked & settled).any())  # the kink alone unsettles them
                settled &= ~kinked
            value[y] = np.where(fixed, 0.0, r2)
            spread = np.where(settled, np.abs(r2 - r1) + rounding, np.inf)
            estimate[y] = np.where(fixed, 0.0, spread)
            quiet = np.logical_and(still.get(y, False), np.all(np.equal(f[1:], f[0]), axis=0))
            quiet &= ~np.asarray(fixed, dtype=bool)  # held fixed: exactly zero, share 0
            top = float(np.max(unit[y], initial=0.0))
            with np.errstate(all="ignore"):
                share = estimate[y] / unit[y]
                share[quiet] = rounding[quiet] / top if top > 0 else 0.0
                # a stationary point (every path's partial zero: a minimum) moves the
                # values at second order; differences that cannot tell their J·v from
                # zero are judged against the slope the values reach within the step
                curve = np.abs(f[0] + f[1] - f[4] - f[5]) / t
                flat = still.get(y, False) & ~quiet & (np.abs(r2) <= 2 * estimate[y])
                flat &= curve > 0
                share[flat] = estimate[y][flat] / curve[flat]
                ratio = max(ratio, float(np.max(share, initial=0.0)))
        if best is None or ratio < best[0]:
            best = (ratio, value, estimate, t, kinks)
        if ratio <= RESOLVED / 10:
            break
    if best is None:
        return "the program is not finite beside the point"
    ratio, value, estimate, t, kinks = best
    if not ratio <= RESOLVED and kinks:
        return KINK
    if not ratio <= RESOLVED:
        return f"{UNRESOLVED} (estimated error {ratio:.1e} of |J|·|v| at the best step)"
    return value, estimate, f"central differences (step {t:g}, Richardson)"


def _shifts(t: float) -> np.ndarray:
    """The shifts :func:`richardson` takes at the step ``t``, in its order."""
    return np.array([t, -t, t / 2, -t / 2, t / 4, -t / 4])


def _terms_rounding(unit: np.ndarray, f: list[np.ndarray], t: float) -> np.ndarray:
    """The rounding of a difference over the step ``t`` that an entry's terms allow,
    from its ``|J|·|v|`` (``unit``): a value summed from terms much larger than itself
    (``Σ x·b`` of 0.05 from terms up to 2) is rounded by ``ε`` times the terms, not the
    value, and its differences carry that over ``t/4``; the direction scales each input
    by its size (:func:`scaled`), so ``|J|·|v|`` is the size of the linear terms. Taken
    only as far as the values ``f`` move over the steps (``|J|·|v|`` of ``x⁶·sin(1/x)``
    at 10⁻¹⁶ is 10¹⁶ times what its values do there: no linear terms of that size), and
    capped at :data:`TOLERANCE`/40 of ``unit``, so that a kink this hides (one-sided
    slopes within 4 times it of their mean: :func:`_kinked`) is within a tenth of the
    comparison's tolerance whichever side is taken."""
    unit = np.abs(np.ravel(np.asarray(unit, dtype=float)))
    unit = np.where(np.isfinite(unit), unit, 0.0)
    terms = np.minimum(unit, np.ptp(np.stack(f), axis=0) / t)
    return np.minimum(10 * EPS * terms / (t / 4), TOLERANCE / 40 * unit)


def _slope_gaps(f: list[np.ndarray], t: float) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided slopes' differences over the outer and the inner half steps, from
    the values at ±t, ±t/2, ±t/4 (``f`` in that order; :func:`_kinked`)."""
    return (f[0] + f[1] - f[2] - f[3]) / (t / 2), (f[2] + f[3] - f[4] - f[5]) / (t / 4)


def _jump(f: list[np.ndarray], t: float) -> np.ndarray:
    """The jump of the one-sided slopes that :func:`_kinked` reads: ``2·inner − outer``,
    a curvature's part cancelled."""
    outer, inner = _slope_gaps(f, t)
    return np.abs(2 * inner - outer)


def _shrinking_jump(
    suspect: dict[str, tuple[float, np.ndarray]],
    y: str,
    kinked: np.ndarray,
    jump: np.ndarray,
    t: float,
) -> np.ndarray:
    """The entries of output ``y`` that :func:`_kinked` finds at step ``t`` and found at an
    earlier step (``suspect``: the first such step's jumps, kept here), whose jump shrank
    to under half over the decade or more between the steps: a kink's (the slopes' jump
    itself) stays, while the values' terms past the curvature give one that shrinks as a
    power of the step — ``|x|³`` at 0 (even part ``2|t|³``) as ``t²``, ``x⁴`` at 0 as
    ``t³``, ``|x|^1.5`` as ``√t`` — and those have a first derivative there."""
    if not np.any(kinked):
        return np.zeros_like(kinked)
    if y not in suspect:
        suspect[y] = (t, np.where(kinked, jump, np.nan))
        return np.zeros_like(kinked)
    first, earlier = suspect[y]
    small, large = (jump, earlier) if t < first else (earlier, jump)
    with np.errstate(invalid="ignore"):
        return kinked & (small < 0.5 * large)


def _kinked(f: list[np.ndarray], t: float, noise: float | np.ndarray) -> np.ndarray:
    """The entries whose slope jumps at the point, from the values at ±t, ±t/2, ±t/4
    (``f`` in that order): the one-sided slopes beside the point differ by
    ``(f(t) + f(-t) - f(t/2) - f(-t/2)) / (t/2)`` over the outer half steps and by the
    same over the inner ones at half the step; a smooth entry's difference halves with the
    step (1.5·f''·t, then 0.75·f''·t), a kink's stays (|x| at 0: 2, then 2). There the
    derivative does not exist: a sorted tie's one-sided choice (JAX's) and the central
    differences' average of the two sides are both generalized derivatives, and the
    differences decide nothing (``np.sort`` at a tie was reported wrong). ``noise``: the
    rounding of the output's largest values over the step, which an entry that cancels
    to 1e-16 (an FFT's imaginary part) carries as the others do.

    A small kink beside a large curvature (one entry of ``np.interp`` at a breakpoint in a
    sum of twenty squares) keeps the ratio near a smooth entry's: the jump itself is
    ``2·inner − outer`` (the curvature's part cancels: a·t·(2·0.75 − 1.5) = 0), the same
    at every step, where a smooth entry's is of order t³ (its fourth derivative), a
    thousandth of the curvature's part at the steps used."""
    outer, inner = _slope_gaps(f, t)
    return (np.abs(inner) > 0.75 * np.abs(outer) + 2 * noise) | (
        _jump(f, t) > 1e-3 * np.abs(outer - inner) + 8 * noise
    )


def _jax_jvp(graph: DGraph, inputs: Mapping, direction: Mapping, outputs: Sequence[str]):
    """JAX's ``jvp`` (flat, zero estimates) where the graph has one that runs here;
    None where it has none; why not (a string) where it is not finite."""
    jvp = graph.jvp_reference
    if jvp is None:
        return None
    with np.errstate(all="ignore"):
        got = jvp(inputs, direction)  # None where it cannot run here
    if got is None:
        return None
    if isinstance(got, str):  # it does not hold at this point, and says why
        return Declined(got)
    exact = {y: np.asarray(got[y], dtype=float).reshape(-1) for y in outputs}
    if not _finite(exact):
        return "JAX's jvp is not finite there"
    return exact, {y: np.zeros_like(v) for y, v in exact.items()}, JAX_JVP


def _shared_jax_jvp(
    graph: DGraph, point: Point, direction: Mapping[str, np.ndarray], outputs: Sequence[str]
):
    """:func:`_jax_jvp` at ``point``; within one code generation call remembered for the
    graph (identity, version), the point (its inputs' bytes) and the direction (its
    bytes): JAX's ``jvp`` is exact and depends on nothing else, so a second check at the
    same point and direction compares with the same reference without running it
    again."""
    if not in_scope():
        return _jax_jvp(graph, point.inputs, direction, outputs)
    key = (id(graph), graph.version, tuple(outputs), _digest(point.inputs), _digest(direction))
    found = _REFERENCES.found(key)
    if found is not None and found[0]() is graph:
        return found[1]
    exact = _jax_jvp(graph, point.inputs, direction, outputs)
    if exact is not None and not isinstance(exact, str):
        for vectors in exact[:2]:
            for array in vectors.values():
                array.flags.writeable = False
    _REFERENCES.remember(key, (weakref.ref(graph), exact))
    return exact


def reference_jvp(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    outputs: Sequence[str],
    unit: Mapping,
    still: Mapping[str, np.ndarray] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], str] | str:
    """A tensor graph's ``J·v`` at ``point`` along ``direction`` for ``outputs`` (flat),
    an estimate of its error per entry, and what it is; or why there is none here (a
    string). JAX's ``jvp`` where there is one, else :func:`richardson` over the array
    program, judged against ``unit`` (each output's ``|J|·|v|`` units; ``still``: the
    entries whose computed ``|J|·|v|`` is zero)."""
    exact = _shared_jax_jvp(graph, point, direction, outputs)
    if exact is not None:
        return exact
    return _differences(graph, point, direction, outputs, unit, still)


def _differences(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    outputs: Sequence[str],
    unit: Mapping,
    still: Mapping[str, np.ndarray] | None = None,
    program: Callable[[dict], Mapping[str, np.ndarray]] | None = None,
    symmetric: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], str] | str:
    """:func:`richardson` of the array program along ``direction`` at ``point``: the
    reference where the graph has no JAX ``jvp`` (:func:`reference_jvp`). ``program``:
    the values differenced, by the inputs (parameters too) moved (default: the graph's
    own, :func:`~dgraph.core.block_values.vertex_values`); ``symmetric``: richardson's."""

    def moved(h: float) -> dict:
        inputs = {**point.inputs}  # array parameters kept
        inputs.update({x: point.inputs[x] + h * direction[x] for x in graph.inputs})
        return inputs

    # a loop's runs are taken at many shifts at once (values_at), each shift's values
    # those of its own run: a step's six, and where they leave J·v unresolved and the
    # loops' bodies take every operation at once (more shifts cost about no more),
    # every other step's; where that raises, shift by shift as before (a shift that
    # raises alone raises there, unless an earlier one is not finite)
    regions = [r for _, r in regions_of(graph)] if program is None else []
    at_once: dict[float, dict] | None = {} if any(isinstance(r, Region) for r in regions) else None
    together = all(isinstance(r, Region) and r.rows_at_once() for r in regions)

    def shifted(hs: np.ndarray) -> list[dict] | None:
        nonlocal at_once
        if at_once is not None and any(h not in at_once for h in hs):
            wanted = [h for t in STEPS for h in _shifts(t) if h not in at_once]
            wanted = wanted if at_once and together else list(hs)
            try:
                found = values_at(graph, [moved(h) for h in wanted], point.frozen, outputs)
                at_once.update(zip(wanted, found, strict=True))
            except Exception:
                at_once = None
        out = []
        for h in hs:
            if at_once is not None and h in at_once:
                values = at_once[h]
            elif program is None:
                values = vertex_values(graph, moved(h), point.frozen)
            else:
                values = program(moved(h))
            moved_values = {y: values[y] for y in outputs}
            if not _finite(moved_values):  # an infinity inside (a mask's -inf before
                return None  # exp): its outputs' differences still measure J·v
            out.append(moved_values)
        return out

    fixed = _unreached(graph, [x for x in direction if x in graph.inputs], outputs)
    constant = {y: np.ones(np.shape(unit[y]), dtype=bool) for y in fixed}
    return richardson(
        shifted,
        {y: unit[y] for y in outputs},
        STEPS,
        constant=constant,
        still=still,
        symmetric=symmetric,
    )


class _Mistranslated(Exception):
    """The graph's program differs from the user's function beside a point."""


def _jax_not_the_derivative(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    got: Mapping[str, tuple[np.ndarray, np.ndarray]],
    jax: Mapping[str, np.ndarray],
    unit: Mapping,
    still: Mapping[str, np.ndarray],
) -> str:
    """Why JAX's ``jvp`` (``jax``, flat per output) is no reference at ``point`` where
    it disagrees with ``got`` (``J·v`` and ``|J|·|v|`` per output), or "". The user's
    function has no derivative there (``|b|`` at a coefficient exactly 0: JAX's rule
    takes +1, the graph's ``sign(0)`` 0) where central differences (:func:`richardson`)
    of the *user's* function, JAX's own primal (:meth:`JaxJvp.primal
    <dgraph.frontends.jaxpr_arrays.JaxJvp.primal>`), never the graph's program (which a
    mistranslated graph shares with its wrong derivative), resolve ``J·v`` to ``got``'s
    and not to JAX's (each beyond the differences' margin: JAX's rule picked a side of a
    kink, the differences average the two). A kink found alone excuses nothing: any
    value would pass there (a rule giving each of three tied maxima 1/2 did). Asked only
    where the graph's program gives the user's values at the point and at every step
    beside it."""
    primal = getattr(graph.jvp_reference, "primal", None)
    if primal is None:
        return ""
    outputs = list(jax)
    largest = max(_largest_finite(v) for v in point.values.values())

    def agreeing(inputs: dict, mine: Mapping[str, np.ndarray]) -> dict:
        theirs = _users_values(primal, inputs, mine, outputs, largest)
        if theirs is None:
            raise _Mistranslated
        return theirs

    def program(inputs: dict) -> dict:
        return agreeing(inputs, vertex_values(graph, inputs, point.frozen))

    try:
        agreeing(dict(point.inputs), point.values)
        with np.errstate(all="ignore"):
            found = _differences(
                graph, point, direction, outputs, unit, still, program, symmetric=True
            )
    except _Mistranslated:
        return ""
    if isinstance(found, str):  # unresolved: nothing excuses the point
        return ""
    value, estimate, _ = found
    mine = {y: np.asarray(got[y][0], dtype=float).reshape(-1) for y in outputs}
    if all(
        worst_error(mine[y], value[y], got[y][1], estimate[y]) <= TOLERANCE for y in outputs
    ) and any(
        not worst_error(jax[y], value[y], got[y][1], estimate[y]) <= TOLERANCE for y in outputs
    ):
        return NOT_JAX_DERIVATIVE
    return ""


def _users_values(
    primal: Callable[[dict], Mapping[str, np.ndarray] | None],
    inputs: dict,
    mine: Mapping[str, np.ndarray],
    outputs: Sequence[str],
    largest: float,
) -> Mapping[str, np.ndarray] | None:
    """The user's function's values at ``inputs`` (JAX's primal) where the graph's,
    ``mine``, are they (each output to :data:`TOLERANCE` of ``largest``); None where they
    are not (a graph whose program is not the user's function)."""
    with np.errstate(all="ignore"):
        theirs = primal(inputs)
    if theirs is None or any(
        not _value_error(mine[y], theirs[y], largest) <= TOLERANCE for y in outputs
    ):
        return None
    return theirs


def _abs_at_zero(graph: DGraph, point: Point) -> str:
    """Why JAX's ``jvp`` and the graph may both be right and differ at ``point``: an
    ``abs`` of an entry exactly 0, where JAX's rule takes +1 and the graph ``sign(0) =
    0`` (the function has no derivative there; a minmod limiter's zero slopes compose
    such kinks, whose symmetric derivative neither gives); "" where no ``abs`` reads a
    zero, or where the graph's values there are not the user's function's (JAX's primal:
    a mistranslated graph is failed, not excused). The point is then not compared and
    the result not verified, never failed for a convention, never verified by it; the
    random points are checked as usual."""
    primal = getattr(graph.jvp_reference, "primal", None)
    largest = max(_largest_finite(x) for x in point.values.values())
    if primal is None or (
        _users_values(primal, dict(point.inputs), point.values, graph.outputs, largest) is None
    ):
        return ""
    for v in graph.intermediates + graph.outputs:
        op = graph.op(v)
        if op is None or op.primitive != "abs" or not isinstance(op.operands[0], str):
            continue
        x = point.values.get(op.operands[0])
        if x is not None and np.any(np.asarray(x) == 0):
            return (
                f"an |x| ({v}) reads an entry exactly 0: JAX's rule takes +1 there, the"
                " graph sign(0) = 0, and the function has no derivative"
            )
    return ""


_WHOLE = (sympy.floor, sympy.ceiling)  # jump where the argument is a whole number
_HALVES = (rint,)  # jumps where the argument is a half (a whole number and ½)
_PIECEWISE = (
    sympy.Max,
    sympy.Min,
    sympy.Abs,
    sympy.sign,
    sympy.Heaviside,
    sympy.Piecewise,
    *_WHOLE,
    *_HALVES,
)
_ORDERINGS = (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


def _scalar_at_a_break(graph: DGraph, values: Mapping[str, float]) -> str:
    """:func:`.at_a_break` of a scalar graph at the vertex ``values`` of a point: which
    vertex expression holds a ``Max``/``Min`` whose largest (smallest) argument is tied,
    an ``Abs``, ``sign`` or ``Heaviside`` of 0, a ``Piecewise`` whose condition's
    ``<``, ``<=``, ``>``, ``>=`` has equal sides there (JAX's ``where``, relu's
    ``x > 0``), a ``floor``/``ceiling`` of a whole number or a ``rint`` of a half (they
    jump there); "" where none does (an argument not evaluated to a number: no break)."""
    for v, atoms in _piecewise_vertices(graph):
        for atom in atoms:
            if isinstance(atom, _WHOLE + _HALVES):
                found = _number(atom.args[0], values)
                if found is None:
                    continue
                half = isinstance(atom, _HALVES)
                if abs(found) % 1 == 0.5 if half else float(found).is_integer():
                    what = "a half" if half else "a whole number"
                    return f"its {type(atom).__name__} ({v}) is at its break there ({what})"
                continue
            if isinstance(atom, sympy.Piecewise):
                sides = [
                    (c.lhs, c.rhs)
                    for _, condition in atom.args
                    if isinstance(condition, sympy.Basic)
                    for c in condition.atoms(*_ORDERINGS)
                ]
            elif isinstance(atom, sympy.Max | sympy.Min):
                sides = [tuple(atom.args)]
            else:
                sides = [(atom.args[0], sympy.S.Zero)]
            for pair in sides:
                found = [_number(e, values) for e in pair]
                if None in found:
                    continue
                top = (min if isinstance(atom, sympy.Min) else max)(found)
                if found.count(top) > 1:
                    name = type(atom).__name__
                    return f"its {name} ({v}) is at its break there (an entry at a tie or 0)"
    return ""


def _piecewise_vertices(graph: DGraph) -> tuple[tuple[str, tuple[sympy.Basic, ...]], ...]:
    """A scalar graph's vertices whose expression holds a piecewise function
    (:data:`_PIECEWISE`), each with those parts; found once per graph
    (``graph.derived``)."""
    if "piecewise_vertices" not in graph.derived:
        found = []
        for v in graph.order():
            expr = graph.expr(v) if graph.role(v) != "input" else None
            parts, pending = [], [] if expr is None else [expr]
            while pending:
                e = pending.pop()
                if isinstance(e, _PIECEWISE):
                    parts.append(e)
                pending.extend(e.args)
            if parts:
                found.append((v, tuple(dict.fromkeys(parts))))
        graph.derived["piecewise_vertices"] = tuple(found)
    return graph.derived["piecewise_vertices"]  # type: ignore[return-value]


def _number(expr: sympy.Basic, values: Mapping[str, float]) -> float | None:
    """``expr``'s value where its symbols are the vertices' ``values``; None where it is
    none (a symbol without a value)."""
    while isinstance(expr, StopGradient):
        expr = expr.args[0]
    if expr.is_Symbol:
        value = values.get(expr.name)
        return None if value is None else float(value)
    numbers = {}
    for s in expr.free_symbols:
        if s.name not in values:
            return None
        numbers[s] = sympy.Float(float(values[s.name]))
    try:
        return float(expr.xreplace(numbers))
    except (TypeError, ValueError):
        return None


def _gradient_break(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    got: Mapping[str, tuple[np.ndarray, np.ndarray]],
    outputs: Sequence[str],
    apply: Apply,
) -> str:
    """Why the user's ``point`` is not compared where the graph's ``J·v`` agrees with
    JAX's ``jvp`` (or with the symmetric differences of the user's function where JAX's
    rule picked a side: :func:`_jax_not_the_derivative`) and a piecewise operation of
    JAX's program is at its break there (:func:`.at_a_break`), which one-sided
    differences of that program do not confirm (:func:`_break_unconfirmed`); "" elsewhere.
    For a Hessian, JAX's gradient program (its reference's ``gradient``); for first
    derivatives, the user's function itself (JAX's ``primal``): relu, ``where(x > 0, x,
    -x)``, ``max(x, y)`` at ``x == y``, a tied ``reduce_max``, ``cond`` at its threshold
    have no derivative there, and JAX's value (½, −1, …) is its rule's convention, kept
    as the values, never verified by it; ``where(x > 0, x², 0)`` at 0 is confirmed. Of
    first derivatives also a comparison within rounding of its tie (``near``): its JAX
    ``jvp`` ran the graph's evaluation, whose rounding picked the branch, and XLA's may
    pick the other (a projection onto a ball at its boundary). Within one code
    generation call remembered as JAX's ``jvp`` is (:func:`_shared_jax_jvp`): the code's
    check asks at the same point and direction with the same ``J·v``."""
    gradient = getattr(graph.jvp_reference, "gradient", False)
    if not gradient and getattr(graph.jvp_reference, "primal", None) is None:
        return ""  # no JAX program to difference
    key = None
    if in_scope():
        key = (id(graph), graph.version, tuple(outputs), _digest(point.inputs), _digest(direction))
        key += (_digest({y: np.asarray(got[y][0]) for y in outputs}), "break")
        found = _REFERENCES.found(key)
        if found is not None and found[0]() is graph:
            return found[1]
    at = at_a_break(graph, point.values, near=not gradient)
    why = _break_unconfirmed(graph, point, direction, got, outputs, apply) if at else ""
    what = "the gradient program" if gradient else "the function"
    why = f"{what} is not confirmed: {at}, and {why}" if why else ""
    if key is not None:
        _REFERENCES.remember(key, (weakref.ref(graph), why))
    return why


BREAK_STEPS = (1e-4, 1e-5)  # one-sided differences' steps at a break, in turn


def _break_unconfirmed(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    got: Mapping[str, tuple[np.ndarray, np.ndarray]],
    outputs: Sequence[str],
    apply: Apply,
) -> str:
    """Why ``J·v`` (``got``, which agrees with JAX's ``jvp``) is not confirmed at
    ``point``, where a piecewise operation of JAX's gradient program is at its break
    (:func:`.at_a_break`), or "". The gradient may jump there (``select(x >= 0, 1, -1)``,
    ``|x|``'s: no Hessian, and JAX's ``jvp`` of it and the graph both say 0) or kink
    (``2|x|``, the gradient of ``x|x|``), or take at the point a branch taken nowhere
    beside it: confirmed only where both one-sided differences of the gradient (JAX's
    own program, its ``primal``), ``(g(t) − g(0))/t`` and ``(g(0) − g(−t))/t``,
    converge to the graph's ``J·v`` as ``t`` shrinks over :data:`BREAK_STEPS` (within
    rounding at the last step, or their distance from it shrunk fivefold over the
    decade: a smooth slope's and ``3x|x|``'s, the gradient of ``|x|³``, shrink tenfold;
    a jump's grows, a kink's or a wrong value's stays; the steps are small, so a
    strongly curved gradient is past its curvature's range, and a kink or an error under
    about 10⁻⁵ of the curvature's term passes), along
    ``direction`` and along it with the sign of every other entry flipped (over all
    inputs in turn). One direction does not decide: ``(|a| + |b|)²`` at 0 has a
    gradient linear along every line through 0, so its differences converge, yet no
    Hessian (``2(|v_a| + |v_b|)·sign(v)``, not linear in ``v``), equal to JAX's ``H·v``
    where ``v``'s two entries have one sign; the flipped direction reverses that. Two
    directions are evidence, not a proof: a point they do not settle is not verified."""
    flipped, k = {}, 0
    for x, d in direction.items():
        d = np.asarray(d, dtype=float)
        signs = np.where((k + np.arange(d.size)) % 2, -1.0, 1.0).reshape(d.shape)
        flipped[x], k = d * signs, k + d.size
    primal = getattr(graph.jvp_reference, "primal", None)
    with np.errstate(all="ignore"):
        at = None if primal is None else primal(dict(point.inputs))
    if at is None:
        return "JAX's program does not run here"
    at = {y: np.ravel(np.asarray(at[y], dtype=float)) for y in outputs}
    for along in (direction, flipped) if k > 1 else (direction,):  # one entry: one line
        with np.errstate(all="ignore"):
            mine = got if along is direction else apply(point, along)
            why = _one_sided_apart(graph, point, along, mine, outputs, primal, at)
        if why:
            return why
    return ""


def _one_sided_apart(
    graph: DGraph,
    point: Point,
    along: Mapping[str, np.ndarray],
    mine: Mapping[str, tuple[np.ndarray, np.ndarray]],
    outputs: Sequence[str],
    primal: Callable[[dict], Mapping[str, np.ndarray] | None],
    at: Mapping[str, np.ndarray],
) -> str:
    """:func:`_break_unconfirmed` along one direction: why the one-sided differences of
    JAX's gradient program (``primal``; ``at``: its values at the point) do not converge
    to ``mine``'s ``J·v``, or ""."""
    apart: dict[str, list[np.ndarray]] = {y: [] for y in outputs}
    close: dict[str, np.ndarray] = {}
    for t in BREAK_STEPS:
        sides = []
        for h in (t, -t):
            inputs = {**point.inputs}
            inputs.update({x: point.inputs[x] + h * along[x] for x in graph.inputs if x in along})
            moved = primal(inputs)
            if moved is None:
                return "JAX's program does not run here"
            sides.append({y: np.ravel(np.asarray(moved[y], dtype=float)) for y in outputs})
        for y in outputs:
            jv = np.asarray(mine[y][0], dtype=float).reshape(-1)
            ahead, behind = (sides[0][y] - at[y]) / t, (at[y] - sides[1][y]) / t
            gap = np.maximum(np.abs(ahead - jv), np.abs(behind - jv))
            if not np.isfinite(gap).all():
                return "the gradient is not finite beside it"
            apart[y].append(gap)
            largest = max(_largest_finite(at[y]), *(_largest_finite(s[y]) for s in sides))
            unit = _units({y: mine[y][1]})[y]
            close[y] = gap <= TOLERANCE * unit + 10 * EPS * largest / t
    for y in outputs:
        first, last = apart[y][0], apart[y][-1]
        if not np.all(close[y] | (last <= 0.2 * first)):
            k = int(np.argmax(np.where(close[y], -np.inf, last)))
            return (
                "its one-sided differences do not converge to J·v there (a jump or a kink:"
                f" {last[k]:.1e} from it at step {BREAK_STEPS[-1]:g},"
                f" {first[k]:.1e} at {BREAK_STEPS[0]:g})"
            )
    return ""


def _not_finite_partial(graph: DGraph, point: Point) -> str:
    """Which local partial is not finite at ``point`` (the first in program order, where
    ``J·v`` came out not finite): ``sqrt`` at 0, ``log`` at 0, ``x**0.5`` at 0, so the
    user can move the program off that value (``np.sqrt(np.maximum(v, eps))``); "" where
    every partial is finite there or a rule fails on the values."""
    try:
        with np.errstate(all="ignore"):
            parts = edge_parts(graph, point.values)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        return ""
    found: list[tuple[str, str, int, np.ndarray]] = []  # (u, v, operand position, partial)
    for (u, v), blocks in parts.items():
        positions = [k for k in graph.op(v).differentiable() if graph.op(v).operands[k] == u]
        for k, (_, value) in zip(positions, blocks, strict=False):
            if value is not None and not np.isfinite(np.asarray(value)).all():
                found.append((u, v, k, np.asarray(value)))
    if not found:
        return ""
    u, v, k, value = found[0]
    op = graph.op(v)
    flat = value.reshape(-1)
    i = int(np.flatnonzero(~np.isfinite(flat))[0])
    kind = "infinite" if np.isinf(flat[i]) else "NaN"
    read = np.asarray(point.values.get(u, np.nan), dtype=float).reshape(-1)
    operands = ", ".join(str(x) if isinstance(x, str) else "a constant" for x in op.operands)
    at = (
        f"at its argument {read[i]:.3g}"
        if len(op.operands) == 1 and read.size == flat.size
        else f"in its operand {k + 1} ({u})"
    )
    where = f"{v} = {op.primitive}({operands})" + (
        f", entry {i + 1} of {flat.size}" if flat.size > 1 else ""
    )
    more = f"; {len(found)} such partials" if len(found) > 1 else ""
    return f": the partial of {op.primitive} {at} is {kind} there ({where}{more})"


def _one_argument_function(expr: sympy.Expr | None) -> str:
    """The name of a function of one vertex (``sqrt`` for ``t**(1/2)``, ``log``), or ""."""
    if expr is None:
        return ""
    if expr.is_Pow and expr.base.is_Symbol and expr.exp.is_Number:
        return "sqrt" if expr.exp == sympy.S.Half else f"x**{expr.exp}"
    if expr.is_Function and len(expr.args) == 1 and expr.args[0].is_Symbol:
        return expr.func.__name__
    return ""


def _scalar_not_finite_partial(graph: DGraph, x: np.ndarray) -> str:
    """:func:`_not_finite_partial` for a scalar graph at the point ``x`` (n,) (with the
    parameters' values given with it): the first edge in evaluation order whose partial
    is not finite there, or ""."""
    free = [q for q in graph.parameters if q not in graph.solved]
    known = graph.parameter_point
    if graph.solved or len(known) < len(free):
        return ""
    params = np.array([[float(known[q]) for q in free]]) if free else None
    try:
        values, labels, _ = _graph_values(graph, x[None, :], params)
    except Exception:  # only a note on a failure already found
        return ""
    if values is None:  # labels only: no vertex values to name
        return ""
    rank = {v: k for k, v in enumerate(graph.order())}
    for u, v in sorted(graph.edges(), key=lambda e: (rank[e[1]], rank[e[0]])):
        label = np.asarray(labels.get(graph.symbol(u, v), 0.0), dtype=float)
        if np.isfinite(label).all():
            continue
        kind = "infinite" if np.isinf(label).any() else "NaN"
        expr, read = graph.expr(v), float(np.asarray(values[u]).reshape(-1)[0])
        text = str(expr) if len(str(expr)) <= 40 else str(expr)[:37] + "..."
        name = _one_argument_function(expr)
        if name:
            return (
                f": the partial of {name} at its argument {read:.3g} is {kind} there ({v} = {text})"
            )
        return f": the partial of {v} = {text} in {u} is {kind} there, where {u} = {read:.3g}"
    return ""


NOT_JAX_DERIVATIVE = (
    "JAX's jvp is not the derivative of the function there: its central differences"
    " resolve J·v to the graph's, not to JAX's (a kink, whose side JAX's rule picks)"
)
"""Why :func:`_jax_not_the_derivative` passes the user's point over where the differences of the
user's function resolve ``J·v`` (to the graph's, away from JAX's)."""


def _scalar_user_differences(
    graph: DGraph, x: np.ndarray, v: np.ndarray, unit: np.ndarray, params: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_jax_not_the_derivative`'s differences for a scalar graph at ``x`` (n,)
    along ``v``: of the user's function (JAX's primal, by element names: :meth:`ElementJvp.primal
    <dgraph.core.expand.ElementJvp.primal>`), where the graph's own values (its vertex
    expressions) give the same at the point and at every step; ``J·v`` and its margin
    (flat over the outputs), or None where they do not resolve it (a kink found alone
    excuses nothing: the point is failed as before)."""
    primal = getattr(graph.jvp_reference, "primal", None)
    if primal is None or graph.solved:
        return None
    outputs = list(graph.outputs)

    def shifted(hs: np.ndarray) -> list[dict] | None:
        rows = x[None, :] + hs[:, None] * v[None, :]
        ps = None if params is None else np.repeat(params[None, :], len(hs), axis=0)
        values = _graph_values(graph, rows, ps)[0]
        if values is None:
            raise _Mistranslated
        largest = np.max(np.abs(np.stack(list(values.values()), axis=-1)), axis=-1)
        out = []
        for b, row in enumerate(rows):
            inputs = {u: np.asarray(row[i]) for i, u in enumerate(graph.inputs)}
            if params is not None:
                inputs |= {p: np.asarray(params[i]) for i, p in enumerate(graph.parameters)}
            theirs = primal(inputs)
            if theirs is None:
                raise _Mistranslated
            got = np.array([float(theirs[y]) for y in outputs])
            mine = np.array([float(values[y][b]) for y in outputs])
            if not _value_error(mine, got, float(largest[b])) <= TOLERANCE:
                raise _Mistranslated
            out.append({"": got})
        return out if all(np.isfinite(o[""]).all() for o in out) else None

    try:
        with np.errstate(all="ignore"):
            shifted(np.zeros(1))  # the point itself
            size = np.asarray(unit, dtype=float)
            found = richardson(shifted, {"": size}, still={"": size == 0}, symmetric=True)
    except _Mistranslated:
        return None
    return None if isinstance(found, str) else (found[0][""], found[1][""])


def _unreached(graph: DGraph, moved: Iterable[str], outputs: Sequence[str]) -> set[str]:
    """The ``outputs`` no path of ``graph`` joins to a ``moved`` input: their values do
    not change along the direction, so their ``J·v`` is exactly zero by the structure
    (a linear objective's gradient: differences there resolve nothing against a zero
    ``|J|·|v|``). One walk from all of them: O(V + E), not a search per input."""
    reached = set(moved)
    stack = list(reached)
    successors = graph.nx.succ
    while stack:
        for w in successors[stack.pop()]:
            if w not in reached:
                reached.add(w)
                stack.append(w)
    return {y for y in outputs if y not in reached}


# -- the check of a tensor graph --------------------------------------------------------------


@dataclass(frozen=True)
class ValueCheck:
    """What the check found: ``status`` one of :data:`STATUSES`, a one-line ``detail``,
    the worst error against the reference in units of ``|J|·|v|`` (None where nothing
    was compared), the reference used, the points checked and, for generated code, its
    worst error per function against the expression set (``code_errors``). True only
    when verified."""

    status: Status
    detail: str
    error: float | None = None
    reference: str = ""
    points: tuple[str, ...] = ()
    code_errors: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code_errors", MappingProxyType(dict(self.code_errors)))

    def __bool__(self) -> bool:
        return self.status == "verified"


def _units(scale: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = {}
    for y, s in scale.items():
        s = np.abs(np.asarray(s, dtype=float).reshape(-1))
        out[y] = s + FLOOR * float(np.max(s, initial=0.0)) + TINY
    return out


# never 0 where the base is finite and not 0: a vertex of these all 0 has underflowed
NEVER_ZERO = ("integer_pow", "pow", "exp", "exp2")


def _never_zero(graph: DGraph) -> list[str]:
    """The vertices of :data:`NEVER_ZERO` operations (found once per graph)."""
    if "never_zero" not in graph.derived:
        graph.derived["never_zero"] = [
            v
            for v in graph.order()
            if (op := graph.op(v)) is not None and op.primitive in NEVER_ZERO
        ]
    return graph.derived["never_zero"]  # type: ignore[return-value]


def _underflowed(graph: DGraph, point: Point) -> frozenset[str]:
    """The vertices every entry of which underflowed to 0 at ``point`` (``x**(10**41)``
    at |x| < 1, ``exp(-1000·x)``): a value that is not 0, and a derivative that is not,
    both rounded to 0, so that ``J·v`` there is 0 whatever rule computed it. A check
    where such a vertex is all 0 at every point compared has not seen its rule. Kept with
    the point: a remembered point's values are not evaluated again for it."""
    if "underflowed" in point.memo:
        return point.memo["underflowed"]
    found = set()
    for v in _never_zero(graph):
        value = np.asarray(point.values[v])
        if value.size == 0 or value.any():
            continue
        op = graph.op(v)
        with np.errstate(all="ignore"):
            base = np.asarray(operand_values(op, point.values)[0], dtype=float)
        if np.isfinite(base).all() and (op.primitive in ("exp", "exp2") or base.all()):
            found.add(v)
    point.memo["underflowed"] = frozenset(found)
    return point.memo["underflowed"]


def _short(expr: sympy.Basic) -> str:
    text = str(expr)
    return text if len(text) <= 40 else f"{text[:30]}…"


def _scalar_underflowed(
    graph: DGraph, values: Mapping[str, np.ndarray] | None, used: Sequence[int]
) -> str | None:
    """A scalar graph's power or exponential vertex (as :data:`NEVER_ZERO`: a power of a
    vertex not 0 there, an ``exp``) 0 at every point ``used``: underflowed, so that the
    code's values there say nothing of its rule (:func:`_underflowed`); None where none."""
    if values is None or not used:
        return None
    at = list(used)
    for v in graph.order():
        e = graph.expr(v)
        if v not in values or not isinstance(e, (sympy.Pow, sympy.exp)):
            continue
        if np.asarray(values[v])[at].any():
            continue
        base = e.base if isinstance(e, sympy.Pow) else None
        if base is None or (base.is_Symbol and base.name in values and
                            np.asarray(values[base.name])[at].all()):  # fmt: skip
            return v
    return None


def check_values(
    graph: DGraph,
    apply: Apply,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]] | None = None,
    seed: int = 0,
    what: str = "J·v",
) -> ValueCheck:
    """Check ``apply(point, direction) -> {output: (J·v, |J|·|v|)}`` (flat arrays) as
    the module says, for each group (inputs the direction moves, outputs compared;
    default: all of them at once) at each point of :func:`check_points`."""
    groups = groups or [(graph.inputs, graph.outputs)]
    found_notes: list[str] = []  # the points' notes, then the checks'
    points = _points_in_turn(graph, seed, found_notes)  # one point's values held at a time
    notes: list[str] = []
    checked: list[str] = []
    worst, used = 0.0, ""
    passed_over = False  # the user's point, where the reference is not finite
    declined = ""  # why the reference does not hold at the user's point
    unseen: frozenset[str] | None = None  # the vertices underflowed at every point compared
    while (point := next(points, None)) is not None:
        usable = True
        passed = False  # JAX's jvp is not the derivative at the user's point
        symmetric = False  # the symmetric differences resolve J·v to the graph's there
        for inputs, outputs in groups:
            direction = _shared_direction(graph, point, inputs, seed)
            with np.errstate(all="ignore"):
                got = apply(point, direction)
            unit = _units({y: got[y][1] for y in outputs})
            still = {y: np.ravel(got[y][1]) == 0 for y in outputs}
            reference = reference_jvp(graph, point, direction, outputs, unit, still)
            if isinstance(reference, str):
                notes.append(f"{reference} ({point.label})")
                usable = False
                if point.label == USER_POINT and reference in NOT_FINITE_REFERENCE:
                    passed_over = True
                if point.label == USER_POINT and isinstance(reference, Declined):
                    declined = str(reference)
                if point.label == USER_POINT and reference == KINK:  # no derivative there
                    declined = f"central differences find {KINK}"
                elif point.label == USER_POINT and reference.startswith(UNRESOLVED):
                    at = at_a_break(graph, point.values)  # a jump: no derivative either
                    declined = f"{at}, and {reference}" if at else declined
                break
            expected, estimate, used = reference
            for y in outputs:
                mine = np.asarray(got[y][0], dtype=float).reshape(-1)
                ratio = worst_error(mine, expected[y], got[y][1], estimate[y])
                exact = not np.any(estimate[y])  # JAX's jvp: no margin, the same measure
                raw = ratio if exact else worst_error(mine, expected[y], got[y][1])
                if not ratio <= TOLERANCE and used == JAX_JVP and point.label == USER_POINT:
                    why = _jax_not_the_derivative(
                        graph, point, direction, got, expected, unit, still
                    )
                    if why:  # passed over as differences pass a kink over, if confirmed
                        notes.append(f"{why} ({point.label})")
                        usable, passed, symmetric = False, True, True
                        break
                    at_zero = _abs_at_zero(graph, point)
                    if at_zero:  # two conventions at a kink: not compared, not verified
                        declined, usable, passed = at_zero, False, True
                        break
                if not ratio <= TOLERANCE:
                    shown = "not finite" if not np.isfinite(mine).all() else f"{ratio:.2g}"
                    partial = "" if shown != "not finite" else _not_finite_partial(graph, point)
                    return ValueCheck(
                        "wrong",
                        f"{what} for {y} at {point.label} differs from {used} by {shown} of"
                        f" |J|·|v| (tolerance {TOLERANCE:.0e}){partial}",
                        ratio,
                        used,
                        (*checked, point.label),
                    )
                worst = max(worst, raw)
            if (symmetric or not passed) and used == JAX_JVP and point.label == USER_POINT:
                why = _gradient_break(graph, point, direction, got, outputs, apply)
                if why:  # the gradient may jump or kink there: not compared, not verified
                    declined, usable, passed = why, False, True
            if passed:
                break
        if usable:
            checked.append(point.label)
            flat = _underflowed(graph, point)
            unseen = flat if unseen is None else unseen & flat
        elif point.label == USER_POINT and not _finite(point.values):
            passed_over = True  # a vertex not finite there, and not compared: no pass elsewhere
        del point  # its values go before the next point's are evaluated
    notes[:0] = found_notes
    if not checked:
        why = "; ".join(notes) or "no point to check at"
        return ValueCheck("not verified", f"values not checked: {why}", None, used)
    more = f" ({'; '.join(notes)})" if notes else ""
    if unseen:
        v = sorted(unseen)[0]
        return ValueCheck(
            "not verified",
            f"values not checked: {graph.op(v).primitive} vertex {v!r} underflows to 0 at"
            f" every entry at {' and '.join(checked)} (its derivative too: {what} there is 0"
            " whatever its rule); give a point where it does not (point=, --at)",
            worst,
            used,
            tuple(checked),
        )
    if declined:  # the user's point not compared: agreeing elsewhere says nothing of it
        return ValueCheck(
            "not verified",
            f"not verified at the user's point, where {declined}; {what} agrees with {used}"
            f" at {' and '.join(checked)} only (largest difference {worst:.0e} of |J|·|v|)",
            worst,
            used,
            tuple(checked),
        )
    if passed_over or NOT_FINITE_THERE in found_notes:  # agreeing elsewhere says nothing
        return ValueCheck(
            "not verified",
            f"not verified at the user's point, where the program or its derivative is not"
            f" finite (its derivatives there may be NaN); {what} agrees with {used} at"
            f" {' and '.join(checked)} only (largest difference {worst:.0e} of |J|·|v|)",
            worst,
            used,
            tuple(checked),
        )
    return ValueCheck(
        "verified",
        f"{what} agrees with {used} at {' and '.join(checked)} (largest difference {worst:.0e}"
        f" of |J|·|v|){more}",
        worst,
        used,
        tuple(checked),
    )


def _groups(es: ExpressionData) -> list[tuple[list[str], list[str]]]:
    """All inputs at once and every output (one with no block too: its ``J·v`` is zero,
    and a graph that lost a dependence JAX sees is caught), or for a selection input by
    input with the outputs it selects."""
    graph = es.graph
    if es.pairs is None:
        return [(list(graph.inputs), list(graph.outputs))]
    by_input: dict[str, list[str]] = {}
    for y, x in es.pairs:
        by_input.setdefault(x, []).append(y)
    return [([x], list(dict.fromkeys(ys))) for x, ys in by_input.items()]


def _unoperated(graph: DGraph) -> ValueCheck | None:
    if any(graph.op(v) is None for v in graph.nx if graph.role(v) != "input"):
        return ValueCheck(
            "not verified", "values not checked: blocks given without the operations computing them"
        )
    return None


def check_expression_set(es: ExpressionData, seed: int = 0) -> ValueCheck:
    """The blocks of ``es`` (a tensor graph's expression set) are the program's
    derivatives: its ``J·v``, applied matrix-free, checked by :func:`check_values`
    (a selection input by input). Not verified where the graph has blocks no operation
    computes (there are no values to check)."""
    return check_code(es, None, seed)


@dataclass(frozen=True)
class CodeValues:
    """What generated code gave at a point: ``J·v`` per output (flat), ``wᵀ·J`` per input
    (flat), F(x) per output (flat); None where the code does not give it."""

    jv: Mapping[str, np.ndarray] | None = None
    wj: Mapping[str, np.ndarray] | None = None
    value: Mapping[str, np.ndarray] | None = None


Run = Callable[[Point, Mapping[str, np.ndarray], Mapping[str, np.ndarray]], CodeValues]


_APPLIED = _Shared()  # (expression set, version, point, direction): (es, (J·v, |J|·|v|))
FORGETS.append(_APPLIED.clear)


def _expressions_jvp(es: ExpressionData, point: Point, direction: Mapping[str, np.ndarray]):
    """:func:`jvp_and_scale` of ``es`` at ``point`` along ``direction``; within one code
    generation call (:func:`dgraph.blocks.scoped`) remembered for the same expression set
    (by identity), graph version, point and direction (their arrays' bytes hashed) and
    forgotten when the call returns: generated code is checked against the expression
    set at the points and directions its own verification used, and its ``J·v`` there,
    the costliest part of the check (1.7 s of CPU at 10⁶ unknowns), is not formed again."""
    if not in_scope():
        return jvp_and_scale(es, point.values, direction)
    key = (id(es), es.graph.version, point.label, _digest(point.inputs), _digest(direction))
    found = _APPLIED.found(key)
    if found is not None and found[0]() is es:
        return found[1]
    jv, size = jvp_and_scale(es, point.values, direction)
    for vectors in (jv, size):
        for array in vectors.values():
            if isinstance(array, np.ndarray):
                array.flags.writeable = False
    _APPLIED.remember(key, (weakref.ref(es), (jv, size)))
    return jv, size


def _digest(arrays: Mapping[str, Any]) -> bytes:
    """A hash of named arrays: names, dtypes, shapes and bytes (SHA-256, which the CPU
    computes in hardware where it can: twice as fast as BLAKE2b over 10⁶ doubles; the
    bytes read in place, not copied)."""
    if isinstance(arrays, _Frozen):
        return arrays.digest()
    found = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        found.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        if array.dtype.hasobject:
            found.update(repr(array.tolist()).encode())
        else:
            found.update(array.reshape(-1).view(np.uint8))
    return found.digest()


def check_code(es: ExpressionData, run: Run | None, seed: int = 0, what: str = "J·v") -> ValueCheck:
    """The expression set's ``J·v`` against the reference (:func:`check_values`) and,
    with ``run(point, v, w)`` (generated code of its graph at a point, along the
    direction v and the cotangent w), the code against the expression set at the same
    points and directions: ``J·v``, ``wᵀ·J`` (and wᵀ(J v) = (wᵀJ) v) and F(x), each in
    units of its magnitudes. Without ``run``: :func:`check_expression_set`."""
    unoperated = _unoperated(es.graph)
    if unoperated is not None:
        return unoperated

    def jvp(point: Point, direction: Mapping) -> tuple[dict, dict]:
        return _expressions_jvp(es, point, direction)

    return _code_against(es.graph, jvp, es, run, _groups(es), seed, what)


def check_code_by_sweep(graph: DGraph, run: Run, seed: int = 0, what: str = "J·v") -> ValueCheck:
    """:func:`check_code` of a generated ``jvp`` (``run`` gives ``J·v`` and F(x), never
    ``wᵀ·J``) against the graph's own tangent sweep
    (:func:`~dgraph.core.block_values.graph_jvp_and_scale`: forward mode's ``J·v``
    without its expression set), which is checked against the reference as an
    expression set is: where no expression set can be priced (a product of blocks too
    large to form) and the code never forms one."""
    unoperated = _unoperated(graph)
    if unoperated is not None:
        return unoperated

    def jvp(point: Point, direction: Mapping) -> tuple[dict, dict]:
        return graph_jvp_and_scale(graph, point.values, direction)

    return _code_against(
        graph, jvp, None, run, [(list(graph.inputs), list(graph.outputs))], seed, what
    )


def _code_against(
    graph: DGraph,
    jvp: Callable[[Point, Mapping], tuple[dict, dict]],
    es: ExpressionData | None,
    run: Run | None,
    groups: list[tuple[list[str], list[str]]],
    seed: int,
    what: str,
) -> ValueCheck:
    """:func:`check_code` against ``jvp(point, direction)`` (``J·v`` and ``|J|·|v|`` per
    output: an expression set's, or the graph's sweep where ``es`` is None)."""
    # the code's errors per point, kept only at the points the reference checks: at one
    # it passes over (a kink, where the slope jumps and rounding picks the side of a tie
    # in max/abs/clip: the code's X@b and NumPy's need not round alike) the code and the
    # expression set may both be right and still differ
    at_point: dict[str, dict[str, float]] = {}
    label = ""

    def record(name: str, error: float) -> None:
        errors = at_point.setdefault(label, {})
        errors[name] = max(errors.get(name, 0.0), error)

    w = _Cotangent(graph, seed)  # the same at every point, drawn where read
    # where JAX's jvp is the reference it checks a kink too (its tie rule), and the code
    # may still round to one side of it: the points where the code disagrees, kept to ask
    # the differences whether they pass the point over (:func:`_passed_over`)
    disagreed: dict[str, list[tuple[Point, Mapping, dict]]] = {}

    def apply(point: Point, direction: Mapping) -> dict:
        nonlocal label
        label = point.label
        jv, size = jvp(point, direction)
        before = _over(at_point.get(label, {}))
        if run is not None:
            got = run(point, direction, w)
            if got.jv is not None:
                for y in jv:
                    record("jvp", _code_error(got.jv[y], jv[y], size[y]))
            if got.wj is not None:
                if es is None:
                    raise ValueError("wᵀ·J is checked against an expression set")
                _compare_vjp(es, point, direction, w, got.wj, jv, size, record)
            if got.value is not None:
                largest = max(_largest_finite(v) for v in point.values.values())
                for y in graph.outputs:
                    record("value", _value_error(got.value[y], point.values[y], largest))
            if graph.jvp_reference is not None and _over(at_point.get(label, {})) > before:
                disagreed.setdefault(label, []).append((point, direction, size))
        found = {y: (jv[y], size[y]) for y in jv}
        for y in graph.outputs:  # no block: J·v is zero, which the reference must be too
            if y not in found:
                zero = np.zeros(np.size(point.values[y]))
                found[y] = (zero, zero)
        return found

    values = check_values(graph, apply, groups, seed, what)
    values = _kinks_passed_over(graph, values, at_point, disagreed)
    errors: dict[str, float] = {}
    for where in values.points or ():
        for name, e in at_point.get(where, {}).items():
            errors[name] = max(errors.get(name, 0.0), e)
    bad = {name: e for name, e in errors.items() if not e <= TOLERANCE}
    if bad:
        name, e = max(bad.items(), key=lambda item: item[1])
        thing = {"jvp": "J·v", "vjp": "wᵀ·J", "value": "F(x)"}[name]
        against = (
            "the graph's tangent sweep" if es is None else f"the expression set's ({es.method})"
        )
        detail = (
            f"the code's {thing} differs from {against} by {e:.2g}"
            f" of its magnitudes (tolerance {TOLERANCE:.0e})"
        )
        return ValueCheck("wrong", detail, values.error, values.reference, values.points, errors)
    return ValueCheck(
        values.status, values.detail, values.error, values.reference, values.points, errors
    )


def _over(errors: Mapping[str, float]) -> int:
    """How many of a point's code errors are over :data:`TOLERANCE`."""
    return sum(1 for e in errors.values() if not e <= TOLERANCE)


def _passed_over(graph: DGraph, point: Point, direction: Mapping, size: Mapping) -> str:
    """Why central differences pass ``point`` over along ``direction`` (:func:`_differences`:
    a kink, :data:`KINK`, where one-sided slopes differ; steps that span other kinks and
    resolve nothing); "" where they resolve ``J·v`` there. The test that passes a point
    over where the reference is differences, asked where JAX's ``jvp`` is (``size``: the
    expression set's ``|J|·|v|`` per output)."""
    outputs = list(size)
    unit = _units(size)
    still = {y: np.ravel(size[y]) == 0 for y in outputs}
    with np.errstate(all="ignore"):
        found = _differences(graph, point, direction, outputs, unit, still)
    return found if isinstance(found, str) else ""


def _kinks_passed_over(
    graph: DGraph,
    values: ValueCheck,
    at_point: Mapping[str, Mapping[str, float]],
    disagreed: Mapping[str, list[tuple[Point, Mapping, dict]]],
) -> ValueCheck:
    """``values`` with the points JAX's ``jvp`` checked where the code disagrees with the
    expression set and central differences pass the point over (:func:`_passed_over`:
    ``max(τr, (τ-1)r)`` at residuals exactly zero, which the code's own ``X @ b`` rounds
    to ±1e-16 and so takes one side of the tie where JAX's rule averages them) taken out,
    as they are where differences are the reference: the code is not failed there. Not
    verified where that is the user's point (the code's answer there is not JAX's, which
    the expression set's is); the code's largest difference there and why differences
    pass it over are in the detail. Asked only where the code agrees at some other point:
    code that disagrees everywhere (a wrong rule) fails without the differences'
    evaluations; where they resolve ``J·v`` (a smooth point) the code fails."""
    if values.status != "verified" or all(_over(at_point.get(p, {})) for p in values.points):
        return values
    why: dict[str, str] = {}
    for where in values.points:
        if _over(at_point.get(where, {})):
            for found in disagreed.get(where, []):
                reason = _passed_over(graph, *found)
                if reason:
                    why[where] = reason
                    break
    if not why:
        return values
    kinked = list(why)
    left = tuple(p for p in values.points if p not in why)
    worst = max(e for where in kinked for e in at_point[where].values())
    note = "; ".join(
        f"at {where} central differences pass over ({reason})" for where, reason in why.items()
    )
    note += (
        f", where the code takes another side than {values.reference} (difference"
        f" {worst:.2g} of its magnitudes): not compared there"
    )
    if USER_POINT in why:
        return replace(
            values,
            status="not verified",
            detail=f"not verified at the user's point: {note}; checked at {' and '.join(left)}",
            points=left,
        )
    return replace(values, detail=f"{values.detail} ({note})", points=left)


Whole = Callable[
    [Point, Mapping[str, np.ndarray]],
    tuple[Mapping[str, np.ndarray], Mapping[str, np.ndarray], Mapping[str, np.ndarray] | None],
]


def check_whole_jacobian(graph: DGraph, run: Whole, seed: int = 0, what: str = "J·v") -> ValueCheck:
    """Generated code that returns the whole Jacobian, checked against the reference
    alone (:func:`check_values`: JAX's ``jvp``, or differences of the array program), no
    expression set between them: ``run(point, v)`` gives the code's ``J·v``, its
    magnitudes ``|J|·|v|`` (the absolute values of the entries it computed, flat per
    output) and F(x) per output (None where the code gives none, else compared with the
    array program's values as :func:`check_code` compares them). The code's own
    ``|J|·|v|`` as the unit is smaller than an expression set's magnitude lane where
    terms cancel (:func:`~dgraph.blocks.arrays.block_magnitude`): rounding there can
    read as an error (a false "wrong", never a false pass), and a caller keeps the
    expression set's check for that case (:mod:`dgraph.codegen.tensor.jacobian_columns`).
    It is what a dense Jacobian of loops by columns is checked by: the expression set's
    ``J·v`` forms each loop's block by a sweep over all the loop's operands' entries,
    T·n² of them in a Hessian's time loop."""
    errors: dict[str, float] = {}

    def apply(point: Point, direction: Mapping) -> dict:
        jv, size, value = run(point, direction)
        if value is not None:
            largest = max(_largest_finite(v) for v in point.values.values())
            for y in graph.outputs:
                e = _value_error(value[y], point.values[y], largest)
                errors["value"] = max(errors.get("value", 0.0), e)
        return {y: (jv[y], size[y]) for y in graph.outputs}

    values = check_values(graph, apply, None, seed, what)
    value = errors.get("value")
    if values.status != "wrong" and value is not None and not value <= TOLERANCE:
        detail = (
            f"the code's F(x) differs from the array program's by {value:.2g} of the largest"
            f" value (tolerance {TOLERANCE:.0e})"
        )
        return ValueCheck("wrong", detail, values.error, values.reference, values.points, errors)
    return ValueCheck(
        values.status, values.detail, values.error, values.reference, values.points, errors
    )


def _largest_finite(value: np.ndarray) -> float:
    """The largest magnitude among ``value``'s finite entries (0 where none is)."""
    value = np.abs(np.asarray(value, dtype=float))
    return float(value[np.isfinite(value)].max(initial=0.0))


def _value_error(got, expected, largest: float) -> float:
    """:func:`worst_error` of the code's F(x) against the program's, in units of
    ``largest`` (the largest finite vertex value), the entries where both are the same
    infinity left out (a ``logsumexp`` of masked entries alone is -inf in both:
    :func:`_checkable`'s points hold infinities no derivative reads)."""
    got = np.ravel(np.asarray(got, dtype=float))
    expected = np.ravel(np.asarray(expected, dtype=float))
    if got.shape == expected.shape:
        keep = ~(np.isinf(expected) & (got == expected))
        got, expected = got[keep], expected[keep]
    return worst_error(got, expected, largest)


def _code_error(got, expected, scale) -> float:
    """:func:`worst_error` of the code's ``J·v`` against its expression set's, the entries
    where both are the same NaN or infinity left out: there the code computes what the
    set does (whether the set is right there is the reference's to say; a NaN in both was
    an error ``inf`` that failed the check at a point the reference passed over)."""
    got = np.ravel(np.asarray(got, dtype=float))
    expected = np.ravel(np.asarray(expected, dtype=float))
    if got.shape != expected.shape:
        return worst_error(got, expected, scale)
    with np.errstate(invalid="ignore"):
        same = ~np.isfinite(expected) & ((got == expected) | (np.isnan(got) & np.isnan(expected)))
    if not same.any():
        return worst_error(got, expected, scale)
    scale = np.broadcast_to(np.ravel(np.asarray(scale, dtype=float)), expected.shape)
    keep = ~same
    return worst_error(got[keep], expected[keep], np.where(np.isfinite(scale), scale, 0.0)[keep])


def _compare_vjp(
    es: ExpressionData,
    point: Point,
    v: Mapping[str, np.ndarray],
    w: Mapping[str, np.ndarray],
    got: Mapping[str, np.ndarray],
    jv: Mapping[str, np.ndarray],
    size: Mapping[str, np.ndarray],
    record: Callable[[str, float], None],
) -> None:
    """The code's ``wᵀ·J`` against the expression set's (applied from the left, matrix-free,
    where that is cheap: :func:`~dgraph.core.block_values.vjp_and_scale`; else its blocks
    materialized), and wᵀ(J v) against (wᵀJ) v, each against its magnitudes."""
    graph = es.graph
    found = vjp_and_scale(es, point.values, w)
    if found is not None:
        wj, bound = found
    else:
        wj = {x: np.zeros(np.size(point.inputs[x])) for x in graph.inputs}
        bound = {x: np.zeros(np.size(point.inputs[x])) for x in graph.inputs}
        for (y, x), part in jacobian_blocks(es, point.values).items():
            if part is not None:
                m = to_matrix(part[0], part[1])
                wj[x] += m.T @ np.ravel(w[y])
                bound[x] += abs(m).T @ np.abs(np.ravel(w[y]))
    for x in graph.inputs:
        record("vjp", _code_error(got[x], wj[x], bound[x]))
    mine = sum(float(np.ravel(got[x]) @ np.ravel(v[x])) for x in graph.inputs)
    theirs = sum(float(np.ravel(w[y]) @ jv[y]) for y in jv)
    terms = sum(float(np.abs(np.ravel(w[y])) @ size[y]) for y in jv)
    record("vjp", _code_error(mine, theirs, terms))


# -- scalar graphs: the tangent sweep of the partials, points, the reference ------------------


def _graph_values(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None = None
) -> tuple[dict[str, np.ndarray] | None, dict, dict]:
    """Vertex values (None without vertex expressions), edge labels and their magnitudes
    (:func:`~dgraph.core.numeric.edge_magnitudes`) at points ``x`` (with the parameters
    ``params``, a row per point)."""
    with np.errstate(all="ignore"):
        try:
            values = numeric.vertex_values(graph, x, params)
        except ValueError:  # labels only: they may read the inputs, nothing else
            labels = _labels_over_inputs(graph, x, params)
            return None, labels, {e: np.abs(c) for e, c in labels.items()}
        except TypeError:  # a math function lambdify could not vectorize (erf): by point
            return _point_by_point(graph, x, params)
        try:
            labels = numeric.edge_values(graph, values)
            return values, labels, numeric.edge_magnitudes(graph, values, labels)
        except TypeError:
            return _point_by_point(graph, x, params)


def _point_by_point(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None
) -> tuple[dict[str, np.ndarray], dict, dict]:
    rows = [
        numeric.vertex_values(graph, point, None if params is None else params[k])
        for k, point in enumerate(x)
    ]
    labels = [numeric.edge_values(graph, row) for row in rows]
    sizes = [numeric.edge_magnitudes(graph, row, c) for row, c in zip(rows, labels, strict=True)]
    values = {v: np.array([row[v] for row in rows], dtype=float) for v in rows[0]}
    return (
        values,
        {e: np.array([row[e] for row in labels], dtype=float) for e in labels[0]},
        {e: np.array([row[e] for row in sizes], dtype=float) for e in sizes[0]},
    )


def _labels_over_inputs(graph: DGraph, x: np.ndarray, params: np.ndarray | None) -> dict:
    known = {vertex_symbol(u): x[..., i] for i, u in enumerate(graph.inputs)}
    if params is not None:
        known.update({vertex_symbol(p): params[..., k] for k, p in enumerate(graph.parameters)})
    labels = {}
    for u, v in graph.edges():
        partial = graph.partial(u, v)
        if partial is None or not partial.free_symbols <= set(known):
            raise DGraphError(f"edge {u} -> {v}: its label cannot be evaluated to check the code")
        args = sorted(partial.free_symbols, key=str)
        f = sympy.lambdify(args, partial, "numpy")
        value = np.asarray(f(*(known[a] for a in args)), dtype=float)
        labels[graph.symbol(u, v)] = np.broadcast_to(value, x.shape[:-1])
    return labels


def _sweep(
    graph: DGraph, labels: Mapping, x: np.ndarray, sizes: Mapping | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian (B, m, n) by the tangent sweep dx_v = Σ c_vu dx_u (Griewank &
    Walther, *Evaluating Derivatives*, ch. 3), and the same sweep over the partials'
    magnitudes ``sizes`` (:func:`~dgraph.core.numeric.edge_magnitudes`: |c_vu|, or the
    size of its terms where they cancel; |c_vu| without them)."""
    n = len(graph.inputs)
    tangent: dict[str, np.ndarray] = {}
    size: dict[str, np.ndarray] = {}
    eye = np.broadcast_to(np.eye(n), (len(x), n, n))
    for j, u in enumerate(graph.inputs):
        tangent[u] = size[u] = eye[:, j, :]
    selections = _selection_edges(graph)
    with np.errstate(all="ignore"):
        for v in graph.order():
            if v in tangent:
                continue
            tangent[v] = np.zeros((len(x), n))
            size[v] = np.zeros((len(x), n))
            for u in graph.predecessors(v):
                c = labels[graph.symbol(u, v)][:, None]
                a = np.abs(c) if sizes is None else sizes[graph.symbol(u, v)][:, None]
                if (u, v) in selections:  # the case not taken: left out, not times 0
                    taken = c != 0
                    tangent[v] = tangent[v] + np.where(taken, c * tangent[u], 0.0)
                    size[v] = size[v] + np.where(taken, a * size[u], 0.0)
                    continue
                tangent[v] = tangent[v] + c * tangent[u]
                size[v] = size[v] + a * size[u]
    jac = np.stack([tangent[y] for y in graph.outputs], axis=1)
    magnitude = np.stack([size[y] for y in graph.outputs], axis=1)
    return jac, magnitude


def _selection_edges(graph: DGraph) -> frozenset[tuple[str, str]]:
    """The edges whose partial is a selection's indicator, ``Piecewise((1, c), (0,
    True))`` or ``Piecewise((0, c), (1, True))`` (a ``where``'s by a case), or 0 itself
    (by its predicate's operand): 0 exactly where that case is not taken, and there its
    tangent is left out of the sweep rather than multiplied by 0, as JAX's ``select_n``
    tangent rule leaves it out (Griewank and Walther 2008, §14.2: the derivative of a
    branch is the taken branch's); the generated code does the same
    (:mod:`dgraph.codegen.untaken_products`). Found once per graph (``graph.derived``)."""
    if "selection_edges" not in graph.derived:
        found = []
        for u, v in graph.edges():
            partial = graph.partial(u, v)
            if partial is not None and partial == 0:  # a predicate's operand: no tangent
                found.append((u, v))
            elif isinstance(partial, sympy.Piecewise) and len(partial.args) == 2:
                (a, _), (b, rest) = partial.args
                if rest is sympy.true and {a, b} == {sympy.S.Zero, sympy.S.One}:
                    found.append((u, v))
        graph.derived["selection_edges"] = frozenset(found)
    return graph.derived["selection_edges"]  # type: ignore[return-value]


def sweep_reference(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None = None
) -> tuple[dict[str, np.ndarray] | None, np.ndarray, np.ndarray]:
    """A scalar graph's vertex values at the points ``x`` (B, n) (None without vertex
    expressions), its Jacobian (B, m, n) by the tangent sweep of its partials, and the
    sweep of their magnitudes (|J|); for a linear system's graph, of its solution."""
    if graph.solved:
        return _solved_reference(graph, x, params)
    values, labels, sizes = _graph_values(graph, x, params)
    return (values, *_sweep(graph, labels, x, sizes))


def _solved_reference(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """s(x) and ds/dx for residuals h(x, s) affine in s, by NumPy alone: h(x, 0) and
    A = ∂h/∂s from the graph's values at s = 0 and at each unit vector, s = -A⁻¹ h(x, 0)
    by ``numpy.linalg.inv``, and -A⁻¹ times the tangent sweep of ∂h/∂x at s. The values
    returned hold s and the residuals there (zero only when h is affine in s)."""
    batch, n = len(x), len(graph.solved)
    free = [p for p in graph.parameters if p not in graph.solved]

    def residuals(s: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        given = dict(zip(graph.solved, s.T, strict=True))
        given.update({p: params[:, k] for k, p in enumerate(free)} if params is not None else {})
        full = np.stack([np.broadcast_to(given[p], (batch,)) for p in graph.parameters], axis=-1)
        with np.errstate(all="ignore"):
            values = numeric.vertex_values(graph, x, full)
        return values, np.stack([values[y] for y in graph.outputs], axis=-1)

    _, at_zero = residuals(np.zeros((batch, n)))
    eye = np.eye(n)
    matrix = np.stack([residuals(np.tile(eye[k], (batch, 1)))[1] - at_zero for k in range(n)], -1)
    with np.errstate(all="ignore"):
        inverse = _inverses(matrix)
        s = -np.einsum("bij,bj->bi", inverse, at_zero)
        values, _ = residuals(s)
        jac, magnitude = _sweep(graph, numeric.edge_values(graph, values), x)
        jac = -np.einsum("bij,bjk->bik", inverse, jac)
        magnitude = np.einsum("bij,bjk->bik", np.abs(inverse), magnitude)
    values = dict(values)
    values.update(zip(graph.solved, s.T, strict=True))
    return values, jac, magnitude


def _inverses(matrix: np.ndarray) -> np.ndarray:
    """Each matrix's inverse; NaN where one is singular (that point is not used)."""
    out = np.full(matrix.shape, np.nan)
    for k, a in enumerate(matrix):
        with contextlib.suppress(np.linalg.LinAlgError, ValueError):
            out[k] = np.linalg.inv(a)
    return out


@dataclass(frozen=True)
class ScalarPoints:
    """A scalar graph's points (B, n), the free parameters' values at each (B, k; None
    without), whether the first is the user's, and a direction per point (B, n)
    (:func:`scaled`) and a cotangent (B, m); ``dropped``: the user's point, where the
    graph's values or partials are not finite (so none of the points is it)."""

    x: np.ndarray
    params: np.ndarray | None
    given: bool
    v: np.ndarray
    w: np.ndarray
    dropped: tuple[float, ...] | None = None


def _finite_rows(graph: DGraph, x: np.ndarray, p: np.ndarray | None) -> np.ndarray:
    """The points where the outputs, the sweep of the partials and of their magnitudes are
    finite and no vertex is NaN: as :func:`_checkable` for a tensor graph, an infinity no
    derivative reads (``max`` of ``where(mask, x, -inf)``) is passed (a partial not finite
    on a path from the inputs makes the sweep NaN). A NaN is not: the scalar code's
    products do not keep a where's zeros structural (``nansum`` of ``where(m, x, nan)``)."""
    values, jac, magnitude = sweep_reference(graph, x, p)
    finite = np.isfinite(magnitude).all(axis=(1, 2)) & np.isfinite(jac).all(axis=(1, 2))
    outputs = set(graph.outputs)
    for v, value in (values or {}).items():
        finite &= np.isfinite(value) if v in outputs else ~np.isnan(value)
    return finite


def scalar_points(graph: DGraph, count: int, seed: int = 0) -> ScalarPoints:
    """Up to ``count`` points of a scalar graph where every vertex value and the sweep of
    the partials are finite: the user's point (:attr:`DGraph.point`) first, then drawn
    from :data:`RANGES` in order; with parameters, their values at each (drawn from the
    first range: masses and lengths are often positive; at the user's point the values
    given with it, :attr:`DGraph.parameter_point`). Raises what evaluating the graph
    raises."""
    rng = np.random.default_rng(seed)
    n, k = len(graph.inputs), len(graph.parameters) - len(graph.solved)
    chosen: list[np.ndarray] = []
    chosen_params: list[np.ndarray] = []
    given = graph.point
    first = False
    if given is not None:
        x = np.array([[float(given[u]) for u in graph.inputs]])
        p = rng.uniform(*RANGES[0], size=(1, k)) if k else None
        known = graph.parameter_point  # the parameters' values the user gave with the point
        if k and len(known) == k:
            free = [q for q in graph.parameters if q not in graph.solved]
            p = np.array([[float(known[q]) for q in free]])
        if _finite_rows(graph, x, p)[0]:
            chosen.append(x[0])
            first = True
            if p is not None:
                chosen_params.append(p[0])
    for lo, hi in RANGES:
        if len(chosen) >= count:
            break
        x = rng.uniform(lo, hi, size=(2 * count, n))
        p = rng.uniform(*RANGES[0], size=(2 * count, k)) if k else None
        finite = _finite_rows(graph, x, p)
        chosen.extend(x[finite])
        if p is not None:
            chosen_params.extend(p[finite])
    x = np.array(chosen[:count]).reshape(-1, n)
    params = np.array(chosen_params[:count]).reshape(-1, k) if k else None
    m = len(graph.solved) or len(graph.outputs)
    draws = rng.standard_normal((len(x), n))
    rows = [None if params is None else params[[j]] for j in range(len(x))]
    v = np.array([_direction(graph, *a) for a in zip(x, draws, rows, strict=True)]).reshape(-1, n)
    w = rng.standard_normal((len(x), m))
    dropped = None if given is None or first else tuple(float(given[u]) for u in graph.inputs)
    return ScalarPoints(x, params, first, v, w, dropped)


def _direction(graph: DGraph, row: np.ndarray, draw: np.ndarray, p: np.ndarray | None):
    """A scalar graph's direction at ``row``: :func:`scaled` (each input at least 10⁻³
    of the largest), unless the program is finite along it at none of :data:`STEPS`
    and is along each input scaled by its own size (``apart``): a roughness 10⁻⁵ beside
    a Reynolds number 10⁶ is taken below 0 by 10⁻³ of 10⁶ at any step, where an input
    10⁻⁵ beside values near 1 (``exprel``) needs the larger step to move them past
    their rounding."""
    v = scaled(row, draw)
    apart = scaled(row, draw, apart=True)
    if np.array_equal(v, apart) or _steppable(graph, row, v, p):
        return v
    return apart if _steppable(graph, row, apart, p) else v


def _steppable(graph: DGraph, row: np.ndarray, v: np.ndarray, p: np.ndarray | None) -> bool:
    """Whether the graph's values and partials are finite at ``row ± h·v`` for the
    :func:`richardson` steps h of one of :data:`STEPS`."""
    hs = np.array([(t, -t, t / 2, -t / 2, t / 4, -t / 4) for t in STEPS]).reshape(-1)
    moved = row + hs[:, None] * v
    params = None if p is None else np.repeat(p, len(moved), axis=0)
    with np.errstate(all="ignore"):
        finite = _finite_rows(graph, moved, params).reshape(len(STEPS), 6)
    return bool(finite.all(axis=1).any())


def no_points(count: int) -> str:
    """Why :func:`scalar_points` found too few points."""
    return f"no {count} points in {_ranges()} where the function and partials are finite"


def scalar_reference_jvp(
    graph: DGraph,
    x: np.ndarray,
    v: np.ndarray,
    unit: np.ndarray,
    primal: Callable[[np.ndarray], np.ndarray] | None = None,
    params: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, str] | str | None:
    """A scalar graph's ``J·v`` at the point ``x`` (n,) along ``v`` for the functions'
    outputs, an estimate of its error, and what it is: JAX's ``jvp`` where the graph has
    one (``params``: the parameters' values there, in :attr:`DGraph.parameters`' order),
    else :func:`richardson` over ``primal`` (points (B, n) to values (B, m)), judged
    against ``unit`` (``|J|·|v|``); why there is none here (a string); None without
    ``primal`` or JAX (only the partials can be compared)."""
    outputs = list(graph.solved) or graph.outputs
    if not graph.solved and (not graph.parameters or params is not None):
        inputs = {u: np.asarray(x[i]) for i, u in enumerate(graph.inputs)}
        inputs |= {p: np.asarray(params[i]) for i, p in enumerate(graph.parameters)}
        direction = {u: np.asarray(v[i]) for i, u in enumerate(graph.inputs)}
        exact = _jax_jvp(graph, inputs, direction, outputs)
        if exact is not None:
            if isinstance(exact, str):
                return exact
            value, estimate, label = exact
            return _stacked(value, outputs), _stacked(estimate, outputs), label
    if primal is None:
        return None
    if _stops_gradients(graph):
        return "central differences move the values stop_gradient holds"

    def shifted(hs: np.ndarray) -> list[dict] | None:
        rows = np.asarray(primal(x[None, :] + hs[:, None] * v[None, :]), dtype=float)
        rows = rows.reshape(len(hs), -1)
        return [{"": row} for row in rows] if np.isfinite(rows).all() else None

    moved = [u for u, vu in zip(graph.inputs, v, strict=True) if vu]
    fixed = set() if graph.solved else _unreached(graph, moved, outputs)  # s: no vertex
    constant = {"": np.isin(outputs, list(fixed))}
    found = richardson(shifted, {"": unit}, constant=constant, still={"": unit == 0})
    if isinstance(found, str):
        return found
    value, estimate, label = found
    return value[""], estimate[""], label


def _stops_gradients(graph: DGraph) -> bool:
    """Whether a vertex expression holds a value out of differentiation (the element
    level's ``stop_gradient``): the derivative of its values is then not its ``J``. A
    log-sum-exp's shift (:class:`~dgraph.core.elementary.ShiftHeld`) is not: its value
    cancels."""
    return any(
        e is not None
        and (e.has(RuleValue) or any(type(a) is StopGradient for a in e.atoms(StopGradient)))
        for e in (graph.expr(v) for v in graph.order() if graph.role(v) != "input")
    )


def _stacked(parts: Mapping[str, np.ndarray], outputs: Sequence[str]) -> np.ndarray:
    return np.concatenate([np.ravel(parts[y]) for y in outputs])


# -- generated code's result ----------------------------------------------------------------

DERIVATIVES = ("jacobian", "jvp", "vjp", "value_and_jacobian")


@dataclass(frozen=True)
class CodeCheck:
    """What a check of generated code found: ``ok`` only when every comparison ran and
    agreed; ``ran`` False when nothing could be compared (no compiler, no finite point, a
    reference that resolves nowhere): ``status`` is then ``not verified``.

    ``errors``: per generated function, its worst error against the graph's partials or
    the expression set (``primal`` and ``value``: against the program's values), in units
    of the magnitudes (``|J|·|v|``); ``difference_error``: the worst error of ``J·v`` against
    the reference (JAX's ``jvp`` or central differences), in the same units."""

    ok: bool
    ran: bool
    detail: str
    errors: Mapping[str, float] = field(default_factory=dict)
    difference_error: float | None = None
    points: tuple[tuple[float, ...], ...] = ()
    parameters: tuple[tuple[float, ...], ...] = ()  # at each point, when the graph has any
    skipped: tuple[float, ...] | None = None  # a point the differences could not resolve
    against: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "errors", MappingProxyType(dict(self.errors)))

    def __bool__(self) -> bool:
        return self.ok

    @property
    def status(self) -> Status:
        """``verified`` (ran and agreed), ``wrong`` (ran and disagreed) or ``not
        verified`` (could not be run or compared anywhere): never a pass unless run."""
        return "verified" if self.ok else "wrong" if self.ran else "not verified"

    def summary(self) -> str:
        """One line for the ``dgraph codegen`` report."""
        if not self.ok:
            return ("NOT checked: " if not self.ran else "check FAILED: ") + self.detail
        derivatives = [f for f in DERIVATIVES if f in self.errors]
        worst = max((self.errors[f] for f in derivatives), default=0.0)
        verb = "agree" if len(derivatives) > 1 else "agrees"
        text = (
            f"checked: {', '.join(derivatives)} {verb} with the graph's partials at "
            f"{len(self.points)} points (max error {worst:.0e} of |J|·|v|)"
        )
        if self.difference_error is not None:
            reference = self.against[-1] if self.against else "the reference"
            text += f"; J·v agrees with {reference} to {self.difference_error:.0e}"
            if self.skipped is not None:
                text += " (one point on a kink replaced)"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The ``check`` object of ``dgraph codegen --json``."""
        return {
            "ok": self.ok,
            "ran": self.ran,
            "status": self.status,
            "detail": self.detail,
            "errors": dict(self.errors),
            "difference_error": self.difference_error,
            "points": [list(p) for p in self.points],
            "parameters": [list(p) for p in self.parameters],
            "skipped": None if self.skipped is None else list(self.skipped),
            "against": list(self.against),
            "tolerance": TOLERANCE,
        }


def code_check(
    values: ValueCheck,
    code: str,
    function: str,
    method: str,
    against: str = "the expression set's blocks",
) -> CodeCheck:
    """A tensor graph's code check (:func:`~dgraph.core.value_check.check_code`) as a
    :class:`CodeCheck`: ``code`` names what ran in its detail, ``function`` the generated
    function its ``J·v`` or ``wᵀ·J`` error is reported under, ``method`` the expression
    set's, ``against`` what the code was compared with (:func:`check_code_by_sweep`:
    the graph's tangent sweep)."""
    errors = {
        function if k in ("jvp", "vjp") else k: e
        for k, e in values.code_errors.items()
        if k != "value"
    }
    shown = ", ".join(f"{e:.0e}" for e in errors.values())
    detail = (
        f"{code} at {' and '.join(values.points) or 'the points tried'} against"
        f" {against} ({method}; error {shown} of the magnitudes, tolerance"
        f" {TOLERANCE:.0e})"
    )
    return code_check_of(values, detail, errors, (against, values.reference))


def code_check_of(
    values: ValueCheck, detail: str, errors: dict[str, float], against: tuple[str, ...]
) -> CodeCheck:
    """The :class:`CodeCheck` of a code check that ran (``values``): not verified where
    nothing could be compared, else ``detail`` (what ran, against what) with the F(x)
    error where there is one, and the verdict."""
    if values.status == "not verified":
        return CodeCheck(False, False, values.detail, against=(values.reference,))
    ok = values.status == "verified"
    errors = dict(errors)
    if "value" in values.code_errors:
        errors["value"] = values.code_errors["value"]
        detail += f", its F(x) against the array program (error {errors['value']:.0e})"
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + f"{detail}; {values.detail}",
        errors=errors,
        difference_error=values.error,
        against=against,
    )


def not_run(detail: str) -> CodeCheck:
    """Not verified: nothing could be run or compared (``detail`` says why)."""
    return CodeCheck(ok=False, ran=False, detail=detail)


Call = Callable[..., Any]  # call(function name, *arrays, params=rows or None) -> its result


def check_scalar_code(
    graph: DGraph, call: Call, programs: Sequence[str], count: int = 4, seed: int = 0
) -> CodeCheck:
    """Generated code of a scalar graph, its functions ``programs`` run by ``call(name,
    *arrays, params=rows)`` (``rows``: the free parameters, one row per point, or None),
    checked at ``count`` points of :func:`scalar_points`: ``jacobian``, ``jvp``, ``vjp`` and
    ``value_and_jacobian`` against the tangent sweep of the partials (:func:`sweep_reference`),
    ``primal`` against the graph's values, and ``J·v`` against :func:`scalar_reference_jvp`
    (for ``vjp`` the dot-product test), each against its magnitudes with :data:`TOLERANCE`.
    A point where the reference cannot resolve ``J·v`` (a kink, perhaps) is replaced by a
    spare once; where it resolves at no point, or not at the user's point (``xlogy(x,
    x)`` at 0: the program is not finite beside it), not verified."""
    try:
        pool = scalar_points(graph, count + 1, seed)
        reference = sweep_reference(graph, pool.x, pool.params)
    except DGraphError as exc:  # the reference cannot be evaluated: nothing to compare with
        return not_run(str(exc))
    except Exception as exc:
        return not_run(f"the graph's partials cannot be evaluated ({type(exc).__name__})")
    if len(pool.x) < count and not (len(pool.x) and pool.given):
        return not_run(no_points(count))
    count = min(count, len(pool.x))  # fewer: the user's point and what else is finite
    names = [f for f in DERIVATIVES if f in programs]
    run = _Run(call, pool.params)
    try:
        with np.errstate(all="ignore"):
            got = {f: run(f, *_arguments(f, pool)) for f in (*names, "primal") if f in programs}
            errors = _sweep_errors(got, graph, reference, pool)
            primal = run.primal if "primal" in programs else None
            refs = _References(graph, got, reference, pool, primal)
            used, skipped = refs.choose(count)
    except Exception as exc:  # the generated code itself raised: it does not work
        message = str(exc).splitlines()[0] if str(exc) else ""
        detail = f"running the generated code failed: {type(exc).__name__}: {message}"
        return CodeCheck(ok=False, ran=True, detail=detail)
    verdict = _verdict(errors, refs, pool, used, skipped, names)
    if verdict.ok and pool.dropped is not None:  # agreeing elsewhere says nothing of it
        at = np.array(pool.dropped)
        detail = (
            f"the graph's values or partials are not finite at the given point x ="
            f" {_point(at)}{_scalar_not_finite_partial(graph, at)}; checked only at other"
            " points"
        )
        return replace(verdict, ok=False, ran=False, detail=detail)
    flat = _scalar_underflowed(graph, reference[0], used) if verdict.ok else None
    if flat:  # J·v there is 0 whatever the rule: the check saw nothing of it
        detail = (
            f"vertex {flat!r} ({_short(graph.expr(flat))}) underflows to 0 at every point compared"
            " (its derivative too: the code's values there are 0 whatever its rule); give a"
            " point where it does not (point=, --at)"
        )
        return replace(verdict, ok=False, ran=False, detail=detail)
    passed = refs.at(0) if pool.given and names else None
    # nor of the user's point where nothing was compared (where the differences of the
    # user's function took the graph's side of a kink JAX's rule picked, they were)
    if verdict.ok and isinstance(passed, str) and passed != NOT_JAX_DERIVATIVE:
        detail = (
            f"J·v not compared at the given point x = {_point(pool.x[0])}: {refs.at(0)};"
            " checked only at other points"
        )
        return replace(verdict, ok=False, ran=False, detail=detail)
    return verdict


class _Run:
    """Generated functions called with the free parameters' rows (one per point; for a
    batch of steps at one point, that point's row repeated) as the last argument."""

    def __init__(self, call: Call, params: np.ndarray | None) -> None:
        self.call, self.params = call, params

    def __call__(self, name: str, *arrays: np.ndarray, at: int | None = None):
        if self.params is None:
            return self.call(name, *arrays, params=None)
        rows = self.params if at is None else np.repeat(self.params[at : at + 1], len(arrays[0]), 0)
        return self.call(name, *arrays, params=rows)

    def primal(self, k: int) -> Callable[[np.ndarray], np.ndarray]:
        """``primal`` at a batch of points beside point ``k`` (with its parameters)."""
        return lambda xs: self("primal", xs, at=k)


def _arguments(f: str, pool: ScalarPoints) -> tuple[np.ndarray, ...]:
    return (pool.x, pool.v) if f == "jvp" else (pool.x, pool.w) if f == "vjp" else (pool.x,)


def _sweep_errors(got: dict, graph: DGraph, reference: tuple, pool: ScalarPoints) -> dict:
    """Per function, per point: the error against the tangent sweep in units of its
    magnitudes (``primal`` and the value of ``value_and_jacobian``: against the graph's
    values in units of the largest vertex value)."""
    values, jac, magnitude = reference
    v, w = pool.v, pool.w
    errors: dict[str, np.ndarray] = {}
    expected = largest = None
    if values is not None:
        expected = np.stack([values[y] for y in list(graph.solved) or graph.outputs], axis=-1)
        largest = np.max(np.abs(np.stack(list(values.values()), axis=-1)), axis=-1)[:, None]
    for f, result in got.items():
        if f == "primal":
            if values is None:
                continue
            errors[f] = errors_per_point(result, expected, largest)
            if graph.solved:  # s solves h(x, s) = 0 only where h is affine in s
                residual = np.stack([values[y] for y in graph.outputs], axis=-1)
                errors[f] = np.fmax(errors[f], errors_per_point(residual, 0 * residual, largest))
        elif f == "jacobian":
            errors[f] = errors_per_point(result, jac, magnitude)
        elif f == "value_and_jacobian":
            value, jacobian = result
            errors[f] = errors_per_point(jacobian, jac, magnitude)
            if values is not None:
                errors[f] = np.fmax(errors[f], errors_per_point(value, expected, largest))
        elif f == "jvp":
            scale = np.einsum("bij,bj->bi", magnitude, np.abs(v))
            errors[f] = errors_per_point(result, np.einsum("bij,bj->bi", jac, v), scale)
        else:
            scale = np.einsum("bi,bij->bj", np.abs(w), magnitude)
            errors[f] = errors_per_point(result, np.einsum("bi,bij->bj", w, jac), scale)
    return errors


EDGE_SHRINK = 1e-2  # an entry's step shrunk this far inside where the program is finite


def edge_differences(
    primal: Callable[[np.ndarray], np.ndarray], x: np.ndarray, v: np.ndarray, magnitude
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str] | str:
    """``J·u`` at the point ``x`` (n,) by central differences along a direction ``u`` made
    from ``v`` where the differences along ``v`` leave the program's domain at every step
    (the user's point 10⁻¹⁰ below ``ndtri``'s edge at 1): ``J·u`` (m,), its error
    estimate, ``u`` and what it is; why not (a string).

    Each entry of ``v`` is shrunk by powers of 10 until the program is finite a step of
    :data:`STEPS`' first to either side along that entry alone, then :data:`EDGE_SHRINK`
    further (the distance to a singularity bounds the steps that converge). So small a
    step moves such an entry by a few hundred of its units in the last place, where the
    rounding of ``x + h·u`` would be 10⁻³ of the step: each entry's displacement ``d`` is
    a multiple of four of its ulps, so that ``x ± d``, ``x ± d/2``, ``x ± d/4`` are exact
    (checked), and :func:`richardson` runs over those (``u = d/t``). ``magnitude`` is
    ``|J|`` (m, n): the estimate is judged against ``|J|·|u|``."""
    n = len(x)
    scale = np.ones(n)
    t0 = STEPS[0]
    for i in np.flatnonzero(v):
        # down to a step of some 64 units in the last place of the entry
        lowest = np.log10(t0 * abs(v[i])) - np.log10(64 * np.spacing(abs(x[i])))
        lowest = max(lowest, 0.0) if np.isfinite(lowest) else 0.0
        ladder = 10.0 ** -np.arange(int(lowest) + 1)
        points = np.repeat(x[None, :], 2 * len(ladder), axis=0)
        points[:, i] += np.concatenate([ladder, -ladder]) * t0 * v[i]
        with np.errstate(all="ignore"):
            finite = np.isfinite(np.asarray(primal(points), dtype=float).reshape(len(points), -1))
        finite &= (points[:, i] != x[i])[:, None]  # a step lost to rounding moves nothing
        both = finite.all(axis=1).reshape(2, -1).all(axis=0)
        if not both.any():
            return "the program is not finite beside the point along an entry alone"
        first = int(np.argmax(both))
        scale[i] = 1.0 if first == 0 else ladder[first] * EDGE_SHRINK
    if (scale == 1.0).all():
        return "no entry of the direction leaves the program's domain"
    best: tuple | str = "central differences cannot resolve J·u there"
    for t in STEPS:
        quantum = 4 * np.spacing(np.abs(x))
        d = np.round(t * scale * v / quantum) * quantum
        if not np.all((d != 0) == (v != 0)):  # an entry moved by none: its column unchecked
            continue
        exact = all(
            np.array_equal((x + f * d) - x, f * d) for f in (1.0, -1.0, 0.5, -0.5, 0.25, -0.25)
        )
        if not exact:
            continue
        u = d / t
        unit = np.abs(magnitude) @ np.abs(u)

        def shifted(hs: np.ndarray, d: np.ndarray = d, t: float = t) -> list[dict] | None:
            rows = np.asarray(primal(x[None, :] + (hs / t)[:, None] * d[None, :]), dtype=float)
            rows = rows.reshape(len(hs), -1)
            return [{"": row} for row in rows] if np.isfinite(rows).all() else None

        found = richardson(shifted, {"": unit}, steps=(t,), still={"": unit == 0})
        if isinstance(found, str):
            continue
        value, estimate, _ = found
        label = f"central differences along a direction shrunk to the domain (step {t:g}, exact)"
        return value[""], estimate[""], u, label
    return best


class _References:
    """``J·v`` of the generated derivatives against the reference, point by point."""

    def __init__(
        self,
        graph: DGraph,
        got: dict,
        reference: tuple,
        pool: ScalarPoints,
        primal: Callable[[int], Callable[[np.ndarray], np.ndarray]] | None,
    ) -> None:
        self.graph, self.got, self.pool, self.primal = graph, got, pool, primal
        self.values, self.jacobian, self.magnitude = reference
        self.found: dict[int, tuple[float, float, str] | str | None] = {}

    def at(self, k: int) -> tuple[float, float, str] | str | None:
        """(error after the estimate, error, reference) at point k; why there is none (a
        string); None where there is no reference (labels only, no JAX)."""
        if k not in self.found:
            self.found[k] = self._compare(k)
        return self.found[k]

    def _compare(self, k: int):
        x, v = self.pool.x[k], self.pool.v[k]
        unit = self.magnitude[k] @ np.abs(v)
        primal = None if self.primal is None else self.primal(k)
        params = None if self.pool.params is None else self.pool.params[k]
        found = scalar_reference_jvp(self.graph, x, v, unit, primal, params)
        if isinstance(found, str) and k == 0 and self.pool.given and primal is not None:
            edge = self._at_the_edge(k, primal)  # the user's point beside a domain's edge
            if edge is not None:
                return edge
        if found is None or isinstance(found, str):
            return found
        expected, estimate, label = found
        worst, raw = self._errors(k, expected, estimate, unit)
        if label != JAX_JVP or k != 0 or not self.pool.given:
            return worst, raw, label
        passed = None
        if not worst <= TOLERANCE:
            differences = _scalar_user_differences(self.graph, x, v, unit, params)
            if differences is None:
                return worst, raw, label
            value, margin = differences
            theirs = worst_error(expected, value, unit, margin)
            if not self._errors(k, value, margin, unit)[0] <= TOLERANCE or theirs <= TOLERANCE:
                return worst, raw, label
            passed = NOT_JAX_DERIVATIVE
        why = self._unconfirmed_break(k)
        return why or passed or (worst, raw, label)

    def _unconfirmed_break(self, k: int) -> str:
        """Why the graph's ``J·v`` at point ``k`` (the user's), where it agrees with JAX's
        ``jvp`` or JAX's rule picked a side of a kink, is not compared: a piecewise
        vertex expression at its break (:func:`_scalar_at_a_break`) whose one-sided
        differences of the user's function (JAX's primal) do not confirm it, by the
        tensor graph's test (:func:`_break_unconfirmed`); "" elsewhere."""
        graph, pool = self.graph, self.pool
        if self.values is None or getattr(graph.jvp_reference, "primal", None) is None:
            return ""
        at = _scalar_at_a_break(graph, {u: value[k] for u, value in self.values.items()})
        if not at:
            return ""
        inputs = {u: np.asarray(pool.x[k, i]) for i, u in enumerate(graph.inputs)}
        if pool.params is not None:
            inputs |= {p: np.asarray(pool.params[k, i]) for i, p in enumerate(graph.parameters)}
        point = Point(USER_POINT, inputs, {})
        direction = {u: np.asarray(pool.v[k, i]) for i, u in enumerate(graph.inputs)}

        def apply(point: Point, along: Mapping[str, np.ndarray]) -> dict:
            u = np.array([float(along[x]) for x in graph.inputs])
            jv, size = self.jacobian[k] @ u, self.magnitude[k] @ np.abs(u)
            return {y: (jv[[i]], size[[i]]) for i, y in enumerate(graph.outputs)}

        outputs = list(graph.outputs)
        got = apply(point, direction)
        why = _break_unconfirmed(graph, point, direction, got, outputs, apply)
        return f"the function is not confirmed: {at}, and {why}" if why else ""

    def _at_the_edge(self, k: int, primal) -> tuple[float, float, str] | None:
        """The graph's own ``J`` (its partials' sweep, which every generated function
        was compared with at this point, :func:`_sweep_errors`) against
        :func:`edge_differences` along its direction ``u``: the generated code agrees with
        the differences as far as it agrees with the sweep and the sweep with them. None
        where the differences cannot be taken there either."""
        if _stops_gradients(self.graph):
            return None
        found = edge_differences(primal, self.pool.x[k], self.pool.v[k], self.magnitude[k])
        if isinstance(found, str):
            return None
        value, estimate, u, label = found
        unit = self.magnitude[k] @ np.abs(u)
        mine = self.jacobian[k] @ u
        return worst_error(mine, value, unit, estimate), worst_error(mine, value, unit), label

    def _errors(
        self, k: int, expected: np.ndarray, estimate: np.ndarray, unit: np.ndarray
    ) -> tuple[float, float]:
        """The generated derivatives' worst error at point k against ``J·v`` =
        ``expected`` (``estimate`` its margin), after the margin and without it."""
        v, w = self.pool.v[k], self.pool.w[k]
        worst = raw = 0.0
        for f, result in self.got.items():
            if f == "primal":
                continue
            if f == "vjp":  # wᵀ(J v) = (wᵀJ) v
                mine, theirs = result[k] @ v, w @ expected
                scale, margin = np.abs(w) @ unit, np.abs(w) @ estimate
            else:
                jacobian = result[1] if f == "value_and_jacobian" else result
                mine = result[k] if f == "jvp" else np.asarray(jacobian[k]) @ v
                theirs, scale, margin = expected, unit, estimate
            worst = max(worst, worst_error(mine, theirs, scale, margin))
            raw = max(raw, worst_error(mine, theirs, scale))
        return worst, raw

    def choose(self, count: int) -> tuple[list[int], tuple[float, ...] | None]:
        """The points used: the first ``count``, one where the reference cannot resolve
        ``J·v`` replaced by the spare point once (it may sit on a kink)."""
        used = list(range(count))
        unresolved = [k for k in used if isinstance(self.at(k), str)]
        if unresolved and len(self.pool.x) > count and isinstance(self.at(count), tuple):
            used[unresolved[0]] = count
            return used, tuple(float(c) for c in self.pool.x[unresolved[0]])
        return used, None


def _verdict(
    errors: dict, refs: _References, pool: ScalarPoints, used: list[int], skipped, names
) -> CodeCheck:
    """The verdict over the points ``used``."""
    points = tuple(tuple(float(c) for c in pool.x[k]) for k in used)
    common: dict[str, Any] = {"points": points, "skipped": skipped}
    if pool.params is not None:
        common["parameters"] = tuple(tuple(float(c) for c in pool.params[k]) for k in used)
    maxima = {f: float(np.max(e[used])) for f, e in errors.items()}
    found = {k: refs.at(k) for k in used}
    compared = {k: r for k, r in found.items() if isinstance(r, tuple)}
    against = ["tangent sweep of the graph's partials"]
    if "primal" in errors:
        against.append("the graph's values")
    if compared:
        label = next(iter(compared.values()))[2]
        against.append("central differences of primal" if label.startswith("central") else label)
    common.update(errors=maxima, against=tuple(against))
    for f, e in maxima.items():
        if not e <= TOLERANCE:  # NaN fails too
            k = used[int(np.argmax(np.nan_to_num(errors[f][used], nan=np.inf)))]
            what = "values" if f == "primal" else "partials"
            return CodeCheck(
                ok=False,
                ran=True,
                detail=f"the generated {f}() disagrees with the graph's {what}: error"
                f" {e:.1e} of the magnitudes at x = {_point(pool.x[k])}",
                **common,
            )
    if not compared:
        reasons = sorted({r for r in found.values() if isinstance(r, str)})
        if reasons and names:  # a reference there is, resolved at no point
            detail = f"J·v not compared with a reference: {'; '.join(reasons)}"
            return CodeCheck(ok=False, ran=False, detail=detail, **common)
        return CodeCheck(ok=True, ran=True, detail="agrees", **common)
    k, (error, _, label) = max(compared.items(), key=lambda item: item[1][0])
    difference = max(r[1] for r in compared.values())
    if not error <= TOLERANCE:
        shown = "primal()" if label.startswith("central") else ""
        return CodeCheck(
            ok=False,
            ran=True,
            detail=f"the generated {', '.join(f'{f}()' for f in names)}"
            f" {'disagree' if len(names) > 1 else 'disagrees'} with {label}"
            f"{' of ' + shown if shown else ''}: error {error:.1e} of |J|·|v| at x ="
            f" {_point(pool.x[k])} (partials that are not the derivatives of the vertex"
            " expressions?)",
            difference_error=difference,
            **common,
        )
    return CodeCheck(ok=True, ran=True, detail="agrees", difference_error=difference, **common)


SHOWN = 3  # a point in a message: this many entries at each end, then how many there are


def _point(x: np.ndarray) -> str:
    """A point for a one-line message: every entry of a short one; of a long one the first
    and last :data:`SHOWN` (NumPy's summarization) and the count, so that a check of
    10⁶ unknowns still reports in one line."""
    x = np.ravel(np.asarray(x, dtype=float))
    with np.printoptions(threshold=2 * SHOWN, edgeitems=SHOWN, linewidth=np.inf):
        text = np.array2string(x, separator=", ", formatter={"float_kind": "{:.6g}".format})
    text = "(" + text[1:-1] + ")"
    return text if x.size <= 2 * SHOWN else f"{text[:-1]}; {x.size} numbers)"
