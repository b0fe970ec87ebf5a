"""autograd's own tests through dgraph's NumPy reader, with plain NumPy and SciPy.

``python autograd_survey.py DIR [FILE,...] [--tests PART,...]`` where ``DIR`` holds
autograd's ``tests/`` folder (``git archive HEAD tests | tar -x`` of a checkout of
github.com/HIPS/autograd); nothing of it is copied here; ``--tests`` keeps the cases whose
name (``file:test#i``) holds one of the parts. ``python autograd_survey.py table LOG...``
counts the outcomes (a later log's line replaces an earlier one's for the same case).

Each ``test_*`` function of the files (``test_numpy``, ``test_systematic``,
``test_linalg``, ``test_scipy``, ``test_binary_ops``, ``test_scalar_ops``, ...) runs once
(seeded as autograd's ``conftest.py`` seeds it, every ``pytest.mark.parametrize``
combination) with autograd's modules replaced by a shim: ``autograd.numpy`` (and its
``random``, ``linalg``, ``fft``) *is* ``numpy``, ``autograd.scipy.*`` *is* ``scipy.*``, and
``autograd.test_util``'s ``check_grads(fun, argnum)(*args, **kwargs)`` and
``combo_check(fun, argnums)(...)`` record the function and its arguments instead of
checking them. So each recorded case is a NumPy function as a user writes it; the test's
own assertions (about autograd) are not run.

For every case with real array arguments (complex ones, and a tuple or list of arrays
differentiated, are counted, not run) ``g``, the
function of the differentiated arguments with the others and the keywords closed over,
goes through ``dgraph.make_function(g, "jacobian", point=xs)`` (the default path), built
once at the test's arguments and evaluated there (``own``) and at a moved point (``rand``:
every differentiated element moved by U(-0.05, 0.05), seed 0). The reference is
fourth-order central differences of ``g`` itself (step ``1e-4 * max(1, |x|)``; error
about 1e-11 where g is smooth). Outcomes: ``ok`` right and verified, ``NOTVER`` right and
not verified, ``WRONG`` above ``TOL`` = 1e-6 of the largest |reference| (at least 1),
``REFUSED`` a one-line ``DGraphError``, ``ERROR`` anything else, ``SLOW`` over ``LIMIT``
CPU-s (SIGPROF), ``SKIP`` where NumPy itself fails at the point (no reference).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import itertools
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import scipy
import scipy.integrate
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats
from harness import survey_case, survey_table

import dgraph

warnings.simplefilter("ignore")
TOL = 1e-6
LIMIT = 60.0
CASES = ["jac"]
FILES = [
    "test_numpy",
    "test_systematic",
    "test_linalg",
    "test_scipy",
    "test_binary_ops",
    "test_scalar_ops",
    "test_fft",
    "test_wrappers",
    "test_direct",
    "test_jacobian",
    "test_truediv",
    "test_misc",
]
RECORDED: list[tuple[Any, tuple, dict, Any]] = []


def check_grads(fun: Any, argnum: Any = 0, *_: Any, **__: Any) -> Any:
    """autograd's ``check_grads`` that records ``(fun, args, kwargs, argnum)``."""

    def record(*args: Any, **kwargs: Any) -> None:
        RECORDED.append((fun, args, kwargs, argnum))

    return record


def combo_check(fun: Any, *args: Any, **kwargs: Any) -> Any:
    """autograd's ``combo_check``: every combination of the arguments and keywords."""

    def check(*arg_lists: Any, **kwarg_lists: Any) -> None:
        keyed = [[(k, x) for x in xs] for k, xs in kwarg_lists.items()]
        for combo in itertools.product(*arg_lists):
            for kw in itertools.product(*keyed):
                check_grads(fun, *args, **kwargs)(*combo, **dict(kw))

    return check


