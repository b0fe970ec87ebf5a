"""What users would otherwise use for a Jacobian: sympy, CasADi and JAX, counted by the rule
of :mod:`dgraph.codegen.counting` and evaluated on the same batches as generated code.

- sympy: ``Matrix(outputs).jacobian(inputs)``, ``cse`` over its nonzero entries for the
  counts, ``lambdify(..., cse=True)`` (NumPy) for evaluation;
- CasADi (optional, ``pip install casadi``): the graph evaluated vertex by vertex on ``SX``
  symbols, ``jacobian``, a ``Function`` with ``cse`` on; counts from its instruction list,
  evaluation by its virtual machine or by its generated C compiled with the system cc;
- JAX (optional): ``jit(vmap(jacfwd(f)))`` and ``jacrev``, in double precision.

Each builder returns a :class:`Baseline` whose ``evaluate`` maps a batch (B, n) to the
Jacobians (B, m, n) — for a graph with k parameters, a batch (B, n + k), each point's
parameter values after its inputs, and the Jacobians by the inputs alone; the optional
ones return None when the tool is not installed.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy

from ..core.graph import DGraph, vertex_symbol
from ..errors import DGraphError
from .c import compiler
from .counting import Ops, casadi_ops, count_ops

__all__ = [
    "Baseline",
    "casadi_jacobian",
    "installed",
    "jax_jacobian",
    "per_point_seconds",
    "sympy_baseline",
    "sympy_jacobian",
    "sympy_jacobian_parts",
]

Evaluate = Callable[[np.ndarray], np.ndarray]


@dataclass
class Baseline:
    """A tool's Jacobian of a graph: its operation counts (None when the tool exposes no
    program to count) and a batch evaluator (B, n) -> (B, m, n)."""

    tool: str
    ops: Ops | None
    evaluate: Evaluate
    build_seconds: float


def installed(module: str) -> bool:
    """Whether an optional tool can be imported."""
    return importlib.util.find_spec(module) is not None


def _scatter(shape: tuple[int, int], keys: list[tuple[int, int]], values, batch: int):
    out = np.zeros((batch, *shape))
    for (i, j), value in zip(keys, values, strict=True):
        out[:, i, j] = value
    return out


def sympy_jacobian(graph: DGraph) -> Baseline:
    """sympy's ``jacobian`` + ``cse`` (counts) and ``lambdify`` of the ``cse``'d entries
    (evaluation): what a sympy user's ``lambdify(jacobian, cse=True)`` computes.

    >>> from dgraph.frontends import bundled
    >>> b = sympy_jacobian(bundled("naumann_sin.trace"))
    >>> b.ops.mults, b.evaluate(np.array([[1.0, 0.5]])).round(6).tolist()
    (4, [[[0.229849, 0.841471]]])
    """
    t0 = time.perf_counter()
    return sympy_baseline(graph, sympy_jacobian_parts(graph), t0)


def sympy_jacobian_parts(graph: DGraph) -> tuple:
    """The symbolic half of :func:`sympy_jacobian`, picklable (a benchmark may run it in a
    child process it can stop): the nonzero entries' keys, the shape, ``cse``'s
    replacements and reduced entries, and their counted operations."""
    values = graph.values()
    inputs = [vertex_symbol(x) for x in graph.inputs]
    jacobian = sympy.Matrix([values[y] for y in graph.outputs]).jacobian(inputs)
    keys = [(i, j) for i in range(jacobian.rows) for j in range(jacobian.cols)]
    keys = [k for k in keys if jacobian[k] != 0]
    replacements, reduced = sympy.cse([jacobian[k] for k in keys])
    ops = count_ops([e for _, e in replacements] + list(reduced))
    return keys, (jacobian.rows, jacobian.cols), replacements, reduced, ops


def sympy_baseline(graph: DGraph, parts: tuple, started: float) -> Baseline:
    """:func:`sympy_jacobian` from its symbolic half: the ``cse``'d entries lambdified
    (seconds counted from ``started``)."""
    keys, shape, replacements, reduced, ops = parts
    arguments = [vertex_symbol(u) for u in [*graph.inputs, *graph.parameters]]
    function = sympy.lambdify(
        arguments, list(reduced), _numpy_modules(), cse=lambda exprs: (replacements, exprs)
    )

    def evaluate(points: np.ndarray) -> np.ndarray:
        return _scatter(shape, keys, function(*points.T), len(points))

    return Baseline("sympy", ops, evaluate, time.perf_counter() - started)


def _numpy_modules() -> list:
    """lambdify modules for arrays: SciPy's special functions when installed, else
    element-wise ``math`` for the few NumPy lacks."""
    if installed("scipy"):
        return ["scipy", "numpy"]
    names = ("erf", "erfc", "gamma", "lgamma")
    return [{f: np.vectorize(getattr(math, f), otypes=[float]) for f in names}, "numpy"]


def _trace(graph: DGraph, inputs: list, modules, params: list = ()) -> list:
    """The graph's outputs evaluated vertex by vertex on ``inputs`` and the parameters'
    ``params`` (symbols of a tool)."""
    values = dict(zip(graph.inputs, inputs, strict=True))
    values.update(zip(graph.parameters, params, strict=True))
    for v in graph.order():
        if v in values:
            continue
        expr = graph.expr(v)
        if expr is None:
            raise DGraphError(f"vertex {v!r} has no expression; the graph cannot be traced")
        preds = [*graph.predecessors(v), *graph.parameters]
        function = sympy.lambdify([vertex_symbol(u) for u in preds], expr, modules)
        values[v] = function(*(values[u] for u in preds))
    return [values[y] for y in graph.outputs]


def casadi_jacobian(graph: DGraph) -> Baseline | None:
    """CasADi's SX ``jacobian`` of the graph's trace, a Function with ``cse`` (dense
    output); evaluated by CasADi's generated C compiled with the system cc (-O2) and
    called point by point from a C loop, like dgraph's ``jacobian_batch``; by its SX
    virtual machine when there is no compiler. None when CasADi is not installed."""
    if not installed("casadi"):
        return None
    import casadi as ca

    t0 = time.perf_counter()
    names = ("sin", "cos", "tan", "exp", "log", "sqrt", "asin", "acos", "atan", "sinh")
    names += ("cosh", "tanh", "atan2", "erf")
    namespace = {name: getattr(ca, name) for name in names} | {"Abs": ca.fabs, "abs": ca.fabs}
    n, m, k = len(graph.inputs), len(graph.outputs), len(graph.parameters)
    x, p = ca.SX.sym("x", n), ca.SX.sym("p", k)
    outputs = _trace(graph, [x[i] for i in range(n)], [namespace, "math"], [p[i] for i in range(k)])
    jacobian = ca.densify(ca.jacobian(ca.vertcat(*outputs), x))
    function = ca.Function("jacobian", [x, p], [jacobian], {"cse": True})
    ops = casadi_ops(function)
    if compiler() is None:
        maps: dict[int, object] = {}

        def evaluate(points: np.ndarray) -> np.ndarray:
            if len(points) not in maps:
                maps[len(points)] = function.map(len(points), "serial")
            inputs, params = points[:, :n].T, points[:, n:].T
            blocks = np.asarray(maps[len(points)](inputs, params))  # (m, batch * n)
            return blocks.reshape(m, len(points), n).transpose(1, 0, 2)

        return Baseline("casadi-vm", ops, evaluate, time.perf_counter() - t0)
    batch = _casadi_compiled(function)

    def evaluate(points: np.ndarray) -> np.ndarray:
        inputs = np.ascontiguousarray(points[:, :n], dtype=float)
        params = np.ascontiguousarray(points[:, n:], dtype=float)
        out = np.empty((len(points), n, m))  # column-major m x n blocks
        pointer = ctypes.POINTER(ctypes.c_double)
        batch(
            ctypes.c_long(len(points)),
            inputs.ctypes.data_as(pointer),
            params.ctypes.data_as(pointer),
            out.ctypes.data_as(pointer),
        )
        return out.transpose(0, 2, 1)

    return Baseline("casadi-c", ops, evaluate, time.perf_counter() - t0)


_CASADI_BATCH = """
void casadi_batch(long count, const casadi_real *x, const casadi_real *p, casadi_real *J) {{
    const casadi_real *arg[{arg}];
    casadi_real *res[{res}];
    casadi_int iw[{iw}];
    casadi_real w[{w}];
    for (long k = 0; k < count; ++k) {{
        arg[0] = x + k*{n};
        arg[1] = p + k*{k};
        res[0] = J + k*{size};
        jacobian(arg, res, iw, w, 0);
    }}
}}
"""


def _casadi_compiled(function):
    """CasADi's generated C for ``function``, with a C loop over points appended, compiled
    with -O2 and loaded with ctypes: ``casadi_batch(count, x, J)``."""
    import casadi as ca

    directory = Path(tempfile.mkdtemp(prefix="dgraph-casadi-"))
    source, library = directory / "jacobian_casadi.c", directory / "jacobian_casadi.so"
    generator = ca.CodeGenerator(source.stem)
    generator.add(function)
    generator.generate(f"{directory}/")
    sizes = {
        "arg": max(function.sz_arg(), 1),
        "res": max(function.sz_res(), 1),
        "iw": max(function.sz_iw(), 1),
        "w": max(function.sz_w(), 1),
        "n": function.size1_in(0),
        "k": function.size1_in(1),
        "size": function.nnz_out(0),
    }
    with source.open("a") as f:
        f.write(_CASADI_BATCH.format(**sizes))
    done = subprocess.run(
        [compiler(), "-O2", "-shared", "-fPIC", "-o", str(library), str(source), "-lm"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise DGraphError(f"compiling CasADi's C failed: {done.stderr.strip()[:200]}")
    return ctypes.CDLL(str(library)).casadi_batch


def jax_jacobian(graph: DGraph, mode: str = "forward") -> Baseline | None:
    """``jit(vmap(jacfwd(f)))`` (``mode="forward"``) or ``jacrev`` (``"reverse"``) of the
    graph's trace, in double precision. None when JAX is not installed."""
    if not installed("jax"):
        return None
    import jax
    import jax.numpy as jnp
    import jax.scipy.special

    t0 = time.perf_counter()

    modules = [{"erf": jax.scipy.special.erf, "erfc": jax.scipy.special.erfc}, "jax"]

    n, k = len(graph.inputs), len(graph.parameters)

    def f(x, p):
        return jnp.stack(_trace(graph, [x[i] for i in range(n)], modules, [p[i] for i in range(k)]))

    differentiate = jax.jacfwd if mode == "forward" else jax.jacrev
    function = jax.jit(jax.vmap(differentiate(f)))  # by the inputs (argument 0) only

    def evaluate(points: np.ndarray) -> np.ndarray:
        # in doubles, traced and run inside the flag's scope: the process's flag untouched
        with jax.enable_x64(True):
            points = jnp.asarray(points)
            return np.asarray(function(points[:, :n], points[:, n:]).block_until_ready())

    tool = "jax-jacfwd" if mode == "forward" else "jax-jacrev"
    return Baseline(tool, None, evaluate, time.perf_counter() - t0)


def per_point_seconds(evaluate: Evaluate, points: np.ndarray, repeat: int = 5) -> float:
    """The best of ``repeat`` timings of one batch evaluation, divided by the batch size."""
    evaluate(points)  # warm up (JIT compilation, caches)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        evaluate(points)
        best = min(best, time.perf_counter() - t0)
    return best / len(points)
