"""Generated code run and checked by the one value check (:mod:`dgraph.core.value_check`),
and :class:`CodeCheck`, what every code check reports.

Here: how to run generated scalar code. The text is loaded (Python; C compiled with the
system compiler; CUDA compiled as C++ with ``DGRAPH_HOST``, its kernels' batch-first and
batch-last index arithmetic run on the host and required to give the point-by-point
results bit for bit; JAX in doubles) and run at the value check's points (the user's
first). ``jacobian``, ``jvp``, ``vjp`` and ``value_and_jacobian`` are compared with the
tangent sweep of the graph's own partials (the solved reference for a linear system's
residuals), and ``primal`` with the graph's values; then ``J·v`` with the reference
(JAX's ``jvp``, or Richardson differences of the generated ``primal``: this ties the
partials, which may be given as labels, to the values); ``vᵀ·J`` by the dot-product test.
A point where the differences cannot resolve ``J·v`` may sit on a kink (``abs``, ``max``,
a ``Piecewise`` condition): it is replaced by another point once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from ..core.graph import DGraph
from ..core.value_check import (
    TOLERANCE,
    ScalarPoints,
    Status,
    ValueCheck,
    errors_per_point,
    no_points,
    scalar_points,
    scalar_reference_jvp,
    sweep_reference,
    worst_error,
)
from ..errors import DGraphError
from .c import compiler, load_c
from .cuda import CudaHostModule, cxx_compiler, load_cuda_host
from .program import function_outputs
from .python import load_python

__all__ = ["CodeCheck", "check_generated", "code_check"]

DERIVATIVES = ("jacobian", "jvp", "vjp", "value_and_jacobian")


@dataclass(frozen=True)
class CodeCheck:
    """What a check of generated code found: ``ok`` only when every comparison ran and
    agreed; ``ran`` False when nothing could be compared (no compiler, no finite point, a
    reference that resolves nowhere): ``status`` is then ``not verified``.

    ``errors``: per generated function, its worst error against the graph's partials or
    the expression set (``primal`` and ``value``: against the program's values), in units
    of the magnitudes (|J|·|v|); ``difference_error``: the worst error of ``J·v`` against
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


def code_check(values: ValueCheck, code: str, function: str, method: str) -> CodeCheck:
    """A tensor graph's code check (:func:`~dgraph.core.value_check.check_code`) as a
    :class:`CodeCheck`: ``code`` names what ran in its detail, ``function`` the generated
    function its ``J·v`` or ``wᵀ·J`` error is reported under, ``method`` the expression
    set's."""
    if values.status == "not verified":
        return CodeCheck(False, False, values.detail, against=(values.reference,))
    ok = values.status == "verified"
    errors = {function if k in ("jvp", "vjp") else k: e for k, e in values.code_errors.items()}
    value = errors.pop("value", None)
    shown = ", ".join(f"{e:.0e}" for e in errors.values())
    detail = (
        f"{code} at {' and '.join(values.points) or 'the points tried'} against the"
        f" expression set's blocks ({method}; error {shown} of the magnitudes, tolerance"
        f" {TOLERANCE:.0e})"
    )
    if value is not None:
        detail += f", its F(x) against the array program (error {value:.0e})"
        errors["value"] = value
    return CodeCheck(
        ok,
        True,
        ("checked: " if ok else "check FAILED: ") + f"{detail}; {values.detail}",
        errors=errors,
        difference_error=values.error,
        against=("the expression set's blocks", values.reference),
    )


class Code(Protocol):
    """What :func:`check_generated` runs: the text, its language and its programs' names
    (``primal`` where the graph's values are known)."""

    text: str
    lang: str
    programs: Mapping[str, Any]


def _fail(detail: str) -> CodeCheck:
    return CodeCheck(ok=False, ran=False, detail=detail)


def check_generated(generated: Code, graph: DGraph, points: int = 4, seed: int = 0) -> CodeCheck:
    """Run ``generated`` at ``points`` points of the value check (seeded) and compare it
    as the module says.

    >>> from dgraph.core.builders import bundled
    >>> from dgraph.codegen.generate import generate
    >>> g = bundled("naumann_sin.trace")
    >>> result = check_generated(generate(g, "python", "reverse", check=False), g)
    >>> result.ok, sorted(result.errors), result.difference_error < 1e-6
    (True, ['jacobian', 'primal'], True)
    """
    names = tuple(generated.programs)
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
            return _checked(load_python(generated.text), names, graph, points, seed)
    else:
        module = load_python(generated.text)
    return _checked(module, names, graph, points, seed)


class _Run:
    """How to call a generated module: the free parameters' rows (one per point; for a
    batch of steps at one point, that point's row repeated) as the last argument."""

    def __init__(self, module: Any, params: np.ndarray | None) -> None:
        self.module, self.params = module, params

    def __call__(self, name: str, *arrays: np.ndarray, at: int | None = None):
        function = getattr(self.module, name)
        if self.params is None:
            return function(*arrays)
        rows = self.params if at is None else np.repeat(self.params[at : at + 1], len(arrays[0]), 0)
        return function(*arrays, rows)

    def primal(self, k: int) -> Callable[[np.ndarray], np.ndarray]:
        """``primal`` at a batch of points beside point ``k`` (with its parameters)."""
        return lambda xs: self("primal", xs, at=k)


def _checked(module: Any, programs: tuple[str, ...], graph: DGraph, count: int, seed: int):
    """:func:`check_generated` on a loaded module."""
    try:
        pool = scalar_points(graph, count + 1, seed)
        reference = sweep_reference(graph, pool.x, pool.params)
    except DGraphError as exc:  # the reference cannot be evaluated: nothing to compare with
        return _fail(str(exc))
    except Exception as exc:
        return _fail(f"the graph's partials cannot be evaluated ({type(exc).__name__})")
    if len(pool.x) < count and not (len(pool.x) and pool.given):
        return _fail(no_points(count))
    count = min(count, len(pool.x))  # fewer: the user's point and what else is finite
    names = [f for f in DERIVATIVES if f in programs]
    run = _Run(module, pool.params)
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
    return _verdict(errors, refs, pool, used, skipped, names)


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
        expected = np.stack([values[y] for y in function_outputs(graph)], axis=-1)
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


class _References:
    """``J·v`` of the generated derivatives against the reference, point by point."""

    def __init__(self, graph, got, reference, pool, primal) -> None:
        self.graph, self.got, self.pool, self.primal = graph, got, pool, primal
        self.magnitude = reference[2]
        self.found: dict[int, tuple[float, float, str] | str | None] = {}

    def at(self, k: int) -> tuple[float, float, str] | str | None:
        """(error after the estimate, error, reference) at point k; why there is none (a
        string); None where there is no reference (labels only, no JAX)."""
        if k not in self.found:
            self.found[k] = self._compare(k)
        return self.found[k]

    def _compare(self, k: int):
        x, v, w = self.pool.x[k], self.pool.v[k], self.pool.w[k]
        unit = self.magnitude[k] @ np.abs(v)
        primal = None if self.primal is None else self.primal(k)
        found = scalar_reference_jvp(self.graph, x, v, unit, primal)
        if found is None or isinstance(found, str):
            return found
        expected, estimate, label = found
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
        return worst, raw, label

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


def _point(x: np.ndarray) -> str:
    return "(" + ", ".join(f"{c:.6g}" for c in x) + ")"


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
