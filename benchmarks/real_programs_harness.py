"""The survey harness that ``benchmarks/real_programs.py`` and ``benchmarks/real_programs2.py``
share: each program, a function of one or several arrays, through ``make_function`` for
``jacobian``/``jvp``/``vjp`` in ``python`` and ``jacobian`` in ``jax``, ``dgraph.jacobian``'s
expression set (a graph of scalars), ``dgraph.hessian`` dense and sparse (a scalar function of
one array) and ``dgraph codegen FILE:NAME --inputs A:SHAPE,... -o FILE`` in this process; every
value against ``jax.jacfwd`` / ``jax.hessian`` of its JAX reference over all the arguments.

A survey's table maps a name to a :data:`Case`; :func:`main` prints one row per program, one
column per call, each cell ``ok``, ``refused`` (a DGraphError of one line, printed below),
``WRONG`` (the error, below), ``ERROR`` (any other exception, or a message of several lines),
``HANG`` (over ``--limit`` seconds) or ``-`` (not applicable), and the totals. A graph of
scalars is called with flat vectors (GeneratedFunction's convention), a tensor graph with
arrays of the arguments' shapes.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import signal
import sys
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph.codegen.tensor.function import TensorGenerated
from dgraph.errors import DGraphError

#: A program: the function, its example arguments, whether its output is a scalar, and the
#: JAX function its derivatives are checked against (itself where it is JAX).
Case = tuple[Callable[..., Any], tuple[np.ndarray, ...], bool, Callable[..., Any]]

MODES = ("jac", "jvp", "vjp", "jax", "es", "hess", "hess_sparse", "cli")


def registry(table: dict[str, tuple]) -> Callable[..., Callable[[Callable], Callable]]:
    """``@program(small, large)``: each builder ``n -> program`` put into ``table`` under
    its name, with the sizes it is run at."""

    def program(small: int, large: int | None = None) -> Callable[[Callable], Callable]:
        def register(builder: Callable) -> Callable:
            table[builder.__name__] = (builder, small, large)
            return builder

        return register

    return program


def joined(found: Any, m: int) -> np.ndarray:
    """A Jacobian, or one per argument (a tuple: each as ``(m, -1)``, side by side), as one
    array."""
    if isinstance(found, tuple | list):
        return np.hstack([np.reshape(np.asarray(p, dtype=float), (m, -1)) for p in found])
    return np.asarray(found, dtype=float)


def cli_jacobian(source: str, f: Callable[..., Any], xs: Sequence[np.ndarray], m: int):
    """``dgraph codegen SOURCE:NAME --inputs A:SHAPE,... -o FILE`` in this process, and the
    written module's ``jacobian`` at the arguments (``m`` outputs)."""
    from dgraph.cli import main as cli

    names = list(inspect.signature(f).parameters)[: len(xs)]
    spec = ",".join(n + (":" + "x".join(map(str, x.shape)) if x.shape else "")
                    for n, x in zip(names, xs, strict=True))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "jac.py"
        argv = ["codegen", f"{source}:{f.__name__}", "--inputs", spec, "-o", str(out)]
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli(argv)
        if code:
            raise DGraphError(err.getvalue().strip().removeprefix("dgraph: error: "))
        loader = importlib.util.spec_from_file_location("jac", out)
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    try:
        found = module.jacobian(*xs)
    except (ValueError, TypeError):  # a graph of scalars: one flat vector
        found = module.jacobian(np.concatenate([x.ravel() for x in xs]))
    return joined(found, m)


def one_line(e: BaseException) -> str:
    """``Type: message`` for a DGraphError of one clear line, else ``""``."""
    text = f"{type(e).__name__}: {e}"
    clear = "\n" not in text.strip() and "internal error" not in text
    return text if clear and isinstance(e, DGraphError) else ""


def compared(found: Any, want: Any, tol: float = 1e-8) -> tuple[str, str]:
    """('ok', '') where ``found`` equals ``want`` (flattened) to ``tol`` relative to the
    largest of 1 and ``want``'s entries, else ('WRONG', the shapes or the error)."""
    found = np.asarray(found, dtype=float).ravel()
    want = np.asarray(want, dtype=float).ravel()
    if found.shape != want.shape:
        return "WRONG", f"shape {found.shape} != {want.shape}"
    err = np.abs(found - want).max() / max(1.0, np.abs(want).max())
    return ("ok", "") if err < tol else ("WRONG", f"error {err:.1e}")


