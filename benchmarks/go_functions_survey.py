"""SciPy's global-optimization benchmark functions through dgraph, unmodified.

``python go_functions_survey.py DIR [NAME,...] [--cases c1,c2] [--big N]`` where ``DIR``
is scipy's ``benchmarks/benchmarks/go_benchmark_functions`` folder, extracted from a
checkout of github.com/scipy/scipy (``git archive HEAD
benchmarks/benchmarks/go_benchmark_functions | tar -x``); nothing of it is copied here.

Each ``Benchmark`` class's ``fun(self, x)`` (NumPy, written by scipy's authors) is run at
its own dimension, or at N = 2 and ``--big`` (default 10) where the class can change it,
at its ``global_optimum`` and at a random point of its ``bounds`` (seed 0), through

- ``accum``: ``dgraph.jacobian(f, point=...)`` (only its ``verified`` flag),
  ``f`` the bound method ``problem.fun`` itself,
- ``grad``: ``dgraph.make_function(f, "jacobian", point=...)``,
- ``hess`` / ``hess-sp``: ``dgraph.make_function(f, "hessian", point=..., sparse=...)``.

The reference is the same ``fun`` run with every NumPy name of its module swapped for
JAX's (a copy of the module's globals, at run time, in this harness only), ``jax.grad``
and ``jax.hessian``; where JAX cannot run it (in-place assignment, ...), central
differences of ``fun`` itself (gradient) and of the reference gradient or of dgraph's own
(Hessian), with a looser tolerance (``FD_TOL``). One line per case:

``ok`` right and verified; ``NOTVER`` right, not verified; ``WRONG`` above the tolerance;
``KINK`` the function (gradient case) or its gradient (Hessian cases) has a kink there
(:func:`kinked`) and dgraph differs from JAX; ``BOTHNAN`` the reference is not finite
there and dgraph gives the same NaNs; ``NONDIFF`` the reference is not finite there and
dgraph differs; ``REFUSED`` a one-line ``DGraphError``; ``ERROR`` anything else (a
traceback); ``SLOW`` over ``LIMIT`` CPU-s (SIGPROF).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import inspect
import sys
import types
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
from harness import not_ok, outcome_table, survey_case  # noqa: E402

import dgraph  # noqa: E402

warnings.simplefilter("ignore")
TOL = 1e-8  # relative to the largest row sum of |reference|
FD_TOL = 1e-5
LIMIT = 60.0
CASES = ["accum", "grad", "hess", "hess-sp"]


def load(folder: str) -> dict[str, type]:
    """scipy's classes, by name: a stand-in parent package holds ``common.safe_import``."""
    root = types.ModuleType("go_root")
    root.__path__ = []
    common = types.ModuleType("go_root.common")

    class safe_import(contextlib.AbstractContextManager):
        def __exit__(self, *exc: object) -> bool:
            return exc[0] is not None and issubclass(exc[0], ImportError)

    common.safe_import = safe_import
    sys.modules["go_root"] = root
    sys.modules["go_root.common"] = common
    spec = importlib.util.spec_from_file_location(
        "go_root.go", f"{folder}/__init__.py", submodule_search_locations=[folder]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules["go_root.go"] = package
    spec.loader.exec_module(package)
    base = sys.modules["go_root.go.go_benchmark"].Benchmark
    return {
        name: c
        for name, c in sorted(vars(package).items())
        if inspect.isclass(c) and issubclass(c, base) and c is not base
    }


def jax_fun(obj: object) -> types.FunctionType:
    """``obj.fun`` with its module's NumPy names (``np``, ``sum``, ``cos``...) JAX's."""
    fun = type(obj).fun
    scope = dict(fun.__globals__)
    for name, value in fun.__globals__.items():
        if value is np:
            scope[name] = jnp
        elif getattr(value, "__module__", None) in ("numpy", "numpy._core.numeric") or (
            isinstance(value, np.ufunc)
        ):
            swapped = getattr(jnp, getattr(value, "__name__", name), None)
            if swapped is not None:
                scope[name] = swapped
        elif name == "rosen":
            scope[name] = lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    swapped = types.FunctionType(fun.__code__, scope, fun.__name__, fun.__defaults__)
    return lambda x: swapped(obj, x)


def central(f, x: np.ndarray, h: float) -> np.ndarray:
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h * max(1.0, abs(x[i]))
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * e[i]))
    return np.stack(cols, axis=-1)


