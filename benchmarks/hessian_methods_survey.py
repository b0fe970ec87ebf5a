"""A survey of the Hessian methods and commands on programs not in the tests (session 36),
the second-order companion of ``benchmarks/methods_survey.py`` (whose cells, recount and
command-line helpers it reuses).

Programs: sympy objectives and Lagrangians (a planar robot arm's potential energy, the
kinetics right-hand side of ``methods_survey`` weighted, a Gamma log-likelihood in three
parameters, expressions with ``Abs``, ``Max``, ``Min`` and ``Piecewise``), JAX and NumPy
programs read at the element level (20-400 vertices) and at the array level (a logistic
loss, a Lagrangian of constraints, ``where``/``abs``/``maximum`` code, log-sum-exp), and
hand-written evaluation traces and dgraph/1 JSON graphs with edge cases (an unknown the
objective does not read, a constant objective, an objective linear in every input, an
input used twice in one product, a repeated input name).

Each row is one program × one method, function or command; each cell ``ok`` /
``refused`` (one line) / ``WRONG`` / ``ERROR`` / ``HANG`` (over ``--limit`` seconds) /
``NONDET``. Every Hessian is compared with ``jax.hessian`` of an independent JAX
reference (the Lagrangian ``λᵀy`` with weights) at the program's point and at a random
point near it (relative and absolute tolerance 1e-7), must be symmetric (a lower
triangle is mirrored first), and its pattern exact: a true nonzero (above 1e-10 of the
largest entry at either point) missing is WRONG; for ``make_function(sparse=True)`` a
stored entry that is 0 at both points is WRONG too (the docs claim the pattern exact,
cancellations proven); an expression set's entries are by paths and only noted. The
mults an expression set reports equal a recount of its expressions; ``verified`` is
never true without a verification that says so; the proven lower bound of
``compare_hessian`` is never above a row's lower-triangle count, nor the search's bound
above a row's count of every entry, nor a ``vertex-optimal``/``edge-optimal`` count
above a vertex-elimination method's (every entry, structural). Commands run twice, with
PYTHONHASHSEED 1 and 2, and must print the same bytes.

    python benchmarks/hessian_methods_survey.py [NAME ...] [--limit=SECONDS] [--no-cli]
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import sympy

import dgraph
from dgraph.core.hessian_graph import hessian_graph
from dgraph.second_order import lower_triangle

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import methods_survey as ms  # noqa: E402

TOL = 1e-7
HESSIAN_METHODS = (
    "forward-over-reverse",
    "edge-pushing",
    "symmetric",
    "forward",
    "reverse",
    "markowitz",
    "dstar",
    "vertex-optimal",
    "edge-optimal",
    "best",
)
VERTEX_CLASS = ("forward", "reverse", "markowitz")
FUNCTIONS = (
    ("hessian", "python", False),
    ("hessian", "python", True),
    ("hessian", "python", "tril"),
    ("hessian", "jax", True),
    ("hessian", "c", True),
    ("hessian", "c", False),
    ("hvp", "python", False),
    ("hvp", "c", False),
    ("value_gradient_hessian", "python", True),
    ("value_gradient_hessian", "jax", False),
)

# the functions the programs below are written with, in sympy and in JAX
_BOTH = {
    "sin": (sympy.sin, jnp.sin),
    "cos": (sympy.cos, jnp.cos),
    "exp": (sympy.exp, jnp.exp),
    "log": (sympy.log, jnp.log),
    "sqrt": (sympy.sqrt, jnp.sqrt),
    "abs": (sympy.Abs, jnp.abs),
    "max": (sympy.Max, jnp.maximum),
    "min": (sympy.Min, jnp.minimum),
    "lgamma": (sympy.loggamma, jax.scipy.special.gammaln),
}
SYM = SimpleNamespace(**{name: pair[0] for name, pair in _BOTH.items()})
JNP = SimpleNamespace(**{name: pair[1] for name, pair in _BOTH.items()})


@dataclass
class Program:
    """A program: ``graph`` (a graph of scalars, or None) or ``function`` (array level),
    the point, the JAX reference ``reference(x)`` (the Lagrangian with the weights), the
    weights (or None) and the file the commands read."""

    name: str
    point: np.ndarray
    reference: Callable[[Any], Any]
    graph: Any = None
    function: Callable[..., Any] | None = None
    weights: list[float] | None = None
    file: str | None = None
    inputs: str | None = None
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- sympy programs


def arm_energy(m, q):
    """Potential energy of a planar 4-link arm: Σ m_k g y_k, y_k the link's centre."""
    lengths, masses, y, angle, total = (0.5, 0.4, 0.3, 0.2), (3.0, 2.0, 1.5, 0.5), 0, 0, 0
    for k in range(4):
        angle = angle + q[k]
        total = total + masses[k] * 9.81 * (y + 0.5 * lengths[k] * m.sin(angle))
        y = y + lengths[k] * m.sin(angle)
    return total + 0.1 * m.cos(q[0] - q[3])


