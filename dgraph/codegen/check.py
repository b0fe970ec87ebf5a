"""Generated code checked against derivatives it does not share code with.

The generated text is loaded (Python; C compiled with the system compiler; CUDA compiled as
C++ with ``DGRAPH_HOST``, its kernels' batch-first and batch-last index arithmetic run on
the host and required to give the point-by-point results bit for bit) and run at a few
random points; ``jacobian``, ``jvp`` and ``vjp`` are compared with a tangent sweep of
the graph's own local partials, c_vu evaluated numerically and propagated vertex by vertex,
dx_v = sum_u c_vu dx_u (Griewank & Walther, *Evaluating Derivatives*, ch. 3) — neither
the expression set nor the printed programs. Errors are relative to the sweep of the
magnitudes |c_vu|, the size of the terms whose sum each entry is, so cancellation in an
entry cannot make a correct program look wrong.

When the graph has vertex expressions (a ``primal`` was generated), the primal values are
compared with the graph's, and the derivatives with Richardson-extrapolated central
differences of the generated ``primal``: this ties the partials (which may be given as
labels) to the values. A point where the differences disagree may sit on a kink (``abs``,
``max``, a ``Piecewise`` condition): it is replaced by another point once; a second
disagreement is a failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from ..core.graph import DGraph, vertex_symbol
from ..core.numeric import edge_values, vertex_values
from ..errors import DGraphError
from .c import compiler, load_c
from .cuda import CudaHostModule, cxx_compiler, load_cuda_host
from .program import function_outputs
from .python import load_python

if TYPE_CHECKING:
    from .generate import Generated

__all__ = ["CodeCheck", "check_generated"]

# where random points are drawn, in this order, until the function is finite there
RANGES: tuple[tuple[float, float], ...] = (
    (0.5, 1.5),
    (-1.0, 1.0),
    (1.0, 3.0),
    (-1.5, -0.5),
    (-3.0, -1.0),
)
SWEEP_TOLERANCE = 1e-9  # against the tangent sweep: rounding only
DIFFERENCE_TOLERANCE = 1e-6  # against central differences: truncation and rounding
STEPS = (1e-2, 1e-3, 1e-4, 1e-5)  # central-difference steps, relative to max(1, |x_j|)
DERIVATIVES = ("jacobian", "jvp", "vjp", "value_and_jacobian")
EPS = np.finfo(float).eps
TINY = np.finfo(float).tiny


@dataclass(frozen=True)
class CodeCheck:
    """What :func:`check_generated` found: ``ok`` only when every comparison ran and
    agreed; ``ran`` is False when nothing could be run (no C compiler, no finite point).

    ``errors``: per generated function, the largest relative error against the tangent
    sweep (``primal``: against the graph's values); ``difference_error``: the largest
    relative error of the derivatives against central differences of ``primal``."""

    ok: bool
    ran: bool
    detail: str
    errors: Mapping[str, float] = field(default_factory=dict)
    difference_error: float | None = None
    points: tuple[tuple[float, ...], ...] = ()
    parameters: tuple[tuple[float, ...], ...] = ()  # at each point, when the graph has any
    skipped: tuple[float, ...] | None = None  # a point the differences disagreed at once
    against: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "errors", MappingProxyType(dict(self.errors)))

    def __bool__(self) -> bool:
        return self.ok

    @property
    def status(self) -> str:
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
            f"{len(self.points)} points (max rel. error {worst:.0e})"
        )
        if self.difference_error is not None:
            text += f"; primal's central differences agree to {self.difference_error:.0e}"
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
            "sweep_tolerance": SWEEP_TOLERANCE,
            "difference_tolerance": DIFFERENCE_TOLERANCE,
        }


def _fail(detail: str) -> CodeCheck:
    return CodeCheck(ok=False, ran=False, detail=detail)


def check_generated(
    generated: Generated, graph: DGraph, points: int = 4, seed: int = 0
) -> CodeCheck:
    """Run ``generated`` at ``points`` random points (seeded) and compare it with the
    tangent sweep of ``graph``'s partials and, when it has a ``primal``, with central
    differences of that primal (module docstring).

    >>> from dgraph.frontends import bundled
    >>> from dgraph.codegen.generate import generate
    >>> g = bundled("naumann_sin.trace")
    >>> result = check_generated(generate(g, "python", "reverse", check=False), g)
    >>> result.ok, sorted(result.errors), result.difference_error < 1e-6
    (True, ['jacobian', 'primal'], True)
    """
    if generated.lang == "c":
        if compiler() is None:
            return _fail("no C compiler found (set CC): the C code was not compiled or run")
        module: Any = load_c(generated.text)
    elif generated.lang == "cuda":
        if cxx_compiler() is None:
            return _fail(
                "no C++ compiler found (set CXX): the CUDA code was not compiled or run on the host"
            )
        module = _KernelLayouts(load_cuda_host(generated.text))
    elif generated.lang == "jax":
        try:
            import jax
        except ImportError:
            return _fail("JAX is not installed: the JAX code was not run")
        with jax.enable_x64(True):  # compared in doubles, as the other languages are
            return _checked(load_python(generated.text), generated, graph, points, seed)
    else:
        module = load_python(generated.text)
    return _checked(module, generated, graph, points, seed)


def _checked(module: Any, generated: Generated, graph: DGraph, points: int, seed: int) -> CodeCheck:
    """:func:`check_generated` on a loaded module."""
    n, m = len(graph.inputs), len(graph.outputs)  # as many solved values as residuals
    rng = np.random.default_rng(seed)
    try:
        pool, params = _finite_points(graph, rng, points + 1)
    except Exception as exc:  # the reference cannot be evaluated: nothing to compare with
        if isinstance(exc, DGraphError):
            return _fail(str(exc))
        return _fail(f"the graph's partials cannot be evaluated ({type(exc).__name__})")
    if len(pool) < points and not (len(pool) and _is_given(graph, pool[0])):
        ranges = ", ".join(f"({lo:g}, {hi:g})" for lo, hi in RANGES)
        return _fail(f"no {points} points in {ranges} where the function and partials are finite")
    points = min(points, len(pool))  # fewer: the user's point and what else is finite
    names = [f for f in DERIVATIVES if f in generated.programs]
    has_primal = "primal" in generated.programs
    directions = {"jvp": rng.normal(size=(len(pool), n)), "vjp": rng.normal(size=(len(pool), m))}
    if params is not None:
        module = _WithParameters(module, params)
    try:
        errors, worst_at = _sweep_errors(module, graph, names, has_primal, pool, directions)
        fd = _difference_errors(module, names, pool, directions) if has_primal else None
    except Exception as exc:  # the generated code itself raised: it does not work
        message = str(exc).splitlines()[0] if str(exc) else ""
        detail = f"running the generated code failed: {type(exc).__name__}: {message}"
        return CodeCheck(ok=False, ran=True, detail=detail)
    used = list(range(points))
    if fd is None or not names:
        return _result(errors, worst_at, pool, used, names, None, None, module)
    bad = [k for k in used if not fd[k] <= DIFFERENCE_TOLERANCE]
    skipped = None
    if len(bad) == 1 and len(pool) > points and fd[points] <= DIFFERENCE_TOLERANCE:
        skipped = tuple(float(c) for c in pool[bad[0]])
        used[bad[0]] = points
    elif bad:
        return _result(errors, worst_at, pool, used, names, fd, None, module, fd_failed=bad[0])
    difference = float(max(fd[k] for k in used))
    return _result(errors, worst_at, pool, used, names, fd, skipped, module, difference=difference)


def _result(
    errors: dict[str, np.ndarray],
    worst_at: Callable[[str, list[int]], int],
    pool: np.ndarray,
    used: list[int],
    names: list[str],
    fd: np.ndarray | None,
    skipped: tuple[float, ...] | None,
    module: Any,
    fd_failed: int | None = None,
    difference: float | None = None,
) -> CodeCheck:
    """The verdict over the points ``used`` (indices into ``pool``)."""
    maxima = {f: float(np.max(e[used])) for f, e in errors.items()}
    against = ["tangent sweep of the graph's partials"]
    if "primal" in errors:
        against.append("the graph's values")
    if fd is not None or difference is not None:
        against.append("central differences of primal")
    points = tuple(tuple(float(c) for c in pool[k]) for k in used)
    params = _parameters(module)
    common = {"errors": maxima, "points": points, "skipped": skipped, "against": tuple(against)}
    if params is not None:
        common["parameters"] = tuple(tuple(float(c) for c in params[k]) for k in used)
    for f, e in maxima.items():
        if not e <= SWEEP_TOLERANCE:  # NaN fails too
            k = worst_at(f, used)
            what = "values" if f == "primal" else "partials"
            return CodeCheck(
                ok=False,
                ran=True,
                detail=f"the generated {f}() disagrees with the graph's {what}: rel. error "
                f"{e:.1e} at x = {_point(pool[k])}",
                **common,
            )
    if fd_failed is not None:
        assert fd is not None
        return CodeCheck(
            ok=False,
            ran=True,
            detail=f"the generated {', '.join(f'{f}()' for f in names)}"
            f" {'disagree' if len(names) > 1 else 'disagrees'} with central differences of"
            f" primal(): rel. error {fd[fd_failed]:.1e} at x = {_point(pool[fd_failed])}"
            " (partials that are not the derivatives of the vertex expressions?)",
            difference_error=float(fd[fd_failed]),
            **common,
        )
    return CodeCheck(ok=True, ran=True, detail="agrees", difference_error=difference, **common)


def _point(x: np.ndarray) -> str:
    return "(" + ", ".join(f"{c:.6g}" for c in x) + ")"


class _WithParameters:
    """A generated module with the parameters ``params`` (one row per point) passed as the
    last argument of every function; a batch of ``k`` points per row (the central
    differences' steps) repeats each row ``k`` times."""

    def __init__(self, module: Any, params: np.ndarray) -> None:
        self.module, self.params = module, params

    def _rows(self, x: np.ndarray) -> np.ndarray:
        return np.repeat(self.params, len(x) // len(self.params), axis=0)

    def primal(self, x):
        return self.module.primal(x, self._rows(x))

    def jacobian(self, x):
        return self.module.jacobian(x, self._rows(x))

    def jvp(self, x, v):
        return self.module.jvp(x, v, self._rows(x))

    def vjp(self, x, w):
        return self.module.vjp(x, w, self._rows(x))

    def value_and_jacobian(self, x):
        return self.module.value_and_jacobian(x, self._rows(x))


def _parameters(module: Any) -> np.ndarray | None:
    return module.params if isinstance(module, _WithParameters) else None


# -- the reference: a tangent sweep over the graph's partials ----------------------------


def _graph_values(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None = None
) -> tuple[dict[str, np.ndarray] | None, dict]:
    """Vertex values (None without vertex expressions) and edge labels at points ``x``
    (with the parameters ``params``, a row per point)."""
    with np.errstate(all="ignore"):
        try:
            values = vertex_values(graph, x, params)
        except ValueError:  # labels only: they may read the inputs, nothing else
            return None, _labels_over_inputs(graph, x, params)
        except TypeError:  # a math function lambdify could not vectorize (erf): by point
            return _point_by_point(graph, x, params)
        try:
            return values, edge_values(graph, values)
        except TypeError:
            return _point_by_point(graph, x, params)


def _point_by_point(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None
) -> tuple[dict[str, np.ndarray], dict]:
    rows = [
        vertex_values(graph, point, None if params is None else params[k])
        for k, point in enumerate(x)
    ]
    labels = [edge_values(graph, row) for row in rows]
    values = {v: np.array([row[v] for row in rows], dtype=float) for v in rows[0]}
    return values, {e: np.array([row[e] for row in labels], dtype=float) for e in labels[0]}


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


def _sweep(graph: DGraph, labels: Mapping, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian (B, m, n) by the tangent sweep, and the same sweep over |c_vu|."""
    n = len(graph.inputs)
    tangent: dict[str, np.ndarray] = {}
    size: dict[str, np.ndarray] = {}
    eye = np.broadcast_to(np.eye(n), (len(x), n, n))
    for j, u in enumerate(graph.inputs):
        tangent[u] = size[u] = eye[:, j, :]
    with np.errstate(all="ignore"):
        for v in graph.order():
            if v in tangent:
                continue
            tangent[v] = np.zeros((len(x), n))
            size[v] = np.zeros((len(x), n))
            for u in graph.predecessors(v):
                c = labels[graph.symbol(u, v)][:, None]
                tangent[v] = tangent[v] + c * tangent[u]
                size[v] = size[v] + np.abs(c) * size[u]
    jac = np.stack([tangent[y] for y in graph.outputs], axis=1)
    magnitude = np.stack([size[y] for y in graph.outputs], axis=1)
    return jac, magnitude


def _reference(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None
) -> tuple[dict[str, np.ndarray] | None, np.ndarray, np.ndarray]:
    """The vertex values (None without expressions), the Jacobian by the tangent sweep and
    the sweep of the magnitudes; for a linear system's graph, of its solution."""
    if graph.solved:
        return _solved_reference(graph, x, params)
    values, labels = _graph_values(graph, x, params)
    return (values, *_sweep(graph, labels, x))


def _solved_reference(
    graph: DGraph, x: np.ndarray, params: np.ndarray | None
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """s(x) and ds/dx for residuals h(x, s) affine in s, by NumPy alone: h(x, 0) and
    A = ∂h/∂s from the graph's values at s = 0 and at each unit vector, s = -A⁻¹ h(x, 0)
    by ``numpy.linalg.solve``, and -A⁻¹ times the tangent sweep of ∂h/∂x at s. The values
    returned hold s and the residuals there (zero only when h is affine in s)."""
    batch, n = len(x), len(graph.solved)
    free = [p for p in graph.parameters if p not in graph.solved]

    def residuals(s: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        given = dict(zip(graph.solved, s.T, strict=True))
        given.update({p: params[:, k] for k, p in enumerate(free)} if params is not None else {})
        full = np.stack([np.broadcast_to(given[p], (batch,)) for p in graph.parameters], axis=-1)
        with np.errstate(all="ignore"):
            values = vertex_values(graph, x, full)
        return values, np.stack([values[y] for y in graph.outputs], axis=-1)

    _, at_zero = residuals(np.zeros((batch, n)))
    eye = np.eye(n)
    matrix = np.stack([residuals(np.tile(eye[k], (batch, 1)))[1] - at_zero for k in range(n)], -1)
    with np.errstate(all="ignore"):
        inverse = _inverses(matrix)
        s = -np.einsum("bij,bj->bi", inverse, at_zero)
        values, _ = residuals(s)
        jac, magnitude = _sweep(graph, edge_values(graph, values), x)
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


def _is_given(graph: DGraph, x: np.ndarray) -> bool:
    """Whether ``x`` is the user's point (:attr:`~dgraph.core.graph.DGraph.point`)."""
    given = graph.point
    return given is not None and np.array_equal(x, [float(given[u]) for u in graph.inputs])


def _finite_points(
    graph: DGraph, rng: np.random.Generator, count: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Up to ``count`` points where every vertex value and the sweep are finite: the
    user's point (:attr:`~dgraph.core.graph.DGraph.point`) first, then drawn from
    :data:`RANGES` in order; with parameters, their values at each point (drawn from the
    first range: masses and lengths are often positive)."""
    n, k = len(graph.inputs), len(graph.parameters) - len(graph.solved)
    chosen: list[np.ndarray] = []
    chosen_params: list[np.ndarray] = []
    given = graph.point  # the user's point first, where it is finite
    if given is not None:
        x = np.array([[float(given[u]) for u in graph.inputs]])
        p = rng.uniform(*RANGES[0], size=(1, k)) if k else None
        values, jac, magnitude = _reference(graph, x, p)
        finite = bool(np.isfinite(magnitude).all() and np.isfinite(jac).all())
        if values is not None:
            finite = finite and all(bool(np.isfinite(v).all()) for v in values.values())
        if finite:
            chosen.append(x[0])
            if p is not None:
                chosen_params.append(p[0])
    for lo, hi in RANGES:
        x = rng.uniform(lo, hi, size=(2 * count, n))
        p = rng.uniform(*RANGES[0], size=(2 * count, k)) if k else None
        values, jac, magnitude = _reference(graph, x, p)
        finite = np.isfinite(magnitude).all(axis=(1, 2)) & np.isfinite(jac).all(axis=(1, 2))
        if values is not None:
            for value in values.values():
                finite &= np.isfinite(value)
        chosen.extend(x[finite])
        if p is not None:
            chosen_params.extend(p[finite])
        if len(chosen) >= count:
            break
    points = np.array(chosen[:count]).reshape(-1, n)
    return points, np.array(chosen_params[:count]).reshape(-1, k) if k else None


def _relative(actual: np.ndarray, expected: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Per point: max |actual - expected| / max scale (NaN and inf where not finite)."""
    batch = len(expected)
    difference = np.abs(np.asarray(actual, dtype=float) - expected).reshape(batch, -1)
    scale = np.maximum(np.asarray(scale).reshape(batch, -1).max(axis=1), TINY)
    error = difference.max(axis=1) / scale
    return np.where(np.isfinite(difference).all(axis=1), error, np.inf)


def _sweep_errors(
    module: Any,
    graph: DGraph,
    names: list[str],
    has_primal: bool,
    x: np.ndarray,
    directions: dict[str, np.ndarray],
) -> tuple[dict[str, np.ndarray], Callable[[str, list[int]], int]]:
    """Per function, per point: the relative error against the tangent sweep (and, for
    ``primal``, against the graph's values relative to the largest vertex value)."""
    values, jac, magnitude = _reference(graph, x, _parameters(module))
    outputs = function_outputs(graph)
    v, w = directions["jvp"], directions["vjp"]
    errors: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        if has_primal and values is not None:
            expected = np.stack([values[y] for y in outputs], axis=-1)
            largest = np.max(np.abs(np.stack(list(values.values()), axis=-1)), axis=-1)
            errors["primal"] = _relative(module.primal(x), expected, largest)
            if graph.solved:  # s solves h(x, s) = 0 only where h is affine in s
                residual = np.stack([values[y] for y in graph.outputs], axis=-1)
                errors["primal"] = np.fmax(
                    errors["primal"], _relative(residual, 0 * residual, largest)
                )
        for f in names:
            if f == "jacobian":
                errors[f] = _relative(module.jacobian(x), jac, magnitude)
            elif f == "value_and_jacobian":
                value, jacobian = module.value_and_jacobian(x)
                errors[f] = _relative(jacobian, jac, magnitude)
                if values is not None:  # the values against the graph's, as primal's
                    expected = np.stack([values[y] for y in outputs], axis=-1)
                    largest = np.max(np.abs(np.stack(list(values.values()), axis=-1)), axis=-1)
                    errors[f] = np.fmax(errors[f], _relative(value, expected, largest))
            elif f == "jvp":
                expected = np.einsum("bij,bj->bi", jac, v)
                scale = np.einsum("bij,bj->bi", magnitude, np.abs(v))
                errors[f] = _relative(module.jvp(x, v), expected, scale)
            else:
                expected = np.einsum("bi,bij->bj", w, jac)
                scale = np.einsum("bi,bij->bj", np.abs(w), magnitude)
                errors[f] = _relative(module.vjp(x, w), expected, scale)

    def worst_at(f: str, used: list[int]) -> int:
        e = np.nan_to_num(errors[f][used], nan=np.inf)
        return used[int(np.argmax(e))]

    return errors, worst_at


# -- central differences of the generated primal ------------------------------------------


def _differences(primal: Callable, x: np.ndarray, relative: float) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian (B, m, n) by central differences with steps h and h/2, h = ``relative``
    max(1, |x_j|), Richardson-extrapolated (error O(h^4)), and an estimate of its rounding
    error per point."""
    batch, n = x.shape
    h = relative * np.maximum(1.0, np.abs(x))  # (B, n)
    eye = np.eye(n)
    estimates = []
    largest = np.zeros(batch)
    for step in (h, h / 2):
        plus = x[:, None, :] + eye[None] * step[:, :, None]  # (B, n, n): row j moves x_j
        minus = x[:, None, :] - eye[None] * step[:, :, None]
        actual = (plus - minus)[:, np.arange(n), np.arange(n)]  # the steps as represented
        with np.errstate(all="ignore"):
            f_plus = np.asarray(primal(plus.reshape(-1, n))).reshape(batch, n, -1)
            f_minus = np.asarray(primal(minus.reshape(-1, n))).reshape(batch, n, -1)
            estimates.append(((f_plus - f_minus) / actual[:, :, None]).transpose(0, 2, 1))
            largest = np.maximum(largest, np.abs(f_plus).max(axis=(1, 2)))
    coarse, fine = estimates
    rounding = 10 * EPS * largest / h.min(axis=1)
    return (4 * fine - coarse) / 3, rounding


def _difference_errors(
    module: Any, names: list[str], x: np.ndarray, directions: dict[str, np.ndarray]
) -> np.ndarray:
    """Per point: the relative error of the generated derivatives against central
    differences of the generated primal, at the step of :data:`STEPS` that agrees best
    (a stiff function needs a small step, a noisy one a large step); relative to the
    differences' size, or to what they can resolve (their rounding error over the
    tolerance) where that is larger."""
    v, w = directions["jvp"], directions["vjp"]
    with np.errstate(all="ignore"):
        actual = {f: _call(module, f, x, v, w) for f in names}
        best = np.full(len(x), np.inf)
        for relative in STEPS:
            fd, rounding = _differences(module.primal, x, relative)
            floor = rounding / DIFFERENCE_TOLERANCE
            errors = np.zeros(len(x))
            for f in names:
                if f in ("jacobian", "value_and_jacobian"):
                    expected, size, weight = fd, np.abs(fd), 1.0
                elif f == "jvp":
                    expected = np.einsum("bij,bj->bi", fd, v)
                    size = np.einsum("bij,bj->bi", np.abs(fd), np.abs(v))
                    weight = np.abs(v).sum(axis=1)
                else:
                    expected = np.einsum("bi,bij->bj", w, fd)
                    size = np.einsum("bi,bij->bj", np.abs(w), np.abs(fd))
                    weight = np.abs(w).sum(axis=1)
                scale = np.maximum(size.reshape(len(x), -1).max(axis=1), floor * weight)
                errors = np.maximum(errors, _relative(actual[f], expected, scale))
            best = np.fmin(best, errors)
    return best


def _call(module: Any, f: str, x: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
    if f == "jacobian":
        return module.jacobian(x)
    if f == "value_and_jacobian":
        return module.value_and_jacobian(x)[1]
    return module.jvp(x, v) if f == "jvp" else module.vjp(x, w)


class _KernelLayouts:
    """A CUDA file's host build whose functions run point by point and through both
    kernels' index arithmetic, and raise unless the three agree exactly (the same
    device function on the same numbers)."""

    def __init__(self, module: CudaHostModule) -> None:
        self.module = module

    def _all(self, name: str, *arrays: np.ndarray) -> np.ndarray:
        def function(*given: np.ndarray, layout: str = "batch_first") -> np.ndarray:
            return self.module._function(name, given, layout)  # flat: value_and_jacobian too

        first = function(*arrays)
        last = function(*(np.asarray(a).T for a in arrays), layout="batch_last")
        kernels = [("batch_last", np.moveaxis(last, -1, 0))]
        if self.module.meta["block"][name]["f64"] is not None:  # its tiles fit: a kernel
            kernels.append(("batch_first", function(*arrays, layout="batch_first_kernel")))
        for layout, got in kernels:
            if not np.array_equal(got, first, equal_nan=True):
                raise DGraphError(f"the {layout} kernel's {name}() differs from {name}()")
        return first

    def primal(self, x: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("primal", x, *p)

    def jacobian(self, x: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("jacobian", x, *p)

    def jvp(self, x: np.ndarray, v: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("jvp", x, v, *p)

    def vjp(self, x: np.ndarray, w: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("vjp", x, w, *p)

    def value_and_jacobian(self, x: np.ndarray, *p: np.ndarray):
        flat = self._all("value_and_jacobian", x, *p)
        m, n = self.module.m, self.module.n
        return flat[..., :m], flat[..., m:].reshape((*flat.shape[:-1], m, n))