def install_shim() -> None:
    """autograd's NumPy and SciPy modules as NumPy's and SciPy's own, and a recording
    ``autograd.test_util``; autograd's other modules stay (tests about autograd itself
    fail, after recording what they checked)."""
    import autograd

    util = types.ModuleType("autograd.test_util")
    util.check_grads = check_grads  # type: ignore[attr-defined]
    util.combo_check = combo_check  # type: ignore[attr-defined]
    util.scalar_close = lambda a, b: abs(a - b) < 1e-6  # type: ignore[attr-defined]
    util.check_equivalent = lambda a, b: None  # type: ignore[attr-defined]
    mirrors = {
        "autograd.numpy": np,
        "autograd.numpy.random": np.random,
        "autograd.numpy.linalg": np.linalg,
        "autograd.numpy.fft": np.fft,
        "autograd.scipy": scipy,
        "autograd.scipy.special": scipy.special,
        "autograd.scipy.stats": scipy.stats,
        "autograd.scipy.signal": scipy.signal,
        "autograd.scipy.linalg": scipy.linalg,
        "autograd.scipy.integrate": scipy.integrate,
        "autograd.test_util": util,
    }
    for name in ("norm", "multivariate_normal", "t", "beta", "gamma", "chi2", "poisson"):
        mirrors[f"autograd.scipy.stats.{name}"] = getattr(scipy.stats, name)
    mirrors["autograd.scipy.stats.dirichlet"] = scipy.stats.dirichlet
    sys.modules.update(mirrors)
    autograd.numpy = np  # type: ignore[attr-defined]
    autograd.scipy = scipy  # type: ignore[attr-defined]
    autograd.test_util = util  # type: ignore[attr-defined]


def parametrized(fn: Any) -> list[dict]:
    """The keyword sets of ``fn``'s ``pytest.mark.parametrize`` marks (one empty one
    without)."""
    sets: list[dict] = [{}]
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
        rows = [v if len(names) > 1 else (v,) for v in values]
        sets = [{**s, **dict(zip(names, r, strict=True))} for s in sets for r in rows]
    return sets


def collect(folder: str, files: list[str]) -> list[tuple[str, Any, tuple, dict, Any]]:
    """``(name, fun, args, kwargs, argnum)`` of every recorded case of ``files``."""
    install_shim()
    sys.path.insert(0, str(Path(folder) / "tests"))
    cases = []
    for file in files:
        np.random.seed(42)
        module = importlib.import_module(file)
        for test, fn in vars(module).items():
            if not test.startswith("test_") or not callable(fn):
                continue
            for p, kw in enumerate(parametrized(fn)):
                RECORDED.clear()
                np.random.seed(42)
                with contextlib.suppress(BaseException):  # autograd's own checks fail here
                    fn(**kw)
                tag = f"{file.removeprefix('test_')}:{test}" + (f"[{p}]" if kw else "")
                cases += [(f"{tag}#{i}", *rec) for i, rec in enumerate(RECORDED)]
    return cases


def is_complex(a: Any) -> bool:
    try:
        return bool(np.iscomplexobj(a))
    except ValueError:
        return False


def argnums(argnum: Any) -> tuple[int, ...]:
    return (argnum,) if isinstance(argnum, int) else tuple(argnum)