def kinked(f, x: np.ndarray) -> bool:
    """Whether some entry of ``f`` (values or a gradient) has one-sided slopes that differ
    at ``x`` along a coordinate and keep differing as the step halves (a kink, not
    curvature: that difference halves with the step)."""
    f0 = np.ravel(f(x))
    for i in range(x.size):
        jumps = []
        for h in (1e-4 * max(1.0, abs(x[i])), 5e-5 * max(1.0, abs(x[i]))):
            e = np.zeros_like(x)
            e[i] = h
            up, down = np.ravel(f(x + e)), np.ravel(f(x - e))
            jumps.append(np.abs((up - f0) - (f0 - down)) / h)
        big = 1e-6 * np.maximum(1.0, np.abs(f0))
        with np.errstate(invalid="ignore"):
            if np.any((jumps[0] > big) & (jumps[1] > 0.75 * jumps[0])):
                return True
    return False


class Corners:
    """Whether the function (``[0]``) and its gradient (``[1]``, JAX's; False without
    it) have kinks at ``x``, found when first asked."""

    def __init__(self, f, grad, x: np.ndarray) -> None:
        self.parts, self.x, self.found = (f, grad), x, {}

    def __getitem__(self, k: int) -> bool:
        if k not in self.found:
            f = self.parts[k]
            self.found[k] = f is not None and kinked(f, self.x)
        return self.found[k]


def references(obj: object, x: np.ndarray) -> tuple:
    """The gradient and Hessian at ``x``, how they were found, and whether the function
    and its gradient have kinks there. JAX's; where JAX's are not finite but the function
    has no kink there (``sqrt`` of an entry that is zero whatever x is), or JAX cannot
    run it, central differences."""
    g, h, how, corners = _jax_references(obj, x)
    finite = np.isfinite(g).all() and np.isfinite(h).all()
    if how == "jax" and not finite and not corners[0]:
        d = _differences(obj, x)
        return d[0], d[1], "fd", corners
    return g, h, how, corners


def _differences(obj: object, x: np.ndarray) -> tuple:
    g = central(lambda y: obj.fun(y), x, 1e-6)
    h = central(lambda y: central(lambda z: obj.fun(z), y, 1e-5), x, 1e-4)
    return g, (h + h.T) / 2, "fd", Corners(obj.fun, None, x)


def _jax_references(obj: object, x: np.ndarray) -> tuple:
    try:
        fj = jax_fun(obj)
        g = np.asarray(jax.grad(fj)(jnp.asarray(x)))
        h = np.asarray(jax.hessian(fj)(jnp.asarray(x)))
        grad = jax.grad(fj)
        corners = Corners(obj.fun, lambda y: np.asarray(grad(jnp.asarray(y))), x)
        return g, h, "jax", corners
    except Exception:
        return _differences(obj, x)


def dense(a: object) -> np.ndarray:
    if hasattr(a, "toarray"):
        return a.toarray()
    if hasattr(a, "todense"):
        return np.asarray(a.todense())
    return np.asarray(a, dtype=float)


def compare(value: np.ndarray, ref: np.ndarray, tol: float) -> tuple[str, float]:
    value = np.reshape(value, ref.shape)
    if not np.isfinite(ref).all():
        same = np.array_equal(np.isnan(value), np.isnan(ref)) and np.allclose(
            value[np.isfinite(ref)], ref[np.isfinite(ref)], rtol=tol, atol=tol
        )
        return ("BOTHNAN" if same else "NONDIFF"), float("nan")
    rows = max(np.abs(np.atleast_2d(ref)).sum(axis=-1).max(), 1.0)
    err = float(np.abs(value - ref).max() / rows) if np.isfinite(value).all() else np.inf
    return ("ok" if err <= tol else "WRONG"), err