def failed(e: BaseException, clip: tuple[int, int] = (220, 400)) -> tuple[str, str]:
    """A call's exception as a cell: ('refused', its one line) for a DGraphError of one
    clear line, else ('ERROR', type and message), each clipped as ``clip`` says."""
    line = one_line(e)
    if line:
        return "refused", line[: clip[0]]
    return "ERROR", f"{type(e).__name__}: {e}"[: clip[1]]


class Hang(BaseException):
    """The time limit: not an Exception, so that no ``except Exception`` in the code under
    test (a tracer trying another route) takes it for the program's own failure."""


def _expire(*_):
    raise Hang


def _call(made, *groups: Sequence[np.ndarray], cast: Callable[[Any], Any] = np.asarray):
    """A generated function at groups of arrays (the arguments, then tangents or adjoints):
    the arrays themselves (a tensor graph), or one flat vector per group (a graph of scalars,
    GeneratedFunction's doc)."""
    if isinstance(made.generated, TensorGenerated):
        return made(*(cast(a) for group in groups for a in group))
    return made(*(cast(np.concatenate([np.ravel(a) for a in group])) for group in groups))


class Survey:
    """A table of programs, ``source`` the file that defines them (for ``dgraph codegen``),
    ``rng`` for the random tangents and adjoints, ``cell`` a column's width, ``clip`` how
    much of a refusal's and of an error's message is kept and ``modes`` the columns (a
    subclass's :meth:`_run` may define others)."""

    def __init__(
        self,
        programs: dict[str, Case],
        source: str,
        rng: np.random.Generator,
        *,
        cell: int = 8,
        clip: tuple[int, int] = (220, 400),
        modes: tuple[str, ...] = MODES,
    ) -> None:
        self.programs, self.source, self.rng = programs, source, rng
        self.cell, self.clip, self.modes = cell, clip, modes

    def run(self, name: str, mode: str, limit: int = 180) -> tuple[str, str]:
        """One call, stopped after ``limit`` seconds: ('ok'|'refused'|'WRONG'|'ERROR'|'HANG'|
        '-', detail)."""
        signal.signal(signal.SIGALRM, _expire)
        signal.alarm(limit)
        try:
            return self._run(name, mode)
        except Hang:
            return "HANG", f"over {limit} s"
        finally:
            signal.alarm(0)

    def _run(self, name: str, mode: str) -> tuple[str, str]:
        f, xs, scalar, ref = self.programs[name]
        xs = tuple(np.asarray(x, dtype=float) for x in xs)
        k = len(xs)
        parts = jax.jacfwd(ref, argnums=tuple(range(k)))(*map(jnp.asarray, xs))
        out_shape = np.shape(ref(*map(jnp.asarray, xs)))
        m = int(np.prod(out_shape))
        J = joined(tuple(parts), m)
        tol = 1e-5 if name.endswith("_f32") else 1e-8
        vs = tuple(self.rng.normal(size=x.shape) for x in xs)
        v = np.concatenate([a.ravel() for a in vs])
        w = self.rng.normal(size=out_shape)
        try:
            if mode in ("jac", "jvp", "vjp", "jax"):
                kind = {"jac": "jacobian", "jax": "jacobian"}.get(mode, mode)
                lang = "jax" if mode == "jax" else "python"
                made = dgraph.make_function(f, kind, lang, point=list(xs))
                if mode in ("jac", "jax"):
                    cast = jnp.asarray if mode == "jax" else np.asarray
                    found, want = joined(_call(made, xs, cast=cast), m), J
                elif mode == "jvp":
                    found, want = _call(made, xs, vs), J @ v
                else:
                    found, want = _call(made, xs, (w,)), np.ravel(w) @ J
                    if k > 1 and isinstance(made.generated, TensorGenerated):
                        found = np.concatenate([np.ravel(p) for p in found])
            elif mode == "cli":
                found, want = cli_jacobian(self.source, f, xs, m), J
            elif mode == "es":
                es = dgraph.jacobian(f, point=list(xs))
                if es.graph.is_tensor:
                    return "-", "tensor graph"
                found, want = es.evaluate(np.concatenate([x.ravel() for x in xs])), J
            elif mode in ("hess", "hess_sparse"):
                if not scalar or k > 1:
                    return "-", ""
                Hf = dgraph.hessian(f, *xs, sparse=mode == "hess_sparse")
                found = _call(Hf, xs)
                found = found.toarray() if hasattr(found, "toarray") else found
                want = jax.hessian(ref)(jnp.asarray(xs[0]))
            return compared(found, want, tol)
        except Hang:
            raise
        except Exception as e:  # the survey records every failure
            return failed(e, self.clip)

    def main(self, argv: list[str]) -> None:
        """``[NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS] [--list]``: the table."""
        modes, limit = self.modes, 180
        usage = f"usage: [NAME ...] [--modes={','.join(self.modes)}] [--limit=SECONDS] [--list]"
        for a in argv:
            if a in ("-h", "--help"):
                print(usage)
                return
            if a.startswith("-") and not a.startswith(("--modes=", "--limit=", "--list")):
                sys.exit(f"unknown option {a!r}; {usage}")
            if a.startswith("--modes="):
                modes = tuple(a.split("=", 1)[1].split(","))
            if a.startswith("--limit="):
                limit = int(a.split("=", 1)[1])
            if a == "--list":
                print(" ".join(self.programs))
                return
        names = [a for a in argv if not a.startswith("--")] or list(self.programs)
        if unknown := [a for a in names if a not in self.programs]:
            sys.exit(f"unknown program {unknown[0]!r}: --list names them")
        totals: dict[str, int] = {}
        notes = []
        width = self.cell
        print(f"{'program':24} " + " ".join(f"{m:>{width}}" for m in modes) + "   seconds")
        for name in names:
            start = time.perf_counter()
            cells = []
            for mode in modes:
                status, detail = self.run(name, mode, limit)
                cells.append(status)
                if status != "-":
                    totals[status] = totals.get(status, 0) + 1
                if status not in ("ok", "-"):
                    notes.append(f"  {name} [{mode}] {status}: {detail}")
            secs = time.perf_counter() - start
            row = " ".join(f"{c:>{width}}" for c in cells)
            print(f"{name:24} {row}   {secs:7.1f}", flush=True)
        print("totals:", ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
        print("\n".join(notes))


#: real_programs3's columns: the harness's, ``c``, ``med`` and ``hmed`` (:class:`SizedSurvey`)
MODES_SIZED = ("jac", "jvp", "vjp", "jax", "c", "es", "hess", "hess_sparse", "cli", "med", "hmed")


class SizedSurvey(Survey):
    """A :class:`Survey` with three more columns: ``c`` (``make_function(f, "jacobian",
    "c")``), ``med`` (``make_function(f, "jacobian")`` at the medium size) and ``hmed``
    (``dgraph.hessian(f, x, sparse=True)`` at the medium size, a scalar program of one
    array); ``builders`` maps a name to ``(n -> Case, small n, medium n or None)``."""

    def __init__(self, builders: dict[str, tuple], programs: dict[str, Case], source: str,
                 rng: np.random.Generator, **kw: Any) -> None:  # fmt: skip
        super().__init__(programs, source, rng, **kw)
        self.builders, self.medium = builders, {}

    def _run(self, name: str, mode: str) -> tuple[str, str]:
        if mode not in ("c", "med", "hmed"):
            return super()._run(name, mode)
        try:
            return self._extra(name, mode)
        except Hang:
            raise
        except Exception as e:  # the survey records every failure
            return failed(e)

    def _extra(self, name: str, mode: str) -> tuple[str, str]:
        if mode == "c":
            f, xs, scalar, ref = self.programs[name]
        else:
            builder, _, big = self.builders[name]
            if big is None:
                return "-", ""
            if name not in self.medium:
                self.medium[name] = builder(big)
            f, xs, scalar, ref = self.medium[name]
        k = len(xs)
        jx = tuple(map(jnp.asarray, xs))
        tol = 1e-5 if name.endswith("_f32") else 1e-8  # as the small columns'
        if mode == "hmed":
            if not scalar or k > 1:
                return "-", ""
            H = dgraph.hessian(f, *xs, sparse=True)(xs[0])
            t = self.rng.normal(size=xs[0].shape)
            want = jax.jvp(jax.grad(ref), jx, (jnp.asarray(t),))[1]
            return compared(H @ t.ravel(), want, tol)
        out_shape = np.shape(ref(*jx))
        m = int(np.prod(out_shape))
        lang = "c" if mode == "c" else "python"
        made = dgraph.make_function(f, "jacobian", lang, point=list(xs))
        found = joined(_call(made, xs), m)
        n = sum(x.size for x in xs)
        jac = jax.jacrev if m < n else jax.jacfwd  # the reference's cheaper side
        want = joined(tuple(jac(ref, argnums=tuple(range(k)))(*jx)), m)
        if not np.isfinite(want).all():  # reverse mode's 0 · NaN under a where (nanmean)
            want = joined(tuple(jax.jacfwd(ref, argnums=tuple(range(k)))(*jx)), m)
        return compared(found, want, tol)


class _JaxAsNumpy:
    """jax.numpy where NumPy code calls ``np``, taking lists of arrays where NumPy does
    (``np.concatenate([a, [s]])``)."""

    def __getattr__(self, name):
        return getattr(jnp, name)

    @staticmethod
    def concatenate(arrays, axis=0):
        return jnp.concatenate([jnp.asarray(a) for a in arrays], axis=axis)


def jnp_twin(f, **names: Any):
    """The same NumPy code run with jax.numpy: the JAX reference of a NumPy program; each
    of ``names`` (``st=jax.scipy.stats``) replaces the global of that name too."""
    namespace = {**f.__globals__, "np": _JaxAsNumpy(), **names}
    twin = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)
    twin.__kwdefaults__ = f.__kwdefaults__
    return twin