def gamma_loglik(m, p):
    """Log-likelihood of Gamma(shape a, rate b) data, a = exp(p0), b = exp(p1), and a
    regression of the mean on a covariate through p2 (three parameters, eight points)."""
    data = (0.8, 1.3, 2.1, 0.6, 1.7, 3.2, 0.9, 1.1)
    cov = (0.1, -0.3, 0.5, 0.2, -0.1, 0.4, 0.0, -0.2)
    a = m.exp(p[0])
    total = 0
    for d, c in zip(data, cov, strict=True):
        b = m.exp(p[1] + p[2] * c)
        total = total + a * m.log(b) - m.lgamma(a) + (a - 1) * np.log(d) - b * d
    return total


def piecewise_expr(m, x):
    """|x0 − x1|·x2 + max(x0, x1)² − min(x1·x2, 1) + |x0|·x1²."""
    return (
        m.abs(x[0] - x[1]) * x[2]
        + m.max(x[0], x[1]) ** 2
        - m.min(x[1] * x[2], 1)
        + (m.abs(x[0]) * x[1] ** 2)
    )


def kinetics_outputs(m, c):
    """``methods_survey``'s kinetics right-hand side (five rates), as a Lagrangian."""
    k1, k2, k3, k4 = 0.04, 3e1, 1e2, 0.5
    r1, r2, r3 = k1 * c[0], k2 * c[1] ** 2, k3 * c[1] * c[2]
    r4 = k4 * c[3] * m.exp(-1 / (c[4] + 2))
    return [-r1 + r3, r1 - r2 - r3, r2 - r4, r4 - r3 * c[3], r1 * c[4]]


def _sympy_program(name, build, n, point, weights=None) -> Program:
    syms = list(sympy.symbols(f"x0:{n}"))
    outs = build(SYM, syms)
    outs = outs if isinstance(outs, list) else [outs]
    g = dgraph.from_sympy(outs, syms)
    w = weights or [1.0]

    def reference(x):
        ys = build(JNP, [x[i] for i in range(n)])
        ys = ys if isinstance(ys, list) else [ys]
        return sum(wi * yi for wi, yi in zip(w, ys, strict=True))

    return Program(name, np.asarray(point, float), reference, graph=g, weights=weights)


def _robot3d_program() -> Program:
    """``methods_survey``'s 3-D arm kinematics (x, y, z of the tip), as a Lagrangian."""
    outs, ins = ms._robot3d()
    w = [0.7, -1.3, 2.0]
    f = sympy.lambdify(ins, sum(wi * o for wi, o in zip(w, outs, strict=True)), "jax")
    g = dgraph.from_sympy(outs, ins)
    return Program(
        "robot3d_lagrangian", np.array([0.2, 0.5, -0.4, 0.9]), lambda x: f(*x), graph=g, weights=w
    )


# ---------------------------------------------------------------- element-level programs


def chained_wood(x):
    """Wood's function chained over x (n a multiple of 2), with a coupling term."""
    t = 0.0
    for i in range(0, len(x) - 3, 2):
        t = (
            t
            + 100 * (x[i] ** 2 - x[i + 1]) ** 2
            + (x[i] - 1) ** 2
            + 90 * (x[i + 2] ** 2 - x[i + 3]) ** 2
        )
        t = (
            t
            + 10.1 * ((x[i + 1] - 1) ** 2 + (x[i + 3] - 1) ** 2)
            + 19.8 * (x[i + 1] - 1) * (x[i + 3] - 1)
        )
    return t


def tiny_mlp_loss(w):
    """Squared loss of a 2-3-1 tanh network over four samples; w: 9 weights and 4 biases."""
    xs = ((0.1, 0.9), (0.5, -0.3), (-0.7, 0.2), (0.3, 0.3))
    ys = (0.4, -0.2, 0.1, 0.6)
    loss = 0.0
    for (a, b), y in zip(xs, ys, strict=True):
        h = [jnp.tanh(w[2 * k] * a + w[2 * k + 1] * b + w[9 + k]) for k in range(3)]
        out = w[6] * h[0] + w[7] * h[1] + w[8] * h[2] + w[12]
        loss = loss + (out - y) ** 2
    return loss