def closed(fun: Any, args: tuple, kwargs: dict, nums: tuple[int, ...]) -> Any:
    """``fun`` of the differentiated arguments, the others and the keywords closed over."""

    def g(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(nums, xs, strict=True):
            full[i] = x
        return fun(*full, **kwargs)

    named = {  # one plain parameter per input, as a user writes the lambda
        1: lambda x: g(x),
        2: lambda x, y: g(x, y),
        3: lambda x, y, z: g(x, y, z),
        4: lambda x, y, z, u: g(x, y, z, u),
        5: lambda x, y, z, u, v: g(x, y, z, u, v),
    }
    return named[len(nums)]


def leaves(y: Any) -> list[np.ndarray]:
    if isinstance(y, (list, tuple)):
        return [np.asarray(v) for v in y]
    return [np.asarray(y)]


def numeric_jacobian(g: Any, xs: list, step: float = 1e-4) -> list[np.ndarray]:
    """Fourth-order central differences of ``g`` in each argument of ``xs`` (steps
    ``step * max(1, |x|)``): for each output (of a tuple, in order), for each argument,
    ``out.shape + x.shape``."""
    ys = leaves(g(*xs))
    blocks: list[list[np.ndarray]] = [[] for _ in ys]
    for k, x in enumerate(xs):
        a = np.asarray(x, dtype=float)
        cols: list[list[np.ndarray]] = [[] for _ in ys]
        for j in range(a.size):
            h = step * max(1.0, abs(a.flat[j]))

            def at(t: float, j: int = j, a: np.ndarray = a, h: float = h, k: int = k) -> list:
                b = a.copy()
                b.flat[j] += t * h
                args = list(xs)
                args[k] = float(b) if isinstance(xs[k], float) else b
                return leaves(g(*args))

            p1, m1, p2, m2 = at(1), at(-1), at(2), at(-2)
            for o in range(len(ys)):
                cols[o].append((8 * (p1[o] - m1[o]) - (p2[o] - m2[o])) / (12 * h))
        for o, y in enumerate(ys):
            shape = y.shape + a.shape
            blocks[o].append(
                np.stack(cols[o], axis=-1).reshape(shape) if cols[o] else np.zeros(shape)
            )
    return [b for row in blocks for b in row]


def moved(xs: list, rng: np.random.Generator) -> list:
    def move(x: Any) -> Any:
        if isinstance(x, float):
            return x + float(rng.uniform(-0.05, 0.05))
        a = np.asarray(x, dtype=float)
        return a + rng.uniform(-0.05, 0.05, a.shape)

    return [move(x) for x in xs]


def flat(tree: Any) -> np.ndarray:
    """The leaves of nested tuples and lists of arrays, raveled and joined in order."""
    if isinstance(tree, (list, tuple)):
        parts = [flat(v) for v in tree]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(tree.toarray() if hasattr(tree, "toarray") else tree).ravel()


def error(a: np.ndarray, b: np.ndarray) -> float:
    """The largest difference relative to the largest |reference| (at least 1)."""
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    return float(np.abs(a - b).max(initial=0.0) / scale) if np.isfinite(a).all() else np.inf


MADE: dict[str, Any] = {}


def case(name: str, g: Any, xs: list, where: str) -> str:
    if where == "own":
        MADE[name] = dgraph.make_function(g, "jacobian", point=xs)
    made = MADE.get(name)
    if made is None:
        return "SKIP no function built"
    try:
        with np.errstate(all="ignore"):
            ref = numeric_jacobian(g, xs)
    except Exception as e:  # NumPy itself fails at the point: no reference
        return f"SKIP reference: {type(e).__name__}"
    a, b = flat(made(*xs)), flat(ref)
    if a.shape != b.shape:
        return f"WRONG-SIZE {a.shape} vs {b.shape}"
    if not np.isfinite(b).all():
        return "SKIP reference not finite"
    err = error(a, b)
    if err > TOL:  # a jump or a steep derivative within the steps: steps 100 times shorter
        with np.errstate(all="ignore"):
            err = min(err, error(a, flat(numeric_jacobian(g, xs, 1e-6))))
    verified = made.generated.verified
    verdict = "WRONG" if err > TOL else "ok" if verified is True else "NOTVER"
    why = "" if verified is True else " | " + str(made.generated.check.status)[:120]
    return f"{verdict} err {err:.1e} verified={verified}{why}"


def describe(fun: Any, args: tuple, kwargs: dict) -> str:
    shapes = ",".join("x".join(map(str, np.shape(a))) or "s" for a in args)
    kw = ",".join(
        f"{k}={np.shape(v) if isinstance(v, np.ndarray) else v}" for k, v in kwargs.items()
    )
    return f"[{getattr(fun, '__name__', type(fun).__name__)}({shapes}{';' + kw if kw else ''})]"


def run(folder: str, files: list[str], only: str) -> None:
    cases = collect(folder, files)
    complex_count = containers = 0
    rng = np.random.default_rng(0)
    for name, fun, args, kwargs, argnum in cases:
        if only and not any(part in name for part in only.split(",")):
            continue
        nums = argnums(argnum)
        if any(is_complex(a) for a in args):
            complex_count += 1
            continue
        xs = [args[i] for i in nums]
        if not all(isinstance(x, (float, np.ndarray, np.floating)) for x in xs):
            containers += 1  # a tuple or list differentiated: no reference here
            continue
        g = closed(fun, args, kwargs, nums)
        points = (("own", xs), ("rand", moved(xs, rng)))
        for where, point in points:
            if where == "rand" and name not in MADE:
                break
            run_case = functools.partial(case, name, g, point, where)
            msg, cpu = survey_case(run_case, LIMIT)
            label = describe(fun, args, kwargs)
            print(f"{name:44s} {where:4s} jac {cpu:6.2f}s {msg} {label}", flush=True)
        MADE.pop(name, None)
    print(
        f"# {len(cases)} cases recorded, {complex_count} with complex arguments and"
        f" {containers} differentiating a tuple or list not run"
    )


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        survey_table(sys.argv[2:], CASES, "cases")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("files", nargs="?", default=",".join(FILES))
    parser.add_argument("--tests", default="")
    args = parser.parse_args()
    run(args.folder, args.files.split(","), args.tests)


if __name__ == "__main__":
    main()
