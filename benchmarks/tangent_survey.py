"""Google Tangent's own test functions through dgraph's NumPy reader.

``python tangent_survey.py DIR [--only NAME,...] [--kinds jac,hess,hvp,all] [--short]``
where ``DIR`` holds Tangent's ``tests/`` folder (``git archive HEAD tests | tar -x`` of a
checkout of github.com/google/tangent); nothing of it is copied here: its
``tests/functions.py`` and ``tests/test_hessian_vector_products.py`` are imported from
there at run time (``tangent`` and ``tfe_utils`` replaced by empty stand-ins).
``python tangent_survey.py table LOG...`` counts the outcomes (a later log's line
replaces an earlier one's for the same case).

Tangent (B. van Merriënboer, D. Moldovan, A. Wiltschko, *Tangent: automatic
differentiation using source-code transformation for dynamically typed array
programming*, NeurIPS 2018) tests every function of ``functions.py`` by the names of its
arguments (``conftest.py``): ``a, b, c`` the scalars -2, -1.5, -1, -0.5, -0.1, 0.1, 0.5,
1, 1.5, 2 (every combination), ``n`` the integers 1, 2, 3, ``x`` vectors of 3, 5 and 10
normal entries, ``sqm`` square matrices 1 x 1 and 5 x 5 (``--short``: Tangent's own
``--short``, 2.0, 1, one vector of 3, one 3 x 3 matrix); the derivative by the first
argument (Tangent's ``wrt=(0,)``), the others fixed; and, by hand in
``test_reverse_mode.py``, ``logistic_regression`` by ``(W, b)``, ``rnn`` by
``(inputs, W)``, ``bilinear`` by ``x``, and ``(a, b, c)`` packed in a tuple or a dict.
``test_hessian_vector_products.py``'s ``f_straightline`` and ``f_calltree`` take 300
normal entries (seed 0) and ``v = x``. Functions that Tangent's ``conftest.py`` keeps
out of its value tests (``blacklisted``) run too.

Each function's argument sets are grouped by what fixes the program (shapes, the
integers): per group the function is made once, at the group's first set, with
``dgraph.make_function(f, kind, point=..., params=<the arguments not differentiated>)``,
and called at every set of the group, so a made function that holds at one point only
shows as WRONG elsewhere. Kinds: ``jac`` ("jacobian"), ``hess`` ("hessian", where the
value is one number), ``hvp`` ("hvp", a normal tangent seeded per set), ``all``
("jacobian" by every float argument, the integers still parameters; where that differs
from Tangent's), ``ints`` ("jacobian" by every argument, an integer ``n`` too, as a user
who leaves ``params=`` out writes it), ``c`` and ``jax`` ("jacobian" printed in C, in
JAX); ``ints``, ``c`` and ``jax`` run only when named.

The reference is Tangent's own: autograd (``autograd.jacobian``/``hessian`` of the
function with its module's ``np`` set to ``autograd.numpy``, as Tangent's
``tests/utils.py`` does), and, where autograd fails (assignment into an array, a tuple
returned), central differences of the function itself with error bars: fourth-order
first differences (step ``1e-4 * max(1, |x|)``) and second-order mixed second differences
(step ``1e-3 * max(1, |x|)``, Richardson-combined with twice the step), the error bar
the difference between the two steps. Outcomes per group: ``ok`` right at every set and
verified, ``NOTVER`` right and not verified, ``WRONG`` beyond ``TOL`` times the largest
|reference| (at least 1) plus ten error bars at some set, ``REFUSED`` a one-line
``DGraphError`` (building or calling), ``ERROR`` anything else, ``SLOW`` over ``LIMIT``
CPU-s (SIGPROF), ``SKIP`` where NumPy itself fails at the point, ``NOTNUMPY`` a
TensorFlow function (``tfe_*``) or one that calls ``tangent``'s own stack.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib.util
import inspect
import itertools
import sys
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import autograd
import autograd.numpy as anp
import numpy as np
from harness import survey_case, survey_table

import dgraph

warnings.simplefilter("ignore")
TOL = 1e-6
LIMIT = 60.0
KINDS = ["jac", "hess", "hvp", "all", "ints", "c", "jax"]
MODES = {"jac": "jacobian", "hess": "hessian", "hvp": "hvp", "all": "jacobian", "ints": "jacobian",
         "c": "jacobian", "jax": "jacobian"}  # fmt: skip
LANGS = {"c": "c", "jax": "jax"}  # "jacobian" printed in C, in JAX; the others in NumPy
SCALARS = [-2.0, -1.5, -1.0, -0.5, -0.1, 0.1, 0.5, 1.0, 1.5, 2.0]  # Tangent's conftest.py
INTEGERS = [1, 2, 3]
VECTORS = [3, 5, 10]
SQUARES = [1, 5]
#: functions no test of Tangent's calls with values: given (a, b, c) here
EXTRA = ("dict_wrapper", "passthru_unpack", "passthru_pack")

# ----------------------------------------------------------------------------- reading


def _stand_ins() -> None:
    """``tangent`` and ``tfe_utils`` as empty modules: what ``functions.py`` needs of
    them is decorators and names that no NumPy function calls."""
    tangent = types.ModuleType("tangent")
    tangent.insert_grad_of = contextlib.nullcontext  # type: ignore[attr-defined]
    tangent.trace = lambda f: f  # type: ignore[attr-defined]
    sys.modules.setdefault("tangent", tangent)
    sys.modules.setdefault("tfe_utils", types.ModuleType("tfe_utils"))


def _module(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"tangent_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def not_numpy(f: Callable[..., Any]) -> bool:
    """A TensorFlow function, or one calling ``tangent``'s own stack or gradient hooks."""
    source = inspect.getsource(f)
    return f.__name__.startswith("tfe_") or any(
        w in source for w in ("tf.", "tangent.", "insert_grad_of")
    )