def lj_cluster(x):
    """Lennard-Jones energy of four atoms in the plane (8 unknowns), NumPy scalars."""
    e = 0.0
    for i in range(4):
        for j in range(i + 1, 4):
            r2 = (x[2 * i] - x[2 * j]) ** 2 + (x[2 * i + 1] - x[2 * j + 1]) ** 2
            inv6 = 1.0 / r2**3
            e = e + 4.0 * (inv6 * inv6 - inv6)
    return e


def _element_jax(name, f, point) -> Program:
    x = np.asarray(point, float)
    g = dgraph.from_jax(f, x)
    return Program(name, x, f, graph=g)


def _element_numpy(name, f, point) -> Program:
    x = np.asarray(point, float)
    g = dgraph.from_function(f, sizes=[len(x)])
    return Program(name, x, f, graph=g)


# ---------------------------------------------------------------- array-level programs

_A = np.array([[0.3, -1.2, 0.5], [1.1, 0.4, -0.3], [-0.6, 0.8, 0.9], [0.2, -0.1, 1.4]])
_Y = np.array([1.0, 0.0, 1.0, 0.0])


def logistic_nll(w):
    z = jnp.asarray(_A) @ w[:3] + w[3]
    return jnp.sum(jnp.logaddexp(0.0, z) - _Y * z) + 0.05 * jnp.sum(w**2)


def constraints(x):
    return jnp.stack(
        [x[0] * x[1] - x[2] ** 2, jnp.sin(x[1]) + x[3], x[0] + 2 * x[3], jnp.exp(x[2] * x[3])]
    )


def hinge_where(x):
    r = x[1:] - 0.5 * x[:-1]
    return (
        jnp.sum(jnp.where(r > 0, r**2, 0.1 * r**3))
        + jnp.sum(jnp.abs(x) * x[::-1])
        + jnp.max(jnp.maximum(x, 0.2) ** 2)
    )


def affine(x):
    """An objective linear in every input: its gradient a constant, its Hessian 0."""
    return jnp.dot(jnp.array([1.0, -2.0, 0.5]), x) + 1.0


def constant_of(x):
    """An objective that reads its input and does not depend on it."""
    return 0.0 * jnp.sum(x) + 3.0


def _logsumexp(xp, name):
    """log Σ exp(x) plus a chain of squared differences, written with ``xp``."""

    def f(x):
        m = xp.max(x)
        return m + xp.log(xp.sum(xp.exp(x - m))) + 0.5 * xp.sum((x[1:] - x[:-1]) ** 2)

    f.__name__ = f.__qualname__ = name
    return f


def _huber(xp, name):
    """A Huber loss of x's residuals plus a product, written with ``xp``."""

    def f(x):
        r = x - xp.array([0.1, -0.4, 0.9, 0.3, -1.5])
        a = xp.abs(r)
        return xp.sum(xp.where(a < 0.5, 0.5 * r**2, 0.5 * (a - 0.25))) + xp.prod(x[:2])

    f.__name__ = f.__qualname__ = name
    return f


# NumPy programs (the command line reads them by these names) and their JAX references
logsumexp_np, logsumexp_ref = _logsumexp(np, "logsumexp_np"), _logsumexp(jnp, "logsumexp_ref")
huber_np, huber_ref = _huber(np, "huber_np"), _huber(jnp, "huber_ref")


def _array_program(name, f, point, weights=None, reference=None) -> Program:
    x = np.asarray(point, float)
    if weights is None:
        return Program(name, x, reference or f, function=f)
    w = np.asarray(weights)
    return Program(name, x, lambda z: jnp.dot(w, f(z)), function=f, weights=list(weights))


# ---------------------------------------------------------------- hand-written files

