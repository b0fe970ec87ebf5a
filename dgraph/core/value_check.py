"""One value check for every Jacobian of a tensor graph: ``J·v`` of what was computed
(an expression set's blocks, generated code) against a derivative that shares no code
with it, at the user's point first, then at a random one.

* **Points.** The inputs' values the user gave (:attr:`DGraph.point`: ``from_jax``'s
  example arguments), where the program is finite there; then the first random point,
  inputs uniform in one of :data:`~dgraph.core.block_values.RANGES` in turn, where it is
  finite. A program finite only near the user's point is checked there.
* **Reference.** Where the graph was built from a JAX function, JAX's own ``jvp`` of that
  function (:attr:`DGraph.jvp_reference`; exact up to rounding); elsewhere central
  differences of the array program along the direction, at steps t, t/2 and t/4
  extrapolated twice (Richardson: error O(t⁴)), the steps t of :data:`STEPS` tried in turn
  until one's estimated error (the two extrapolations' difference plus the rounding of the
  function values over the step) is small against |J|·|v|, else the best; the estimate
  enters the tolerance, and a point no step resolves is not used.
* **Error.** Entry by entry against ``|J|·|v|`` (every block and tangent by its magnitude,
  :func:`~dgraph.core.block_values.jvp_of_expressions` with ``absolute``), the size of
  the terms each entry of ``J·v`` sums, so that the check does not change with the
  program's scale: ``1e-6*sin(x)`` with a wrong ``sin`` rule fails as ``sin(x)`` does.
  An entry passes when ``|J·v - reference| <= TOLERANCE·unit + 2·estimate``, ``unit``
  its ``|J|·|v|`` plus :data:`FLOOR` times the output's largest.
* **Verdict.** ``wrong`` where any point disagrees; ``verified`` where every point
  checked agrees; ``not verified`` where no point could be checked (the program finite
  nowhere tried, differences that cannot resolve ``J·v``): never taken as a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .block_values import RANGES, finite_point, jvp_of_expressions, vertex_values

if TYPE_CHECKING:
    from .expression_data import ExpressionData
    from .graph import DGraph

__all__ = [
    "FLOOR",
    "RESOLVED",
    "STATUSES",
    "STEPS",
    "TOLERANCE",
    "Point",
    "ValueCheck",
    "check_expression_set",
    "check_points",
    "check_values",
    "direction_at",
    "reference_jvp",
]

STATUSES = ("verified", "not verified", "wrong")
TOLERANCE = 1e-8  # of |J|·|v|: rounding of J·v either way, never a wrong rule's 1e-3
FLOOR = 1e-6  # of an output's largest |J|·|v|: an entry's unit is at least this
RESOLVED = 1e-7  # differences decide a point only where their error estimate is below this
STEPS = (1e-3, 1e-2, 1e-4, 1e-5, 1e-6)  # differences' steps t along the scaled direction, in turn
EPS = float(np.finfo(float).eps)

Apply = Callable[["Point", dict[str, np.ndarray]], dict[str, tuple[np.ndarray, np.ndarray]]]


@dataclass(frozen=True)
class Point:
    """Where values are checked: its name in reports, the inputs, every vertex's value and
    the ``stop_gradient`` values to keep (:func:`~dgraph.core.block_values.vertex_values`)."""

    label: str
    inputs: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    frozen: dict[int, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class ValueCheck:
    """What :func:`check_values` found: ``status`` one of :data:`STATUSES`, a one-line
    ``detail``, the worst error in units of ``|J|·|v|`` (None where nothing was compared),
    the reference used and the points checked. True only when verified."""

    status: str
    detail: str
    error: float | None = None
    reference: str = ""
    points: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.status == "verified"


def _finite(values: Mapping[str, np.ndarray]) -> bool:
    return all(np.isfinite(v).all() for v in values.values())


def check_points(graph: DGraph, seed: int = 0) -> tuple[list[Point], list[str]]:
    """The user's point (where finite) and the first finite random point, and why a
    candidate was passed over."""
    found: list[Point] = []
    notes: list[str] = []
    given = graph.point
    if given is not None:
        frozen: dict[int, np.ndarray] = {}
        with np.errstate(all="ignore"):
            values = vertex_values(graph, given, frozen)
        if _finite(values):
            found.append(Point("the user's point", dict(given), values, frozen))
        else:
            notes.append("the program is not finite at the user's point")
    drawn = finite_point(graph, seed)
    if drawn is not None:
        inputs, values, frozen, (low, high) = drawn
        found.append(Point(f"a random point in [{low:g}, {high:g})", inputs, values, frozen))
    else:
        ranges = ", ".join(f"[{lo:g}, {hi:g})" for lo, hi in RANGES)
        notes.append(f"no random point in {ranges} where the program is finite")
    return found, notes


def direction_at(point: Point, inputs: Iterable[str], seed: int) -> dict[str, np.ndarray]:
    """A random direction, each entry normal times the size of its input there (at least
    10⁻³ of that input's largest, 1 for an input that is zero): a step along it moves
    every entry by the same relative amount. Zero for the graph's other inputs."""
    rng = np.random.default_rng([seed, len(RANGES)])
    wanted = set(inputs)
    out = {}
    for x, value in point.inputs.items():
        value = np.asarray(value, dtype=float)
        top = float(np.abs(value).max(initial=0.0))
        size = np.maximum(np.abs(value), 1e-3 * top) if top > 0 else np.ones(value.shape)
        draw = rng.standard_normal(value.shape) * size
        out[x] = draw if x in wanted else np.zeros(value.shape)
    return out


def reference_jvp(
    graph: DGraph,
    point: Point,
    direction: Mapping[str, np.ndarray],
    outputs: Sequence[str],
    unit: Mapping,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], str] | str:
    """``J·v`` at ``point`` along ``direction`` for ``outputs`` (flat), an estimate of its
    error per entry, and what it is; or why there is none here (a string). JAX's ``jvp``
    where the graph has one that runs here, else step-controlled differences judged against ``unit``
    (each output's |J|·|v| unit, to pick the step)."""
    jvp = graph.jvp_reference
    got = None
    if jvp is not None:
        with np.errstate(all="ignore"):
            got = jvp(point.inputs, direction)  # None where it cannot run here
    if got is not None:
        exact = {y: np.asarray(got[y], dtype=float).reshape(-1) for y in outputs}
        if not _finite(exact):
            return "JAX's jvp is not finite there"
        return exact, {y: np.zeros_like(v) for y, v in exact.items()}, "JAX's jvp"
    return _differences(graph, point, direction, outputs, unit)