def blacklisted(folder: Path) -> set[str]:
    """The names ``conftest.py`` keeps out of Tangent's value tests (read, not run)."""
    import ast

    tree = ast.parse((folder / "tests" / "conftest.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "blacklisted":
            return set(ast.literal_eval(node.value))
    return set()


# ----------------------------------------------------------------------------- cases


def _argument_sets(names: tuple[str, ...], short: bool) -> list[tuple] | None:
    """Tangent's ``conftest.py`` values for a function with these argument names (every
    combination), or None where no test of Tangent's fills them."""
    rng = np.random.default_rng(0)
    scalars = [2.0] if short else SCALARS
    values = {
        "a": scalars,
        "b": scalars,
        "c": scalars,
        "n": [1] if short else INTEGERS,
        "x": [rng.standard_normal(k) for k in ([3] if short else VECTORS)],
        "sqm": [rng.standard_normal((k, k)) for k in ([3] if short else SQUARES)],
    }
    if not names or any(n not in values for n in names):
        return None
    if names not in {("a",), ("a", "b"), ("a", "b", "c"), ("x",), ("sqm",), ("a", "n")}:
        return None
    return list(itertools.product(*(values[n] for n in names)))


def _by_hand(short: bool) -> dict[str, tuple[tuple[int, ...], list[tuple]]]:
    """``test_reverse_mode.py``'s hand-written cases: name -> (wrt, argument sets)."""
    rng = np.random.default_rng(0)
    label = np.zeros(5)
    label[1] = 1.0
    scalars = [2.0] if short else SCALARS[::3]
    abc = list(itertools.product(scalars, scalars, scalars))
    d = 3
    return {
        "logistic_regression": (
            (2, 3),
            [(rng.random(3), label, rng.standard_normal((3, 5)), rng.standard_normal(5))],
        ),
        "rnn": ((0, 1), [(rng.standard_normal((3, 2)), rng.standard_normal((2, 3)))]),
        "bilinear": (
            (0,),
            [tuple(rng.standard_normal(s) for s in ((1, d), (1, d), (d, d), (d, d), (1, d)))],
        ),
        "unpacking_args_saxpy": ((0,), [(t,) for t in abc]),
        "dict_wrapper": ((0,), [(t,) for t in abc]),
        "passthru_unpack": ((0,), [(t,) for t in abc]),
        "dict_saxpy": ((0,), [(dict(a=a, b=b, c=c),) for a, b, c in abc]),
        "nested_dict": ((0,), [(dict(i=dict(j=3.0, k=4.0)),)]),
        "passthru_pack": ((0, 1, 2), [(*t, i) for t in abc[:8] for i in range(3)]),
    }


def cases(folder: Path, short: bool) -> list[tuple[str, Callable[..., Any], tuple, list, str]]:
    """``(name, f, wrt, argument sets, note)`` of every function of ``functions.py`` and
    ``test_hessian_vector_products.py`` (note: ``notnumpy``, ``untested``,
    ``blacklisted``, ``extra`` or empty)."""
    _stand_ins()
    sys.path.insert(0, str(folder / "tests"))
    functions = _module(folder / "tests" / "functions.py")
    hvps = _module(folder / "tests" / "test_hessian_vector_products.py")
    hand, black = _by_hand(short), blacklisted(folder)
    found = []
    for name, f in vars(functions).items():
        if not inspect.isfunction(f) or f.__module__ != functions.__name__ or name[0] == "_":
            continue
        if not_numpy(f):
            found.append((name, f, (0,), [], "notnumpy"))
            continue
        if name in hand:
            wrt, sets = hand[name]
            found.append((name, f, wrt, sets, "extra" if name in EXTRA else ""))
            continue
        sets = _argument_sets(tuple(inspect.signature(f).parameters), short)
        note = "blacklisted" if name in black else "" if sets else "untested"
        found.append((name, f, (0,), sets or [], note))
    rng = np.random.default_rng(0)
    x300 = rng.standard_normal(300)
    for name in ("f_straightline", "f_calltree"):
        found.append((name, getattr(hvps, name), (0,), [(x300,)], ""))
    return found


# ----------------------------------------------------------------------------- references


def _set_np(f: Callable[..., Any], module: Any) -> None:
    """``np`` in ``f``'s module, as Tangent's tests switch it."""
    f.__globals__["np"] = module


def _flatten(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [v for k in sorted(value) for v in _flatten(value[k])]
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flatten(item)]
    return list(np.ravel(np.asarray(value, dtype=float)))


def _unflatten(like: Any, z: Any, at: int = 0) -> tuple[Any, int]:
    """``like``'s structure filled from ``z`` (NumPy or autograd) from ``at`` on."""
    if isinstance(like, dict):
        out = {}
        for k in sorted(like):
            out[k], at = _unflatten(like[k], z, at)
        return out, at
    if isinstance(like, (tuple, list)):
        items = []
        for item in like:
            value, at = _unflatten(item, z, at)
            items.append(value)
        return type(like)(items), at
    if np.ndim(like) == 0:
        return z[at], at + 1
    size = int(np.size(like))
    return anp.reshape(z[at : at + size], np.shape(like)), at + size


def _as_vector(out: Any, xp: Any) -> Any:
    if isinstance(out, dict):
        return xp.concatenate([_as_vector(out[k], xp) for k in sorted(out)])
    if isinstance(out, (tuple, list)):
        return xp.concatenate([_as_vector(o, xp) for o in out])
    return xp.reshape(out, (-1,))


def flat_function(f: Callable, args: tuple, wrt: tuple[int, ...]) -> tuple[Callable, np.ndarray]:
    """``F(z)``: ``f``'s value as one vector, of the arguments ``wrt`` as one vector
    ``z`` (the others as given, copied per call: Tangent's functions write into them)."""
    like = [args[i] for i in wrt]

    def F(z: Any, xp: Any = np) -> Any:
        full = list(copy.deepcopy(args))
        at = 0
        for i, item in zip(wrt, like, strict=True):
            value, at = _unflatten(item, z, at)
            full[i] = float(value) if xp is np and np.ndim(item) == 0 else value
        return _as_vector(f(*full), xp)

    return F, np.array(_flatten(like))


def _differences(F: Callable, z: np.ndarray, step: float) -> np.ndarray:
    cols = []
    for j in range(z.size):
        h = step * max(1.0, abs(z[j]))

        def at(t: float, j: int = j, h: float = h) -> np.ndarray:
            w = z.copy()
            w[j] += t * h
            return np.asarray(F(w), dtype=float)

        cols.append((8 * (at(1) - at(-1)) - (at(2) - at(-2))) / (12 * h))
    return np.stack(cols, axis=-1)


def fd_jacobian(F: Callable, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fourth-order central differences and their error bar (steps h and 2h)."""
    a, b = _differences(F, z, 1e-4), _differences(F, z, 2e-4)
    return a, np.abs(a - b)


def _mixed(F: Callable, z: np.ndarray, step: float) -> np.ndarray:
    n = z.size
    hs = [step * max(1.0, abs(v)) for v in z]
    H = np.zeros((n, n))

    def at(i: int, si: float, j: int, sj: float) -> float:
        w = z.copy()
        w[i] += si * hs[i]
        w[j] += sj * hs[j]
        return float(np.asarray(F(w)).reshape(()))

    for i in range(n):
        for j in range(i + 1):
            v = at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)
            H[i, j] = H[j, i] = v / (4 * hs[i] * hs[j])
    return H


def fd_hessian(F: Callable, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mixed central second differences, Richardson-combined (steps h, 2h), with the
    error bar |H(h) - H(2h)|."""
    a, b = _mixed(F, z, 1e-3), _mixed(F, z, 2e-3)
    return (4 * a - b) / 3, np.abs(a - b)


def reference(f: Callable, args: tuple, wrt: tuple[int, ...], order: int):
    """The Jacobian (order 1) or Hessian (order 2) by ``z``: autograd's (error bar 0) or,
    where autograd fails, central differences with their error bars; and its source."""
    F, z = flat_function(f, args, wrt)
    _set_np(f, anp)
    try:
        with np.errstate(all="ignore"):
            fn = (lambda w: F(w, anp)) if order == 1 else (lambda w: F(w, anp)[0])
            d = autograd.jacobian(fn) if order == 1 else autograd.hessian(fn)
            found = np.asarray(d(z), dtype=float)
        return found.reshape(-1, z.size), np.zeros(1), "ag"
    except Exception:
        pass
    finally:
        _set_np(f, np)
    if order == 2 and z.size > 30:
        raise ValueError("no reference (autograd fails; too many differences)")
    with np.errstate(all="ignore"):
        if order == 1:
            J, bar = fd_jacobian(F, z)
            return J, bar, "fd"
        H, bar = fd_hessian(F, z)
        return H, bar, "fd"


# ----------------------------------------------------------------------------- dgraph


def assemble(got: Any, rows: list[int], cols: list[int]) -> np.ndarray:
    """dgraph's blocks (per output, per argument, each level absent where there is one;
    a pytree argument's leaves as JAX nests them) as one matrix, rows by ``rows``'s
    outputs, columns by ``cols``'s arguments, in :func:`_flatten`'s order."""
    got = [got] if len(rows) == 1 else list(got)
    out = []
    for r, row in zip(rows, got, strict=True):
        row = [row] if len(cols) == 1 else list(row)
        out.append([np.asarray(_flatten(b)).reshape(r, c) for b, c in zip(row, cols, strict=True)])
    return np.block(out)


def _sizes(value: Any) -> list[int]:
    if isinstance(value, (tuple, list)):
        return [len(_flatten(v)) for v in value]
    return [len(_flatten(value))]


def _tangent(x: Any, rng: np.random.Generator) -> Any:
    """A normal tangent of ``x``'s structure (a float, an array, a tuple, a dict)."""
    if isinstance(x, float):
        return float(rng.standard_normal())
    if isinstance(x, np.ndarray):
        return rng.standard_normal(x.shape)
    z = rng.standard_normal(len(_flatten(x)))
    return _unflatten(x, [float(v) for v in z])[0]


def _as_numpy(value: Any) -> Any:
    """A made function's result with JAX arrays as NumPy ones, nested as it was."""
    if isinstance(value, dict):
        return {k: _as_numpy(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_as_numpy(v) for v in value)
    return np.asarray(value)


def _ours(made: Any, kind: str, f: Callable, args: tuple, wrt: tuple[int, ...], rng) -> tuple:
    xs = [copy.deepcopy(args[i]) for i in wrt]
    ps = [copy.deepcopy(a) for i, a in enumerate(args) if i not in wrt]
    cols = [len(_flatten(x)) for x in xs]
    if kind == "hvp":
        ts = [_tangent(x, rng) for x in xs]
        if len(args) == 1 and np.shape(args[0]) == (300,):
            ts = [np.array(args[0])]  # Tangent's test: v = x
        return np.asarray(_flatten(made(*xs, *ps, *ts))), np.array(_flatten(ts))
    got = made(*xs, *ps)
    if kind == "hess":
        return assemble(got, cols, cols), None
    got = _as_numpy(got)
    return assemble(got, _sizes(f(*copy.deepcopy(args))), cols), None


def run_group(f: Callable, kind: str, wrt: tuple[int, ...], sets: list[tuple]) -> str:
    """``f`` made once at ``sets[0]`` and compared at every set with the reference."""
    names = list(inspect.signature(f).parameters)
    params = [n for i, n in enumerate(names[: len(sets[0])]) if i not in wrt]
    first = sets[0]
    point = list(copy.deepcopy(first))
    lang = LANGS.get(kind, "python")
    made = dgraph.make_function(f, MODES[kind], lang, point=point, params=params)
    rng = np.random.default_rng(1)
    worst, sources = 0.0, set()
    for k, args in enumerate(sets):
        try:
            got, t = _ours(made, kind, f, args, wrt, rng)
        except dgraph.DGraphError as e:
            raise dgraph.InputError(
                f"call at set {k} of {len(sets)}: {str(e).splitlines()[0]}"
            ) from None
        ref, bar, source = reference(f, args, wrt, 2 if kind in ("hess", "hvp") else 1)
        sources.add(source)
        if kind == "hvp":
            ref, bar = ref @ t, (bar @ np.abs(t) if bar.ndim == 2 else bar)
        scale = max(1.0, float(np.abs(ref).max(initial=0.0)))
        err = np.abs(got - ref.reshape(got.shape))
        if not np.isfinite(got).all() and not np.array_equal(np.isnan(got), np.isnan(ref)):
            return f"WRONG not finite at set {k}"
        excess = float(((err - 10 * bar) / scale).max(initial=0.0))
        worst = max(worst, excess)
        if excess > TOL:
            return f"WRONG err {excess:.1e} at set {k} ({args_text(args)}) ref={source}"
    verified = made.generated.verified
    verdict = "ok" if verified is True else "NOTVER"
    why = "" if verified is True else " | " + str(made.generated.check.status)[:120]
    ref = "+".join(sorted(sources))
    return f"{verdict} err {worst:.1e} at {len(sets)} sets ref={ref} verified={verified}{why}"


def args_text(args: tuple) -> str:
    def one(a: Any) -> str:
        if isinstance(a, (float, int)):
            return f"{a:g}"
        if isinstance(a, np.ndarray):
            return "x".join(map(str, a.shape)) or "s"
        return type(a).__name__

    return ",".join(one(a) for a in args)


def group_key(args: tuple) -> str:
    """What fixes the program: the arguments' shapes and integers."""

    def one(a: Any) -> str:
        if isinstance(a, bool | int):
            return str(a)
        if isinstance(a, np.ndarray):
            return "x".join(map(str, a.shape)) or "s"
        if isinstance(a, (tuple, list, dict)):
            return type(a).__name__
        return "s"

    return ",".join(one(a) for a in args)


def scalar_valued(f: Callable, args: tuple) -> bool:
    out = f(*copy.deepcopy(args))
    return not isinstance(out, (tuple, list, dict)) and np.ndim(out) == 0


def run(folder: Path, kinds: list[str], only: str, short: bool) -> None:
    found = cases(folder, short)
    counts = {"notnumpy": 0, "untested": 0}
    for name, f, wrt, sets, note in found:
        if only and name not in only.split(","):
            continue
        if note == "notnumpy":
            counts["notnumpy"] += 1
            print(f"{name:30s} {'-':14s} jac   0.00s NOTNUMPY", flush=True)
            continue
        if not sets:
            counts["untested"] += 1
            print(f"# {name}: no argument set in Tangent's tests", flush=True)
            continue
        groups: dict[str, list[tuple]] = {}
        for args in sets:
            groups.setdefault(group_key(args), []).append(args)
        for where, group in groups.items():
            try:
                with np.errstate(all="ignore"):
                    scalar = scalar_valued(f, group[0])
            except Exception as e:
                print(f"{name:30s} {where:14s} jac   0.00s SKIP NumPy fails: {type(e).__name__}")
                continue
            for kind in kinds:
                if kind in ("hess", "hvp") and not scalar:
                    continue
                use = wrt
                if kind == "all":
                    use = tuple(i for i, a in enumerate(group[0]) if not isinstance(a, int))
                    if use == wrt:
                        continue
                if kind == "ints":  # the integers differentiated too, as given
                    if not any(isinstance(a, int) for a in group[0]):
                        continue
                    use = tuple(range(len(group[0])))
                msg, cpu = survey_case(lambda f=f, k=kind, w=use, g=group: run_group(f, k, w, g),
                                       LIMIT)  # fmt: skip
                tag = f" [{note}]" if note else ""
                print(f"{name:30s} {where:14s} {kind:5s} {cpu:6.2f}s {msg}{tag}", flush=True)
    print(f"# {counts['notnumpy']} not NumPy, {counts['untested']} with no argument set")


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        survey_table(sys.argv[2:], KINDS, "functions")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--only", default="")
    parser.add_argument("--kinds", default="jac,hess,hvp,all")  # also: c, jax
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args()
    run(args.folder, args.kinds.split(","), args.only, args.short)


if __name__ == "__main__":
    main()