TRACE_UNREAD = """\
inputs: a, b, c
outputs: f
# c is an unknown the objective does not read
t = a*b
f = exp(t) + a**3
"""
TRACE_CONSTANT = """\
inputs: a, b
outputs: f
f = 3
"""
TRACE_LINEAR = """\
inputs: a, b, c
outputs: f, g
f = 2*a - 3*b + c
g = a + b + c + 1
"""
TRACE_SQUARE = """\
inputs: x, y
outputs: f
# an input twice in one product, and a power of a product
t = x*x*y
f = t*t + sin(x)
"""
TRACE_REPEATED = """\
inputs: x, y, x
outputs: f
f = x*y
"""
JSON_HESS = {
    "format": "dgraph/1",
    "inputs": ["p", "q", "r"],
    "outputs": ["f"],
    "vertices": [
        {"id": "u", "expr": "p*q"},
        {"id": "v", "expr": "sin(u)"},
        {"id": "f", "expr": "v*p + u"},
    ],
    "edges": [
        {"source": "p", "target": "u", "label": "q"},
        {"source": "q", "target": "u", "label": "p"},
        {"source": "u", "target": "v", "label": "cos(u)"},
        {"source": "v", "target": "f", "label": "p"},
        {"source": "p", "target": "f", "label": "v"},
        {"source": "u", "target": "f", "label": "1"},
    ],
}
JSON_TWO = {
    "format": "dgraph/1",
    "inputs": ["x", "y"],
    "outputs": ["f", "g"],
    "vertices": [{"id": "f", "expr": "x*y"}, {"id": "g", "expr": "x**2"}],
    "edges": [
        {"source": "x", "target": "f", "label": "y"},
        {"source": "y", "target": "f", "label": "x"},
        {"source": "x", "target": "g", "label": "2*x"},
    ],
}


def _file_programs(tmp: Path) -> dict[str, Callable[[], Program]]:
    def written(name, suffix, text, ref, point, weights=None):
        path = tmp / f"{name}{suffix}"
        path.write_text(text)
        return lambda: Program(
            name,
            np.asarray(point, float),
            ref,
            graph=dgraph.load(str(path)),
            weights=weights,
            file=str(path),
        )

    def trace(name, text, ref, point, weights=None):
        return written(name, ".trace", text, ref, point, weights)

    def graph(name, data, ref, point, weights=None):
        return written(name, ".json", json.dumps(data), ref, point, weights)

    return {
        "trace_unread": trace(
            "trace_unread",
            TRACE_UNREAD,
            lambda x: jnp.exp(x[0] * x[1]) + x[0] ** 3,
            [0.3, 0.7, 1.1],
        ),
        "trace_constant": trace(
            "trace_constant", TRACE_CONSTANT, lambda x: 3.0 + 0 * x[0], [0.3, 0.7]
        ),
        "trace_linear": trace(
            "trace_linear",
            TRACE_LINEAR,
            lambda x: 0.5 * (2 * x[0] - 3 * x[1] + x[2]) - 2.0 * (x[0] + x[1] + x[2] + 1),
            [0.3, 0.7, 1.1],
            weights=[0.5, -2.0],
        ),
        "trace_square": trace(
            "trace_square",
            TRACE_SQUARE,
            lambda x: (x[0] * x[0] * x[1]) ** 2 + jnp.sin(x[0]),
            [0.6, -0.4],
        ),
        "trace_repeated": trace(
            "trace_repeated", TRACE_REPEATED, lambda x: x[0] * x[1], [0.6, -0.4]
        ),
        "json_hess": graph(
            "json_hess",
            JSON_HESS,
            lambda x: jnp.sin(x[0] * x[1]) * x[0] + x[0] * x[1] + 0 * x[2],
            [0.4, 0.9, -0.2],
        ),
        "json_two": graph(
            "json_two",
            JSON_TWO,
            lambda x: 1.5 * x[0] * x[1] - 0.5 * x[0] ** 2,
            [0.4, 0.9],
            [1.5, -0.5],
        ),
    }