def _differences(
    graph: DGraph, point: Point, direction: Mapping, outputs: Sequence[str], unit: Mapping
) -> tuple[dict, dict, str] | str:
    """Central differences along ``direction`` at steps t, t/2, t/4, extrapolated twice,
    the step of :data:`STEPS` with the smallest estimated error relative to ``unit``
    (the first below a tenth of :data:`RESOLVED` ends the search); why not, where no step
    resolves ``J·v`` or the program is not finite beside the point."""
    best: tuple[float, dict, dict, float] | None = None
    for t in STEPS:
        shifted = []
        for h in (t, -t, t / 2, -t / 2, t / 4, -t / 4):
            inputs = {x: point.inputs[x] + h * direction[x] for x in graph.inputs}
            with np.errstate(all="ignore"):
                values = vertex_values(graph, inputs, point.frozen)
            if not _finite(values):
                break
            shifted.append({y: np.ravel(values[y]) for y in outputs})
        else:
            value, estimate, ratio = {}, {}, 0.0
            for y in outputs:
                d = [
                    (shifted[k][y] - shifted[k + 1][y]) / (2 * h)
                    for k, h in ((0, t), (2, t / 2), (4, t / 4))
                ]
                r1, r2 = (4 * d[1] - d[0]) / 3, (4 * d[2] - d[1]) / 3
                largest = np.max([np.abs(s[y]) for s in shifted], axis=0)
                rounding = 10 * EPS * largest / (t / 4)
                value[y], estimate[y] = r2, np.abs(r2 - r1) + rounding
                with np.errstate(all="ignore"):
                    ratio = max(ratio, float(np.max(estimate[y] / unit[y], initial=0.0)))
            if best is None or ratio < best[0]:
                best = (ratio, value, estimate, t)
            if ratio <= RESOLVED / 10:
                break
    if best is None:
        return "the program is not finite beside the point"
    ratio, value, estimate, t = best
    if not ratio <= RESOLVED:
        return (
            f"central differences cannot resolve J·v there (estimated error {ratio:.1e} of"
            f" |J|·|v| at the best step)"
        )
    return value, estimate, f"central differences (step {t:g}, Richardson)"