def case(obj: object, kind: str, x: np.ndarray, refs: tuple) -> str:
    fx = obj.fun  # as a user would give it: a bound method ``fun(x, *args)``
    if kind == "accum":
        es = dgraph.jacobian(fx, point=[x])
        if es.verified:
            return "ok verified=True"
        detail = getattr(es.verification, "detail", es.verification)
        return f"NOTVER {detail}"[:240]
    mode = "jacobian" if kind == "grad" else "hessian"
    made = dgraph.make_function(fx, mode, point=[x], sparse=kind.endswith("sp"))
    value = dense(made(x))
    g, h, how, corners = refs
    ref = g if kind == "grad" else h
    tol = TOL if how == "jax" else FD_TOL
    verdict, err = compare(value, ref, tol)
    if verdict == "WRONG" and corners[kind != "grad"]:
        verdict = "KINK"  # no derivative there: dgraph's and JAX's one-sided rules differ
    gen = made.generated
    verified = getattr(gen, "verified", "?")
    if verdict == "ok" and verified is not True:
        verdict = "NOTVER"
    why = "" if verified is True else " | " + str(getattr(gen.check, "status", gen.check))[:160]
    return f"{verdict} err {err:.1e} ref={how} verified={verified}{why}"


def run(name: str, cls: type, n: int | None, cases: list[str]) -> None:
    obj = cls(dimensions=n) if n else cls()
    label = f"{name}[{obj.N}]"
    rng = np.random.default_rng(0)
    points = []
    if obj.global_optimum is not None and len(obj.global_optimum[0]) == obj.N:
        points.append(("opt", np.asarray(obj.global_optimum[0], dtype=float)))
    bounds = np.asarray(obj.bounds, dtype=float)
    points.append(("rand", rng.uniform(bounds[:, 0], bounds[:, 1])))
    for where, x in points:
        refs = references(obj, x)
        for kind in cases:
            msg, cpu = survey_case(functools.partial(case, obj, kind, x, refs), LIMIT)
            print(f"{label:18s} {where:4s} {kind:8s} {cpu:6.2f}s {msg}", flush=True)


def table(paths: list[str]) -> None:
    """Counts per outcome and case from the survey's output files (a later line for the
    same function, dimension, point and case replaces an earlier one), then every case
    that is not right and verified. ``WRONG`` with an infinite error and not verified is
    dgraph's non-finite value where the reference is finite: ``NAN``."""
    rows: dict[tuple, tuple[str, str]] = {}
    lines = [line for path in paths for line in Path(path).read_text().splitlines()]
    for line in lines:
        parts = line.split()
        if len(parts) < 6 or parts[1] == "setup":
            continue
        label, where, kind, _, verdict = parts[:5]
        if verdict == "WRONG" and "err inf" in line and "verified=False" in line:
            verdict = "NAN"
        rows[(label, where, kind)] = (verdict, line.rstrip())
    kinds = sorted({k[2] for k in rows})
    outcome_table(rows, kinds)
    functions = {k[0].split("[")[0] for k in rows}
    print(f"{len(rows)} cases, {len(functions)} classes")
    not_ok(rows, 200)


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        table(sys.argv[2:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("names", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--big", type=int, default=10, help="the larger N (0: N = 2 only)")
    parser.add_argument("--part", default="0/1", help="i/k: every k-th class from the i-th")
    args = parser.parse_args()
    classes = load(args.folder)
    names = args.names.split(",") if args.names else list(classes)
    i, k = map(int, args.part.split("/"))
    for name in names[i::k]:
        cls = classes[name]
        dims = ([2, args.big] if args.big else [2]) if cls.change_dimensionality else [None]
        for n in dims:
            try:
                run(name, cls, n, args.cases.split(","))
            except Exception as e:
                print(f"{name:18s} setup ERROR {type(e).__name__}: {str(e)[:200]}", flush=True)


if __name__ == "__main__":
    main()