def _programs(tmp: Path) -> dict[str, Callable[[], Program]]:
    rng = np.random.default_rng(36)
    kin_w = [1.0, -0.5, 2.0, 0.25, -1.0]
    out = {
        "arm_energy_sympy": lambda: _sympy_program(
            "arm_energy_sympy", arm_energy, 4, [0.3, -0.2, 0.5, 0.1]
        ),
        "kinetics_lagrangian": lambda: _sympy_program(
            "kinetics_lagrangian", kinetics_outputs, 5, [0.9, 0.2, 0.4, 0.7, 1.3], kin_w
        ),
        "gamma_loglik_sympy": lambda: _sympy_program(
            "gamma_loglik_sympy", gamma_loglik, 3, [0.4, -0.1, 0.3]
        ),
        "piecewise_sympy": lambda: _sympy_program(
            "piecewise_sympy", piecewise_expr, 3, [0.7, -0.4, 1.2]
        ),
        "wood_element_jax": lambda: _element_jax(
            "wood_element_jax", chained_wood, np.linspace(-1.0, 1.2, 8)
        ),
        "mlp_element_jax": lambda: _element_jax(
            "mlp_element_jax", tiny_mlp_loss, 0.3 * rng.standard_normal(13)
        ),
        "lj_element_numpy": lambda: _element_numpy(
            "lj_element_numpy", lj_cluster, [0.0, 0.0, 1.1, 0.1, 0.2, 1.0, 1.3, 1.2]
        ),
        "logistic_array_jax": lambda: _array_program(
            "logistic_array_jax", logistic_nll, [0.2, -0.4, 0.1, 0.3]
        ),
        "constraints_lagrangian_jax": lambda: _array_program(
            "constraints_lagrangian_jax", constraints, [0.5, 1.2, -0.3, 0.8], [1.0, -2.0, 0.5, 0.7]
        ),
        "hinge_where_jax": lambda: _array_program(
            "hinge_where_jax", hinge_where, [0.9, -0.3, 0.6, 1.4, 0.1]
        ),
        "affine_array_jax": lambda: _array_program("affine_array_jax", affine, [0.3, -0.2, 0.5]),
        "constant_array_jax": lambda: _array_program(
            "constant_array_jax", constant_of, [0.3, -0.2, 0.5]
        ),
        "logsumexp_numpy": lambda: _array_program(
            "logsumexp_numpy", logsumexp_np, [0.2, 1.1, -0.5, 0.7], reference=logsumexp_ref
        ),
        "huber_numpy": lambda: _array_program(
            "huber_numpy", huber_np, [0.3, 0.2, -0.1, 0.5, -0.6], reference=huber_ref
        ),
    }
    out["robot3d_lagrangian"] = lambda: _robot3d_program()
    out.update(_file_programs(tmp))
    return out


# ---------------------------------------------------------------- checks


def _points(p: Program) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [p.point, p.point + 0.1 * rng.uniform(-1, 1, p.point.shape)]


def _reference(p: Program, x: np.ndarray) -> np.ndarray:
    n = x.size
    return np.asarray(jax.hessian(lambda z: p.reference(z))(jnp.asarray(x)), float).reshape(n, n)


def _compare(got: np.ndarray, want: np.ndarray, what: str) -> str | None:
    if got.shape != want.shape:
        return f"{what}: shape {got.shape}, jax.hessian {want.shape}"
    if not np.all(np.isfinite(got)) or not np.allclose(got, want, rtol=TOL, atol=TOL):
        return f"{what}: differs from jax.hessian by {np.nanmax(np.abs(got - want)):.3g}"
    if not np.allclose(got, got.T, rtol=TOL, atol=TOL):
        return f"{what}: not symmetric"
    return None


def _true_pattern(p: Program) -> np.ndarray:
    refs = [np.abs(_reference(p, x)) for x in _points(p)]
    return np.logical_or.reduce([r > 1e-10 * max(r.max(), 1.0) for r in refs])


def _wide_pattern(p: Program) -> np.ndarray:
    """The entries nonzero at any of 40 points drawn widely around the point (a pattern
    made once holds for every point: the union over a program's branches)."""
    rng = np.random.default_rng(2)
    out = _true_pattern(p)
    for _ in range(40):
        x = p.point + rng.normal(0.0, 1.0, p.point.shape)
        h = np.abs(_reference(p, x))
        out |= np.isfinite(h) & (h > 1e-10 * max(np.nanmax(h), 1.0))
    return out


def _es_matrix(es, p: Program, x: np.ndarray) -> np.ndarray:
    n = len(p.graph.inputs)
    h = np.asarray(es.evaluate(x), float).reshape(n, n)
    if es.info.get("triangle") == "lower":
        h = np.tril(h) + np.tril(h, -1).T
    return h


def _es_pattern(es, p: Program) -> np.ndarray:
    n = len(p.graph.inputs)
    index = {f"{v}_bar": i for i, v in enumerate(p.graph.inputs)}
    col = {v: i for i, v in enumerate(p.graph.inputs)}
    out = np.zeros((n, n), bool)
    for (bar, x), e in es.jacobian.items():
        if e != 0:
            out[index[bar], col[x]] = out[col[x], index[bar]] = True
    return out


def _weights_map(p: Program) -> dict[str, float] | None:
    return None if p.weights is None else dict(zip(p.graph.outputs, p.weights, strict=True))


def _cell(run: Callable[[], tuple[str, str]]) -> tuple[str, str]:
    """``methods_survey``'s cell, where a refusal that calls itself a bug is an ERROR."""
    cell = ms._cell(run)
    if cell[0] == "refused" and "a bug" in cell[1]:
        return "ERROR", cell[1]
    return cell