def deep_twin(f, **names: Any):
    """:func:`jnp_twin` of ``f`` and of the functions of its module that it calls (by a
    global name or from a closure cell), and theirs in turn, all in one namespace where
    ``np`` is jax.numpy and each of ``names`` replaces the global (or the closure's variable)
    of that name: the JAX
    reference of a program split into helpers (``import autograd.numpy as np``)."""
    namespace = {**f.__globals__, "np": _JaxAsNumpy(), **names}
    made: dict[int, Any] = {}

    def twin(g):
        if id(g) in made:
            return made[id(g)]
        cells = tuple(types.CellType() for _ in g.__closure__ or ())
        made[id(g)] = new = types.FunctionType(g.__code__, namespace, g.__name__,
                                               g.__defaults__, cells or None)  # fmt: skip
        new.__kwdefaults__ = g.__kwdefaults__
        for name, old, cell in zip(g.__code__.co_freevars, g.__closure__ or (), cells, strict=True):
            with contextlib.suppress(ValueError):  # a cell not yet filled stays empty
                cell.cell_contents = names[name] if name in names else _twinned(old.cell_contents)
        return new

    def _twinned(value):
        own = inspect.isfunction(value) and value.__module__ == f.__module__
        return twin(value) if own else value

    for key, value in list(namespace.items()):
        if key not in names and key != "np":
            namespace[key] = _twinned(value)
    return twin(f)


def data(r: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    """Normal numbers of ``shape`` from ``r``, times ``scale`` (a survey's arguments)."""
    return r.normal(size=shape) * scale


def jax_case(f, xs, scalar):
    """A survey's case of a JAX function: its own reference."""
    return (f, tuple(np.asarray(x, dtype=float) for x in xs), scalar, f)


def np_case(f, xs, scalar, ref=None):
    """A survey's case of a NumPy function: its reference ``ref`` or its JAX twin."""
    return (f, tuple(np.asarray(x, dtype=float) for x in xs), scalar, ref or jnp_twin(f))


def small_cases(programs: dict, namespace: dict) -> dict[str, tuple]:
    """Each program at its small size, under its name, also bound in ``namespace`` (a
    survey module's globals: ``dgraph codegen real_programsN.py:NAME``)."""
    cases: dict[str, tuple] = {}
    for name, (builder, small, _) in programs.items():
        cases[name] = builder(small)
        cases[name][0].__name__ = name
        namespace[name] = cases[name][0]
    return cases
