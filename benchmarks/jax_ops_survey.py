"""JAX's own autodiff tests' operations through dgraph's JAX reader, unmodified.

``python jax_ops_survey.py DIR [FILTER] [--cases c1,c2]`` where ``DIR`` holds JAX's
``tests/`` folder at the installed JAX's tag (``git archive jax-v0.10.2 tests | tar -x``
of a checkout of github.com/jax-ml/jax); nothing of it is copied here.
``python jax_ops_survey.py table OUT...`` counts the outcomes.

Every ``check_grads(f, args, order)`` call that JAX's tests make in
``lax_autodiff_test.py`` (``LAX_GRAD_OPS`` and the structural ops: conv, dot, reduce,
gather, scatter, sort...), ``lax_numpy_test.py`` (``NumpyGradTests``,
``GRAD_TEST_RECORDS``), ``lax_scipy_special_functions_test.py`` and ``linalg_test.py``
is recorded by running those test methods with ``check_grads`` replaced (their own
functions, arguments, domains and orders; ``JAX_NUM_GENERATED_CASES`` samples per
record, 3 unless set). Floating arguments are taken in float64; a complex argument or a
record JAX itself cannot differentiate in float64 is skipped. Each record ``f(*args)`` is
given to dgraph as ``lambda x0, x1, ...: f(x0, x1, ...)`` through

- ``accum``: ``dgraph.jacobian(f, point=args)`` (its ``verified``),
- ``jac``: ``dgraph.make_function(f, "jacobian", point=args)`` against ``jax.jacfwd``
  over every argument,
- ``hess`` (records with ``order >= 2``): ``make_function(g, "hessian", point=args)``
  against ``jax.hessian`` of ``g = sum(c * f(*xs))``, ``c`` a fixed random cotangent
  (seed 0) where ``f`` is not scalar,
- ``star`` (not run unless named in ``--cases``): ``jac`` of ``lambda *xs: f(*xs)``
  itself, the form JAX's tests write.

Outcomes as in ``optimistix_survey.py`` (``ok``, ``NOTVER``, ``WRONG``, ``REFUSED``,
``ERROR``, ``SLOW`` over ``LIMIT`` CPU-s).
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import os
import sys
import unittest
import warnings

os.environ.setdefault("JAX_ENABLE_X64", "1")
os.environ.setdefault("JAX_NUM_GENERATED_CASES", "3")

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
from harness import made_verdict, survey_case, survey_table  # noqa: E402
from optimistix_survey import compare as compare_finite  # noqa: E402
from optimistix_survey import dense  # noqa: E402

import dgraph  # noqa: E402

warnings.simplefilter("ignore")
LIMIT = 60.0
CASES = ["accum", "jac", "hess", "star"]
MODULES = {
    "lax_autodiff_test": ["LaxAutodiffTest"],
    "lax_numpy_test": ["NumpyGradTests"],
    "lax_scipy_special_functions_test": ["LaxScipySpecialFunctionsTest"],
    "linalg_test": ["NumpyLinalgTest", "ScipyLinalgTest", "LaxLinalgTest"],
}


def as_float64(a: object) -> object:
    """``a`` with a floating dtype in float64; None for a complex argument."""
    arr = np.asarray(a)
    if np.iscomplexobj(arr):
        return None
    if np.issubdtype(arr.dtype, np.floating) or arr.dtype.name == "bfloat16":
        return np.asarray(arr, dtype=np.float64)
    return arr


def with_check_grads(path: str) -> set[str]:
    """``Class.method`` of every test method in the file at ``path`` that calls
    ``check_grads`` (only those are run)."""
    with open(path) as file:
        tree = ast.parse(file.read())
    return {
        f"{c.name}.{f.name}"
        for c in ast.walk(tree)
        if isinstance(c, ast.ClassDef)
        for f in c.body
        if isinstance(f, ast.FunctionDef) and "check_grads" in ast.unparse(f)
    }


def wanted_test(tid: str, wanted: str) -> bool:
    """Whether the test ``tid`` is one ``wanted`` names: a comma-separated list of parts
    of ids (any; all where empty), or ``!text``: those whose id does not hold ``text``."""
    if wanted.startswith("!"):
        return wanted[1:] not in tid
    return not wanted or any(part in tid.replace(" ", "") for part in wanted.split(","))


def records(folder: str, wanted: str) -> list[tuple[str, object, tuple, int]]:
    """``(name, f, args, order)`` of every ``check_grads`` call of the test methods of
    :data:`MODULES` that ``wanted`` names (:func:`wanted_test`)."""
    import jax._src.test_util as jtu

    sys.path.insert(0, os.path.join(folder, "tests"))
    seen: list[tuple[str, object, tuple, int]] = []
    current = [""]

    def record(f, args, order=2, *rest, **kw):
        seen.append((current[0], f, tuple(args), int(order)))

    jtu.check_grads = record
    for modname, classes in MODULES.items():
        module = __import__(modname)
        grads = with_check_grads(os.path.join(folder, "tests", modname + ".py"))
        module.check_grads = record
        for cls in classes:
            for test in unittest.defaultTestLoader.loadTestsFromTestCase(getattr(module, cls)):
                tid = test.id().split(".", 1)[1]
                if not any(
                    tid == g
                    or (tid[len(g) : len(g) + 1] in (*"0123456789", "_") and tid.startswith(g))
                    for g in grads
                ) or not wanted_test(tid, wanted):
                    continue
                current[0] = tid
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    test.run(unittest.TestResult())
    out = []
    for i, (tid, f, args, order) in enumerate(seen):
        cast = tuple(as_float64(a) for a in args)
        if any(a is None for a in cast) or not cast:
            continue
        out.append((f"{i}:{tid}".replace(" ", ""), f, cast, order))
    return out


def op_name(f: object) -> str:
    while isinstance(f, functools.partial):
        f = f.func
    return getattr(f, "__name__", type(f).__name__).replace("<lambda>", "lambda")


def shapes(args: tuple) -> str:
    return ",".join("x".join(map(str, np.shape(a))) or "s" for a in args)


def reference(f: object, args: tuple, kind: str) -> tuple[object, object]:
    """The function surveyed and JAX's derivative of it at ``args``."""
    nums = tuple(range(len(args))) if len(args) > 1 else 0
    if kind != "hess":
        return f, jax.jacfwd(f, argnums=nums)(*args)
    out = jax.eval_shape(f, *args)
    c = np.random.default_rng(0).standard_normal(np.shape(out))

    g = named(lambda *xs: jnp.sum(c * f(*xs)) if np.shape(out) else f(*xs), len(args))
    return g, jax.hessian(g, argnums=nums)(*args)