def method_cell(p: Program, method: str, results: dict) -> tuple[str, str]:
    def run():
        es = dgraph.accumulate_hessian(p.graph, method, weights=_weights_map(p))
        again = dgraph.accumulate_hessian(p.graph, method, weights=_weights_map(p))
        if (es.mults, str(es.jacobian)) != (again.mults, str(again.jacobian)):
            return "NONDET", f"{es.mults} then {again.mults} mults in one process"
        counted = ms.recount(es)
        if counted != es.mults:
            return "WRONG", f"reports {es.mults} mults, its expressions have {counted}"
        if es.verified and getattr(es.verification, "status", "") != "verified":
            return "WRONG", f"verified but verification says {es.verification!r}"
        for k, x in enumerate(_points(p)):
            bad = _compare(_es_matrix(es, p, x), _reference(p, x), f"point {k}")
            if bad:
                return "WRONG", bad
        true, have = _true_pattern(p), _es_pattern(es, p)
        if np.any(true & ~have):
            return "WRONG", f"{int(np.sum(true & ~have))} true nonzeros missing from its entries"
        results[method] = es
        extra = int(np.sum(have & ~true))
        return "ok", f"{es.mults} mults" + (
            f"; {extra} entries by paths 0 at both points" if extra else ""
        )

    return _cell(run)


def claims_cell(p: Program, results: dict) -> tuple[str, str]:
    def run():
        out = []
        every = {m: es.info.get("mults_written", es.mults) for m, es in results.items()}
        for exact in ("vertex-optimal", "edge-optimal"):
            if exact in every:
                for other in (
                    *VERTEX_CLASS,
                    *(["vertex-optimal"] if exact == "edge-optimal" else []),
                ):
                    if other in every and every[other] < every[exact]:
                        out.append(f"{exact} {every[exact]} beaten by {other} {every[other]}")
        table = dgraph.compare_hessian(p.graph, weights=_weights_map(p))
        data = table.to_dict()
        again = json.dumps(
            ms._strip_seconds(dgraph.compare_hessian(p.graph, weights=_weights_map(p)).to_dict())
        )
        if json.dumps(ms._strip_seconds(data)) != again:
            return "NONDET", "compare_hessian differs in a second run"
        bound = table.lower_bound
        value = bound.mults if bound else None
        rows = {r["method"]: r for r in data["methods"]}
        for m, es in results.items():
            tri = lower_triangle(es) if es.info.get("triangle") != "lower" else es
            if ms.recount(tri) != tri.mults:
                out.append(f"{m}'s lower triangle reports {tri.mults}, has {ms.recount(tri)}")
            row = rows.get(m)
            if row is not None and row.get("mults_lower_triangle") != tri.mults:
                out.append(f"compare's {m} lower triangle {row.get('mults_lower_triangle')}")
            if value is not None and tri.mults < value:
                out.append(f"proven bound {value} above {m}'s lower triangle {tri.mults}")
        search = table.search_lower_bound
        svalue = search.mults if search else None
        effective = search is not None and "effective" in search.bounds
        for m, es in results.items():
            key = "mults_effective" if effective else "mults"
            count = es.info.get(f"{key}_written", getattr(es, key))
            if svalue is not None and count < svalue:
                out.append(
                    f"search bound {svalue} ({search.bounds}) above {m}'s every entry {count}"
                )
        if out:
            return "WRONG", "; ".join(out)
        return "ok", f"bound {value}, search bound {svalue}, best {data.get('best')}"

    return _cell(run)


def _call(fn, mode: str, x: np.ndarray, p: Program, t: np.ndarray):
    args = [x] if p.weights is None else [x, np.asarray(p.weights, float)]
    if mode == "hvp":
        return fn(*args, t)
    return fn(*args)


def _dense(h) -> np.ndarray:
    h = h.toarray() if hasattr(h, "toarray") else (h.todense() if hasattr(h, "todense") else h)
    return np.asarray(h, float)