def _units(scale: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = {}
    for y, s in scale.items():
        s = np.abs(np.asarray(s, dtype=float).reshape(-1))
        out[y] = s + FLOOR * float(np.max(s, initial=0.0)) + np.finfo(float).tiny
    return out


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
    points, notes = check_points(graph, seed)
    checked: list[str] = []
    worst, used = 0.0, ""
    for point in points:
        usable = True
        for inputs, outputs in groups:
            direction = direction_at(point, inputs, seed)
            with np.errstate(all="ignore"):
                got = apply(point, direction)
            unit = _units({y: got[y][1] for y in outputs})
            reference = reference_jvp(graph, point, direction, outputs, unit)
            if isinstance(reference, str):
                notes.append(f"{reference} ({point.label})")
                usable = False
                break
            expected, estimate, used = reference
            for y in outputs:
                mine = np.asarray(got[y][0], dtype=float).reshape(-1)
                with np.errstate(all="ignore"):
                    error = np.abs(mine - expected[y])
                    excess = error - 2 * estimate[y]
                    ratio = float(np.max(np.maximum(excess, 0) / unit[y], initial=0.0))
                    raw = float(np.max(error / unit[y], initial=0.0))
                if not (np.isfinite(mine).all() and ratio <= TOLERANCE):
                    shown = "not finite" if not np.isfinite(mine).all() else f"{ratio:.2g}"
                    return ValueCheck(
                        "wrong",
                        f"{what} for {y} at {point.label} differs from {used} by {shown} of"
                        f" |J|·|v| (tolerance {TOLERANCE:.0e})",
                        ratio,
                        used,
                        (*checked, point.label),
                    )
                worst = max(worst, raw)
        if usable:
            checked.append(point.label)
    if not checked:
        why = "; ".join(notes) or "no point to check at"
        return ValueCheck("not verified", f"values not checked: {why}", None, used)
    more = f" ({'; '.join(notes)})" if notes else ""
    return ValueCheck(
        "verified",
        f"{what} agrees with {used} at {' and '.join(checked)} (largest difference {worst:.0e}"
        f" of |J|·|v|){more}",
        worst,
        used,
        tuple(checked),
    )


def check_expression_set(es: ExpressionData, seed: int = 0) -> ValueCheck:
    """The blocks of ``es`` (a tensor graph's expression set) are the program's
    derivatives: its ``J·v``, applied matrix-free (no block product formed), checked by
    :func:`check_values`; a selection of entries input by input (the direction moving
    one input, the outputs it selects compared). Not verified where the graph has blocks
    no operation computes (there are no values to check)."""
    graph = es.graph
    if any(graph.op(v) is None for v in graph.nx if graph.role(v) != "input"):
        return ValueCheck(
            "not verified", "values not checked: blocks given without the operations computing them"
        )
    if es.pairs is None:
        outputs = list(dict.fromkeys(y for y, _ in es.jacobian))
        groups = [(graph.inputs, outputs)]
    else:
        by_input: dict[str, list[str]] = {}
        for y, x in es.pairs:
            by_input.setdefault(x, []).append(y)
        groups = [([x], list(dict.fromkeys(ys))) for x, ys in by_input.items()]

    def apply(point: Point, direction: dict) -> dict:
        jv = jvp_of_expressions(es, point.values, direction)
        size = jvp_of_expressions(es, point.values, direction, absolute=True)
        return {y: (jv[y], size[y]) for y in jv}

    return check_values(graph, apply, groups, seed)