def compare(ours: object, ref: object) -> tuple[str, float]:
    """``optimistix_survey.compare``; outside the op's domain (JAX's tests draw asin's
    points from (-1.3, 1.3)) ``NAN`` where the finite entries agree and every NaN of ours
    is one of JAX's (JAX's rows there are NaN throughout, ``0·NaN``; ours keep the
    structural zeros); a float32 reference (``out_dtype=float32``) to 1e-5."""
    a = np.concatenate([np.ravel(dense(v)) for v in jax.tree_util.tree_leaves(ours)] or [[]])
    b = np.concatenate([np.ravel(np.asarray(v)) for v in jax.tree_util.tree_leaves(ref)] or [[]])
    if a.shape != b.shape or np.isfinite(b).all():
        verdict, err = compare_finite(ours, ref)
        single = any(np.asarray(v).dtype == np.float32 for v in jax.tree_util.tree_leaves(ref))
        if verdict == "WRONG" and single and err < 1e-5:  # JAX's own float32 (out_dtype)
            verdict = "ok"
        return verdict, err
    bad = ~np.isfinite(b)
    if not np.array_equal(~np.isfinite(a) & ~bad, np.zeros_like(bad)):
        return "WRONG", float("inf")
    kept = np.isfinite(a) & ~bad
    if not np.all((a[bad] == 0) | ~np.isfinite(a[bad])):
        return "WRONG", float("inf")
    err = float(
        np.abs(a[kept] - b[kept]).max(initial=0.0) / max(1.0, np.abs(b[kept]).max(initial=0))
    )
    return ("NAN" if err <= 1e-8 else "WRONG"), err


def named(f: object, count: int) -> object:
    """``lambda x0, x1, ...: f(x0, x1, ...)``, as a user writes it (``count`` arguments)."""
    fn = lambda *xs: f(*xs)  # noqa: E731
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    fn.__signature__ = inspect.Signature([inspect.Parameter(f"x{k}", kind) for k in range(count)])
    return fn


def case(f: object, args: tuple, kind: str) -> str:
    fn = named(f, len(args)) if kind != "star" else lambda *xs: f(*xs)
    if kind == "accum":
        es = dgraph.jacobian(fn, point=list(args))
        if es.verified:
            return "ok verified=True"
        return f"NOTVER {getattr(es.verification, 'detail', es.verification)}"[:240]
    g, ref = reference(fn, args, kind)
    made = dgraph.make_function(g, "hessian" if kind == "hess" else "jacobian", point=list(args))
    value = made(*args)
    return made_verdict(made, compare(value, ref))


def runnable(f: object, args: tuple, kind: str) -> bool:
    """Whether JAX itself differentiates the record in float64 (its real outputs)."""
    try:
        out = jax.eval_shape(f, *args)
        leaves = jax.tree_util.tree_leaves(out)
        if not leaves or any(jnp.issubdtype(v.dtype, jnp.complexfloating) for v in leaves):
            return False
        if kind == "hess" and (len(leaves) != 1 or not isinstance(out, jax.ShapeDtypeStruct)):
            return False
        reference(f, args, kind)
        return True
    except Exception:
        return False


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        survey_table(sys.argv[2:], CASES, "records")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("filter", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES[:3]))
    args = parser.parse_args()
    done = set()
    for name, f, xs, order in records(args.folder, args.filter):
        label = f"{name.split(':', 1)[1].split('(')[0]}:{op_name(f)}[{shapes(xs)}]"
        test = name.split(":", 1)[1].split("(")[0].rstrip("0123456789")
        key = (test, op_name(f), shapes(xs), order)
        if key in done:
            continue
        done.add(key)
        for kind in args.cases.split(","):
            if (kind == "hess" and order < 2) or not runnable(f, xs, kind):
                continue
            msg, cpu = survey_case(functools.partial(case, f, xs, kind), LIMIT)
            print(f"{label:60s} rand {kind:6s} {cpu:6.2f}s {msg}", flush=True)


if __name__ == "__main__":
    main()