def function_cell(p: Program, mode: str, lang: str, sparse: bool) -> tuple[str, str]:
    source = p.graph if p.graph is not None else p.function

    def run():
        kw: dict[str, Any] = {"sparse": bool(sparse), "tril": sparse == "tril"}
        if p.function is not None:
            kw["point"] = [p.point]
        if p.weights is not None:
            kw["weights"] = (
                np.asarray(p.weights, float) if p.function is not None else list(p.weights)
            )
        fn = dgraph.make_function(source, mode, lang, **kw)
        n = p.point.size
        t = np.linspace(1.0, 2.0, n)
        stored = None
        for k, x in enumerate(_points(p)):
            want = _reference(p, x)
            got = _call(fn, mode, x, p, t)
            if mode == "hvp":
                got_v = np.asarray(got, float).ravel()
                if not np.allclose(got_v, want @ t, rtol=TOL, atol=TOL):
                    return (
                        "WRONG",
                        f"point {k}: H·t differs by {np.max(np.abs(got_v - want @ t)):.3g}",
                    )
                continue
            if mode == "value_gradient_hessian":
                value, grad, got = got
                f0 = float(p.reference(jnp.asarray(x)))
                g0 = np.asarray(jax.grad(p.reference)(jnp.asarray(x)), float)
                if not np.allclose(
                    float(np.asarray(value).sum()) if p.weights is None else f0, f0, rtol=TOL
                ):
                    return "WRONG", f"point {k}: value {value} against {f0}"
                if p.weights is None and not np.allclose(np.ravel(grad), g0, rtol=TOL, atol=TOL):
                    return (
                        "WRONG",
                        f"point {k}: gradient differs by {np.max(np.abs(np.ravel(grad) - g0)):.3g}",
                    )
            if sparse and hasattr(got, "indices") and hasattr(got, "indptr"):
                pat = np.zeros((n, n), bool)
                coo = got.tocoo()
                pat[coo.row, coo.col] = True
                pat |= pat.T if sparse == "tril" else pat
                stored = pat if stored is None else stored
            elif sparse and hasattr(got, "indices"):
                pat = np.zeros((n, n), bool)
                idx = np.asarray(got.indices)
                pat[idx[:, 0], idx[:, 1]] = True
                stored = pat
            h = _dense(got).reshape(n, n)
            if sparse == "tril":
                if np.any(np.triu(h, 1)):
                    return "WRONG", f"point {k}: tril=True stores entries above the diagonal"
                h = np.tril(h) + np.tril(h, -1).T
            bad = _compare(h, want, f"point {k}")
            if bad:
                return "WRONG", bad
        note = ""
        if stored is not None:
            true = _true_pattern(p)
            if np.any(true & ~stored):
                return "WRONG", f"pattern misses {int(np.sum(true & ~stored))} true nonzeros"
            extra = int(np.sum(stored & ~true))
            never = int(np.sum(stored & ~_wide_pattern(p)))
            if never:
                return "WRONG", f"pattern wider: {never} stored entries 0 at 42 points"
            note = f"nnz {int(stored.sum())}" + (
                f"; {extra} 0 at both points (branches)" if extra else ""
            )
        verified = getattr(getattr(fn, "generated", None), "verified", None)
        return "ok", note + ("" if verified in (None, True) else f" verified={verified}")

    return _cell(run)


# ---------------------------------------------------------------- the command line


def _graph_file(p: Program, tmp: Path) -> str:
    if p.file:
        return p.file
    path = tmp / f"{p.name}.json"
    path.write_text(p.graph.to_json())
    return str(path)


def _module_values(path: Path, p: Program) -> str | None:
    """The generated Python file's ``hessian`` at the two points against jax.hessian."""
    spec = importlib.util.spec_from_file_location(f"h_{p.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for k, x in enumerate(_points(p)):
        args = [x] if p.weights is None else [x, np.asarray(p.weights, float)]
        got = _dense(mod.hessian(*args)).reshape(x.size, x.size)
        bad = _compare(got, _reference(p, x), f"point {k}")
        if bad:
            return bad
    return None


def cli_rows(p: Program, tmp: Path) -> list[tuple[str, tuple[str, str]]]:
    rows = []
    if p.graph is not None:
        path = _graph_file(p, tmp)
        extra = ["--weights", ",".join(map(str, p.weights))] if p.weights else []
        hpath = tmp / f"{p.name}-H.json"
        hpath.write_text(hessian_graph(p.graph, weights=_weights_map(p)).to_json())
        rows.append(("cli compare H(g)", ms.cli_cell(["compare", str(hpath), "--json"], tmp)))
        rows.append(
            ("cli render H(g) .tex", ms.cli_cell(["render", str(hpath)], tmp, f"{p.name}-H.tex"))
        )
    else:
        path = f"{Path(__file__).resolve()}:{p.function.__name__}"
        extra = ["--inputs", f"{p.function.__code__.co_varnames[0]}:{p.point.size}"]
        if p.weights:
            extra += ["--weights", ",".join(map(str, p.weights))]
    base = ["codegen", path, "--mode", "hessian", *extra]
    out = tmp / f"{p.name}-hess.py"
    cell = ms.cli_cell([*base, "--lang", "python"], tmp, f"{p.name}-hs.py")
    if cell[0] == "ok":
        code, _, _ = ms._cli([*base, "--lang", "python", "-o", str(out)], 1, tmp)
        if code == 0:
            try:
                bad = _module_values(out, p)
            except Exception as e:  # the generated file must run
                bad = f"the file fails: {type(e).__name__}: {e}"[:200]
            cell = ("WRONG", bad) if bad else cell
    rows.append(("cli codegen hessian py", cell))
    rows.append(
        (
            "cli codegen hessian c",
            ms.cli_cell([*base, "--lang", "c", "--sparse"], tmp, f"{p.name}-h.c"),
        )
    )
    return rows


HESSIAN_CHAINS = {
    "hchain3": "3\n4 3\n2 4\n1 2\n",
    "hchain5": "5\n6 5 20\n6 6 30\n4 6 24\n3 4 12\n1 3 3\n",
}


def hchain_rows(tmp: Path) -> list[tuple[str, str, tuple[str, str]]]:
    rows = []
    for name, text in HESSIAN_CHAINS.items():
        path = tmp / f"{name}.txt"
        path.write_text(text)
        args = ["chain", str(path), "--hessian", "--json"]
        cell = ms.cli_cell(args, tmp)
        if cell[0] == "ok":
            data = json.loads(ms._cli(args, 1, tmp)[1])
            best, fwd = data.get("optimal"), data.get("forward_over_reverse")
            if isinstance(best, int) and isinstance(fwd, int) and best > fwd:
                cell = ("WRONG", f"optimal {best} above forward-over-reverse {fwd}")
            else:
                cell = ("ok", f"optimal {best}, forward-over-reverse {fwd}")
        rows.append((name, "cli chain --hessian", cell))
    return rows


# ---------------------------------------------------------------- the survey


def _load(build, into: list) -> tuple[str, str]:
    into.append(build())
    return "ok", ""


def survey(p: Program, tmp: Path, use_cli: bool) -> Iterator[tuple[str, tuple[str, str]]]:
    """The program's rows, each as soon as its cell is done (a process that dies in a
    cell has printed the rows before it)."""
    if p.graph is not None:
        results: dict = {}
        for m in HESSIAN_METHODS:
            yield m, method_cell(p, m, results)
        yield "claims/compare_hessian", claims_cell(p, results)
    for mode, lang, sparse in FUNCTIONS:
        kind = {True: " sparse", "tril": " tril", False: ""}[sparse]
        yield f"make_function {mode} {lang}{kind}", function_cell(p, mode, lang, sparse)
    if use_cli:
        yield from cli_rows(p, tmp)


def totals(rows: list[tuple[str, str]]) -> str:
    """``program: ok n, refused n, ...`` for each program, in the order of the rows."""
    counts: dict[str, dict[str, int]] = {}
    for name, cell in rows:
        counts.setdefault(name, {})
        counts[name][cell] = counts[name].get(cell, 0) + 1
    return "\n".join(
        f"{name:27s} " + ", ".join(f"{c} {k}" for c, k in sorted(cells.items()))
        for name, cells in counts.items()
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    use_cli = "--no-cli" not in argv
    for a in argv:
        if a.startswith("--limit="):
            ms.LIMIT = int(a.split("=")[1])
    names = [a for a in argv if not a.startswith("--")]
    tmp = Path(tempfile.mkdtemp(prefix="hessian_survey_"))
    bad, every = [], []

    def show(name, size, label, cell):
        print(f"{name:27s} {size:10s} {label:38s} {cell[0]:8s} {cell[1][:150]}", flush=True)
        every.append((name, cell[0]))
        if cell[0] != "ok":
            bad.append((name, label, *cell))

    for name, build in _programs(tmp).items():
        if names and name not in names:
            continue
        loaded: list = []
        cell = ms._cell(lambda build=build, loaded=loaded: _load(build, loaded))
        if cell[0] != "ok":
            show(name, "-", "load", cell)
            continue
        p = loaded[0]
        size = f"{len(p.graph.vertices)}v/{p.graph.n_edges}e" if p.graph is not None else "array"
        for label, c in survey(p, tmp, use_cli):
            show(name, size, label, c)
    if use_cli and (not names or "chains" in names):
        for name, label, c in hchain_rows(tmp):
            show(name, "-", label, c)
    print(f"\n{totals(every)}\n\n{len(every)} cells, {len(bad)} not ok")
    for row in bad:
        print(" | ".join(row)[:400])
    return 0


if __name__ == "__main__":
    sys.exit(main())
