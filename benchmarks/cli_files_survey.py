"""The command line end to end on user files as users write them (session 37).

About 35 files not in the tests, written into a temporary directory: Python modules with
several functions, defaults, keyword-only arguments, ``*args``, annotations and
docstrings, decorators (``@jax.jit``, ``functools.partial(jax.jit, static_argnums=…)``,
``@np.vectorize``, a user's own), a ``__main__`` block, module constants and helpers, a
sibling import, a relative import, ``from numpy import *``, a callable object, a lambda,
a syntax error, an empty file, no function, a function that raises, a Latin-1 file, a
module that prints, 100 and 10⁴ statements; evaluation traces and dgraph/1 JSON graphs,
valid and hostile (a cycle, missing fields, wrong types, NaN, infinity, huge numbers).

Each row is one file × one command; each cell ``ok`` / ``refused`` (exit 2, one line on
stderr) / ``WRONG`` (a value off, a partial file left by a failure, an unexpected
success) / ``ERROR`` (a traceback, another exit code, more than one line) / ``HANG``
(over 60 s of wall time) / ``NONDET`` (other bytes under ``PYTHONHASHSEED`` 1 and 2:
every command runs twice, ``--json`` compared with its seconds dropped). Generated code
is imported (Python, JAX), compiled (C; CUDA's host build) and its Jacobian, J·v, vᵀJ,
value and Hessian compared at a random point with central differences of a NumPy
reference written here, apart from dgraph (1e-6 relative + absolute; Hessians 1e-5).
The CPU seconds of each cell (``/usr/bin/time``, both runs) are kept; the slowest are
printed at the end.

    PYTHONPATH=. python benchmarks/cli_files_survey.py [FILE[:COMMAND,...] ...] [--jobs=2]
        [--all | --light]

(``DGRAPH_SOURCE=DIR``: run the commands with the dgraph in DIR, a checkout of another
commit, for a before/after table.)
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")
ROOT = Path(__file__).resolve().parent.parent
SOURCE = os.environ.get("DGRAPH_SOURCE", str(ROOT))  # the dgraph the commands run (a before)
LIMIT = 60

# ---------------------------------------------------------------- the files

SEVERAL = '''"""A pendulum model with helpers, as in a research script."""
import numpy as np

G = 9.81
LENGTH = 1.5


def _square(v):
    return v * v


def energy(q, p):
    """Kinetic plus potential energy."""
    return 0.5 * _square(p) / LENGTH**2 + G * LENGTH * (1 - np.cos(q))


def residual(a, b):
    return np.sin(a) * b - _square(a), a * np.exp(-b)


def plot(results):
    raise RuntimeError("plotting needs matplotlib")
'''

DEFAULTS = """import numpy as np


def f(x, y, scale=2.0):
    return scale * np.sin(x) * y, x / y
"""

KWONLY = """import math


def f(x, y, *, rate=0.5):
    return math.exp(-rate * x) * y + x * y
"""

VARARGS = """import numpy as np


def total(*xs):
    return sum(np.sin(x) for x in xs)
"""

ANNOTATED = '''from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def rosen(x: NDArray[np.float64]) -> float:
    """Rosenbrock's function.

    Parameters
    ----------
    x : array of 3
    """
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


def rosen_plain(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
'''

JITTED = """import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    return jnp.tanh(x) * jnp.sum(x**2)
"""

PARTIAL_JIT = """import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=1)
def power_sum(x, n=3):
    return jnp.sum(x**n) + jnp.prod(jnp.cos(x))
"""

VECTORIZED = """import numpy as np


@np.vectorize
def f(x, y):
    return np.sin(x) * y + x
"""

OWN_DECORATOR = """import functools
import time

import numpy as np


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        print(f"{fn.__name__} took {time.perf_counter() - start:.3f} s")
        return out

    return wrapper


@timed
def f(x, y):
    return np.log(x) * y, np.hypot(x, y)
"""

MAIN_BLOCK = """import time

import numpy as np


def f(x, y):
    return np.arctan2(y, x), x**2 * y


if __name__ == "__main__":
    print("running the long job")
    time.sleep(600)
"""

CONSTANTS = """import math

import numpy as np

MASSES = np.array([1.0, 2.0, 0.5])
K = 3.0


def spring(dx):
    return 0.5 * K * dx**2


def energy(q):
    return sum(m * spring(q[i] - q[i - 1]) for i, m in enumerate(MASSES)) + math.pi * q[0]
"""

HELPERS = """import numpy as np

SCALE = 1.7


def smooth(v):
    return np.log1p(np.exp(v))
"""

SIBLING = """from helpers import SCALE, smooth


def f(x, y):
    return SCALE * smooth(x) * y, smooth(x - y)
"""

RELATIVE = """from .helpers import smooth


def f(x, y):
    return smooth(x) * y
"""

STAR = """from numpy import *


def f(x, y):
    return sin(x) * exp(y), sqrt(x * y)
"""

CALLABLE = """import numpy as np


class Model:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, y):
        return self.k * np.sin(x) * y, np.cos(y)


model = Model(2.5)
"""

LAMBDA = """import numpy as np

f = lambda x, y: (x * np.exp(y), y / x)  # noqa: E731
"""

SYNTAX_ERROR = """import numpy as np


def f(x, y)
    return x * y
"""

NO_FUNCTION = '''"""Only constants."""
X = 1.0
Y = [1, 2, 3]
'''

RAISES = """import numpy as np


def f(x, y):
    if x.shape != ():
        raise ValueError("x must be a scalar")
    raise ValueError("not implemented yet")
"""

LATIN1 = (
    "# caf\xe9: Latin-1, not UTF-8\nimport numpy as np\n\n\n"
    "def f(x, y):\n    return x * np.sin(y)\n"
)

PRINTS = """import numpy as np

print("loading the model")


def f(x, y):
    print("f called")
    return np.sin(x) * y, x + y
"""

SYMPY = """import sympy as sp


def f(x, y):
    r = sp.sqrt(x**2 + y**2)
    return r, sp.atan2(y, x) * r


def lagrangian(q, qd):
    return sp.Rational(1, 2) * qd**2 - (1 - sp.cos(q))
"""

VECTOR = '''import numpy as np


def rhs(u):
    """A 1-D reaction-diffusion right-hand side."""
    lap = np.zeros_like(u)
    lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
    return lap + u * (1 - u)
'''


def hundred_ops(n: int = 100) -> str:
    """A function of 4 scalars with ``n`` operations (n/4 statements of 4; 100 here, more
    or fewer in benchmarks/render_steps_scale.py)."""
    lines = ["import numpy as np", "", "", "def f(a, b, c, d):"]
    names = ["a", "b", "c", "d"]
    for k in range(n // 4):
        u, v, w = names[-1], names[-2], names[-3]
        lines.append(f"    t{k} = np.sin({u}) * {v} + {w} / (1 + {u} * {u})")
        names.append(f"t{k}")
    lines.append(f"    return {names[-1]}, {names[-2]} * {names[-4]}")
    return "\n".join(lines) + "\n"


def huge() -> str:
    """10⁴ statements of one scalar running value."""
    lines = ["import numpy as np", "", "", "def f(x, y):", "    t = x"]
    for k in range(10_000):
        lines.append(f"    t = t * 0.9999 + {1e-4 * (k % 7):.4f} * y")
    lines.append("    return t, t * y")
    return "\n".join(lines) + "\n"


TRACE = """# two-link arm, as written by hand
inputs: q1, q2
outputs: px, py
c1 = cos(q1)
s1 = sin(q1)
c12 = cos(q1 + q2)
s12 = sin(q1 + q2)
px = 1.2*c1 + 0.8*c12
py = 1.2*s1 + 0.8*s12
"""

TRACE_PIECEWISE = """inputs: x, y
outputs: f
r = sqrt(x**2 + y**2)
f = Piecewise((r**2, r < 1), (2*r - 1, True)) + Max(x, y)*exp(-r)
"""

TRACE_CYCLE = """inputs: x
outputs: y
a = b + x
b = a*2
y = a*b
"""

TRACE_HUGE_NUMBER = """inputs: x
outputs: y
y = 1e400*x
"""

TRACE_OVERFLOW = """inputs: x
outputs: y
y = exp(1000*x)
"""

JSON_VALID = {
    "format": "dgraph/1",
    "inputs": ["x0", "x1"],
    "outputs": ["y0", "y1"],
    "vertices": [
        {"id": "v", "expr": "x0*x1"},
        {"id": "w", "expr": "sin(v)"},
        {"id": "y0", "expr": "w + x0"},
        {"id": "y1", "expr": "v*w"},
    ],
    "edges": [
        {"source": "x0", "target": "v", "label": "x1"},
        {"source": "x1", "target": "v", "label": "x0"},
        {"source": "v", "target": "w", "label": "cos(v)"},
        {"source": "w", "target": "y0", "label": "1"},
        {"source": "x0", "target": "y0", "label": "1"},
        {"source": "v", "target": "y1", "label": "w"},
        {"source": "w", "target": "y1", "label": "v"},
    ],
}
JSON_CYCLE = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [{"id": "a", "expr": "x + b"}, {"id": "b", "expr": "a"}, {"id": "y", "expr": "b"}],
    "edges": [
        {"source": "x", "target": "a"},
        {"source": "b", "target": "a"},
        {"source": "a", "target": "b"},
        {"source": "b", "target": "y"},
    ],
}
JSON_MISSING = {"format": "dgraph/1", "inputs": ["x"], "edges": [{"source": "x", "target": "y"}]}
JSON_TYPES = {
    "format": "dgraph/1",
    "inputs": "x",
    "outputs": ["y"],
    "edges": [{"source": "x", "target": "y", "label": 2}],
}
JSON_EDGE_TYPES = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "edges": [{"source": ["x"], "target": 7}],
}
JSON_NAN_POINT = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [{"id": "y", "expr": "sin(x)"}],
    "edges": [{"source": "x", "target": "y", "label": "cos(x)"}],
    "point": {"x": float("nan")},
}
JSON_INF = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [{"id": "y", "expr": "Infinity*x"}],
    "edges": [{"source": "x", "target": "y"}],
}
JSON_HUGE = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [{"id": "y", "expr": "1" + "0" * 400 + "*x"}],
    "edges": [{"source": "x", "target": "y"}],
}
JSON_TENSOR = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [
        {"id": "x", "shape": [3]},
        {"id": "s", "shape": [3], "op": {"primitive": "sin", "operands": ["x"]}},
        {"id": "y", "shape": [3], "op": {"primitive": "mul", "operands": ["s", "x"]}},
    ],
    "edges": [
        {"source": "x", "target": "s", "block": "diagonal"},
        {"source": "s", "target": "y", "block": "diagonal"},
        {"source": "x", "target": "y", "block": "diagonal"},
    ],
}


# ---------------------------------------------------------------- references (NumPy)


def _ref_energy(x):
    q, p = x
    return np.array([0.5 * p * p / 1.5**2 + 9.81 * 1.5 * (1 - np.cos(q))])


def _ref_residual(x):
    a, b = x
    return np.array([np.sin(a) * b - a * a, a * np.exp(-b)])


def _ref_defaults3(x):
    a, b, s = x
    return np.array([s * np.sin(a) * b, a / b])


def _ref_defaults2(x):
    return _ref_defaults3([x[0], x[1], 2.0])


def _ref_kwonly(x):
    a, b = x
    return np.array([math.exp(-0.5 * a) * b + a * b])


def _ref_total(x):
    return np.array([np.sum(np.sin(x))])


def _ref_rosen(x):
    return np.array([np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)])


def _ref_jitted(x):
    return np.tanh(x) * np.sum(x**2)


def _ref_power_sum(x):
    return np.array([np.sum(x**3) + np.prod(np.cos(x))])


def _ref_vectorized(x):
    a, b = x
    return np.array([np.sin(a) * b + a])


def _ref_decorated(x):
    a, b = x
    return np.array([np.log(a) * b, np.hypot(a, b)])


def _ref_main(x):
    a, b = x
    return np.array([np.arctan2(b, a), a * a * b])


def _ref_constants(x):
    m = [1.0, 2.0, 0.5]
    return np.array([sum(m[i] * 1.5 * (x[i] - x[i - 1]) ** 2 for i in range(3)) + math.pi * x[0]])


def _softplus(v):
    return np.log1p(np.exp(v))


def _ref_sibling(x):
    a, b = x
    return np.array([1.7 * _softplus(a) * b, _softplus(a - b)])


def _ref_star(x):
    a, b = x
    return np.array([np.sin(a) * np.exp(b), np.sqrt(a * b)])


def _ref_callable(x):
    a, b = x
    return np.array([2.5 * np.sin(a) * b, np.cos(b)])


def _ref_lambda(x):
    a, b = x
    return np.array([a * np.exp(b), b / a])


def _ref_latin1(x):
    return np.array([x[0] * np.sin(x[1])])


def _ref_prints(x):
    a, b = x
    return np.array([np.sin(a) * b, a + b])


def _ref_sympy(x):
    a, b = x
    r = np.hypot(a, b)
    return np.array([r, np.arctan2(b, a) * r])


def _ref_lagrangian(x):
    q, qd = x
    return np.array([0.5 * qd * qd - (1 - np.cos(q))])


def _ref_rhs(u):
    lap = np.zeros_like(u)
    lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
    return lap + u * (1 - u)


def _ref_hundred(x):
    names = list(x)
    for _ in range(25):
        u, v, w = names[-1], names[-2], names[-3]
        names.append(np.sin(u) * v + w / (1 + u * u))
    return np.array([names[-1], names[-2] * names[-4]])


def _ref_huge(x):
    t, y = x
    for k in range(10_000):
        t = t * 0.9999 + float(f"{1e-4 * (k % 7):.4f}") * y
    return np.array([t, t * y])


def _ref_arm(x):
    q1, q2 = x
    return np.array(
        [1.2 * np.cos(q1) + 0.8 * np.cos(q1 + q2), 1.2 * np.sin(q1) + 0.8 * np.sin(q1 + q2)]
    )


def _ref_piecewise(x):
    a, b = x
    r = np.hypot(a, b)
    return np.array([(r * r if r < 1 else 2 * r - 1) + max(a, b) * np.exp(-r)])


def _ref_json(x):
    v = x[0] * x[1]
    w = np.sin(v)
    return np.array([w + x[0], v * w])


def _ref_tensor(x):
    return np.sin(x) * x


# ---------------------------------------------------------------- the survey's table


@dataclass
class File:
    """One user file and what to run on it."""

    name: str
    text: str | bytes | dict
    suffix: str
    function: str | None = None  # file.py:function
    args: tuple[str, ...] = ()  # --inputs ...
    ref: object = None  # flat x -> flat y (None: a file that must be refused)
    inputs: tuple[str, ...] = ()  # the generated module's INPUTS, expected
    n: int = 2  # input entries
    scalar: bool = False  # one output: --mode hessian applies
    commands: tuple[str, ...] | None = None  # None: every command
    sibling: dict = field(default_factory=dict)  # other files beside it
    point: tuple[float, ...] | None = None  # where to check (default random in (0.5, 1.5))


BAD = ("structure", "codegen-py", "render-svg")

FILES = [
    File("several_residual", SEVERAL, ".py", "residual", (), _ref_residual, ("a", "b")),
    File("several_energy", SEVERAL, ".py", "energy", (), _ref_energy, ("q", "p"), scalar=True),
    File("several_plot", SEVERAL, ".py", "plot", commands=BAD),
    File("several_missing", SEVERAL, ".py", "kinetic", commands=BAD),
    File("several_nofunction", SEVERAL, ".py", "", commands=BAD),
    File("defaults", DEFAULTS, ".py", "f", (), _ref_defaults3, ("x", "y", "scale"), 3),
    File("defaults_inputs", DEFAULTS, ".py", "f", ("--inputs", "x,y"), _ref_defaults2, ("x", "y")),
    File("kwonly", KWONLY, ".py", "f", (), _ref_kwonly, ("x", "y"), scalar=True),
    File("varargs", VARARGS, ".py", "total", (), _ref_total, n=3, commands=BAD),
    File(
        "annotated",
        ANNOTATED,
        ".py",
        "rosen_plain",
        ("--inputs", "x:3"),
        _ref_rosen,
        ("x0", "x1", "x2"),
        3,
        True,
    ),
    File(
        "annotated_float",
        ANNOTATED,
        ".py",
        "rosen",
        ("--inputs", "x:3"),
        _ref_rosen,
        ("x0", "x1", "x2"),
        3,
        True,
    ),
    File("jitted", JITTED, ".py", "f", ("--inputs", "x:3"), _ref_jitted, ("x0", "x1", "x2"), 3),
    File(
        "partial_jit",
        PARTIAL_JIT,
        ".py",
        "power_sum",
        ("--inputs", "x:3"),
        _ref_power_sum,
        ("x0", "x1", "x2"),
        3,
        True,
    ),
    File("vectorized", VECTORIZED, ".py", "f", (), _ref_vectorized, ("x", "y"), scalar=True),
    File("own_decorator", OWN_DECORATOR, ".py", "f", (), _ref_decorated, ("x", "y")),
    File("main_block", MAIN_BLOCK, ".py", "f", (), _ref_main, ("x", "y")),
    File(
        "constants",
        CONSTANTS,
        ".py",
        "energy",
        ("--inputs", "q:3"),
        _ref_constants,
        ("q0", "q1", "q2"),
        3,
        True,
    ),
    File(
        "sibling_import",
        SIBLING,
        ".py",
        "f",
        (),
        _ref_sibling,
        ("x", "y"),
        sibling={"helpers.py": HELPERS},
    ),
    File("relative_import", RELATIVE, ".py", "f", commands=BAD, sibling={"helpers.py": HELPERS}),
    File("star_import", STAR, ".py", "f", (), _ref_star, ("x", "y")),
    File("callable_object", CALLABLE, ".py", "model", (), _ref_callable, ("x", "y")),
    File("lambda", LAMBDA, ".py", "f", (), _ref_lambda, ("x", "y")),
    File("syntax_error", SYNTAX_ERROR, ".py", "f", commands=BAD),
    File("empty", "", ".py", "f", commands=BAD),
    File("no_function", NO_FUNCTION, ".py", "X", commands=BAD),
    File("raises", RAISES, ".py", "f", commands=BAD),
    File("latin1", LATIN1.encode("latin-1"), ".py", "f", (), _ref_latin1, ("x", "y"), scalar=True),
    File("prints", PRINTS, ".py", "f", (), _ref_prints, ("x", "y")),
    File("sympy_f", SYMPY, ".py", "f", (), _ref_sympy, ("x", "y")),
    File(
        "sympy_lagrangian",
        SYMPY,
        ".py",
        "lagrangian",
        (),
        _ref_lagrangian,
        ("q", "qd"),
        scalar=True,
    ),
    File(
        "vector_rhs",
        VECTOR,
        ".py",
        "rhs",
        ("--inputs", "u:5"),
        _ref_rhs,
        tuple(f"u{i}" for i in range(5)),
        5,
    ),
    File("hundred_ops", hundred_ops(), ".py", "f", (), _ref_hundred, ("a", "b", "c", "d"), 4),
    File(
        "huge",
        huge(),
        ".py",
        "f",
        (),
        _ref_huge,
        ("x", "y"),
        commands=("structure", "accumulate", "codegen-py", "codegen-c"),
    ),
    File("arm_trace", TRACE, ".trace", None, (), _ref_arm, ("q1", "q2")),
    File(
        "piecewise_trace",
        TRACE_PIECEWISE,
        ".trace",
        None,
        (),
        _ref_piecewise,
        ("x", "y"),
        scalar=True,
    ),
    File("cycle_trace", TRACE_CYCLE, ".trace", commands=BAD),
    File("huge_number_trace", TRACE_HUGE_NUMBER, ".trace", commands=BAD),
    File(
        "overflow_trace",  # a good file: exp overflows past x = 0.71 only
        TRACE_OVERFLOW,
        ".trace",
        None,
        (),
        lambda x: np.exp(1000 * x),
        ("x",),
        1,
        commands=BAD,
        point=(0.3,),
    ),
    File("valid_json", JSON_VALID, ".json", None, (), _ref_json, ("x0", "x1")),
    File("cycle_json", JSON_CYCLE, ".json", commands=BAD),
    File("missing_json", JSON_MISSING, ".json", commands=BAD),
    File("types_json", JSON_TYPES, ".json", commands=BAD),
    File("edge_types_json", JSON_EDGE_TYPES, ".json", commands=BAD),
    File("nan_point_json", JSON_NAN_POINT, ".json", commands=BAD),
    File("inf_json", JSON_INF, ".json", commands=BAD),
    File("huge_json", JSON_HUGE, ".json", commands=BAD),
    File("tensor_json", JSON_TENSOR, ".json", None, (), _ref_tensor, ("x",), 3),
]

# command id -> (argv after the graph, output file or None)
COMMANDS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "structure": (("structure", "--json"), None),
    "accumulate": (("accumulate", "-m", "markowitz", "--json"), None),
    "best": (("accumulate", "-m", "best", "--json"), None),
    "compare": (("compare", "-q", "--json"), None),
    "faces": (("faces", "--json"), None),
    "codegen-py": (("codegen",), "j.py"),
    "codegen-sparse": (("codegen", "--sparse"), "s.py"),
    "codegen-jvp": (("codegen", "--mode", "jvp"), "jvp.py"),
    "codegen-vjp": (("codegen", "--mode", "vjp"), "vjp.py"),
    "codegen-vaj": (("codegen", "--mode", "value_and_jacobian"), "vaj.py"),
    "codegen-c": (("codegen",), "j.c"),
    "codegen-jax": (("codegen", "--lang", "jax"), "jj.py"),
    "codegen-cuda": (("codegen",), "j.cu"),
    "hessian-py": (("codegen", "--mode", "hessian"), "h.py"),
    "hessian-weights": (("codegen", "--mode", "hessian", "--weights", "WEIGHTS"), "hw.py"),
    "render-svg": (("render",), "g.svg"),
    "render-tex": (("render", "--view", "levels", "--highlight", "chains"), "g.tex"),
    "render-dot": (("render", "--view", "line"), "g.dot"),
    "render-steps": (("render", "--steps", "-m", "markowitz"), "steps.html"),
    "inverse": (("inverse", "--vector", "VECTOR", "--json"), None),
    "chain": (("chain", "--json"), None),
}
WEIGHTS = (0.7, -1.3, 0.4, 1.1, -0.6, 0.9)


def _write(directory: Path, f: File) -> Path:
    path = directory / f"{f.name}{f.suffix}"
    if isinstance(f.text, dict):
        path.write_text(json.dumps(f.text, indent=1))
    elif isinstance(f.text, bytes):
        path.write_bytes(f.text)
    else:
        path.write_text(f.text)
    for name, text in f.sibling.items():
        (directory / name).write_text(text)
    return path


#: the commands of a default run (``--all``: every one of COMMANDS; a run of every file
#: and command takes over an hour on this shared 2-core machine)
DEFAULT = frozenset(
    {
        "structure",
        "accumulate",
        "compare",
        "codegen-py",
        "codegen-sparse",
        "codegen-vjp",
        "codegen-c",
        "codegen-jax",
        "render-svg",
        "render-steps",
        "inverse",
        "hessian-py",
        "hessian-weights",
    }
)


#: ``--light``: fewer commands for a loaded machine (no compare, sparse, svg)
LIGHT = DEFAULT - {"compare", "codegen-sparse", "render-svg"}


def _commands(f: File, m: int, every: bool = False, light: bool = False) -> list[str]:
    if f.commands is not None:
        return list(f.commands)
    chosen = LIGHT if light else DEFAULT
    names = [c for c in COMMANDS if not c.startswith("hessian") and (every or c in chosen)]
    if f.scalar:
        names.append("hessian-py")
    elif f.suffix == ".py":
        names.append("hessian-weights")
    if (f.n != m or f.name == "tensor_json") and "inverse" in names:
        names.remove("inverse")
    if f.args and "chain" in names:
        names.remove("chain")  # chain --graph takes no --inputs
    return names


def _argv(f: File, path: Path, command: str, m: int) -> tuple[list[str], str | None]:
    argv, output = COMMANDS[command]
    spec = str(path) if f.function is None else f"{path}:{f.function}"
    chain = command == "chain"  # chain --graph GRAPH
    argv = [*argv, "--graph", spec] if chain else [argv[0], spec, *f.args, *argv[1:]]
    vector = ",".join(str(1.0 + 0.5 * k) for k in range(m))
    weights = ",".join(str(w) for w in WEIGHTS[:m])
    argv = [vector if a == "VECTOR" else weights if a == "WEIGHTS" else a for a in argv]
    return argv + (["-o", output] if output else []), output


def _run(argv: list[str], seed: int, cwd: Path) -> tuple[int, str, str, float]:
    env = dict(os.environ, PYTHONHASHSEED=str(seed), PYTHONPATH=SOURCE)
    timing = cwd / ".time"
    try:
        p = subprocess.run(
            [
                "/usr/bin/time",
                "-f",
                "%U %S",
                "-o",
                str(timing),
                sys.executable,
                "-m",
                "dgraph",
                *argv,
            ],
            capture_output=True,
            text=True,
            timeout=LIMIT,
            env=env,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        return -1, "", "", float(LIMIT)
    text = timing.read_text().split() if timing.exists() else []
    timing.unlink(missing_ok=True)
    cpu = float(text[-2]) + float(text[-1]) if len(text) >= 2 else float("nan")
    return p.returncode, p.stdout, p.stderr, cpu


def _strip(obj):
    """``--json`` without measured seconds."""
    if isinstance(obj, dict):
        return {
            k: _strip(v)
            for k, v in obj.items()
            if "seconds" not in k and k not in ("budget_note", "cut_by_time")
        }
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _output_bytes(cwd: Path) -> bytes:
    """Every file a run left in ``cwd`` (names and bytes), then removed."""
    blob = b""
    for p in sorted(cwd.rglob("*")):
        if p.is_file():
            blob += p.name.encode() + b"\0" + p.read_bytes()
    return blob


# ---------------------------------------------------------------- value checks


def _jac_ref(ref, x, h=1e-6):
    y = np.atleast_1d(ref(x))
    J = np.zeros((y.size, x.size))
    for j in range(x.size):
        s = h * max(1.0, abs(x[j]))
        e = np.zeros_like(x)
        e[j] = s
        J[:, j] = (np.atleast_1d(ref(x + e)) - np.atleast_1d(ref(x - e))) / (2 * s)
    return J


def _hess_ref(ref, x, w=None, h=1e-4):
    def scalar(z):
        y = np.atleast_1d(ref(z))
        return float(y @ (w[: y.size] if w is not None else np.ones(1)))

    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei = np.zeros(n)
            ej = np.zeros(n)
            ei[i] = h
            ej[j] = h
            H[i, j] = (
                scalar(x + ei + ej)
                - scalar(x + ei - ej)
                - scalar(x - ei + ej)
                + scalar(x - ei - ej)
            ) / (4 * h * h)
    return H


def _close(a, b, tol) -> bool:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * (1 + np.abs(b))))


def _import(path: Path):
    spec = importlib.util.spec_from_file_location(f"survey_{path.stem}_{os.getpid()}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _jax():
    import jax

    jax.config.update("jax_enable_x64", True)
    return jax


def _values(f: File, command: str, cwd: Path, output: str) -> str:
    """'' when the generated file's values agree with the reference, else why not."""
    rng = np.random.default_rng(len(f.name) * 7919)
    x = np.array(f.point) if f.point else rng.uniform(0.5, 1.5, f.n)
    path = cwd / output
    if command == "codegen-c":
        from dgraph.codegen import load_c

        module = load_c(path)
    elif command == "codegen-cuda":
        from dgraph.codegen import load_cuda_host

        host = load_cuda_host(path)
        J = host.jacobian(x[None, :])[0]
        return "" if _close(J, _jac_ref(f.ref, x), 1e-6) else f"J off by {_off(J, f, x)}"
    else:
        if command == "codegen-jax":
            _jax()
        module = _import(path)
    J_ref = _jac_ref(f.ref, x)
    if command.startswith("hessian"):
        w = np.array(WEIGHTS[: J_ref.shape[0]]) if command == "hessian-weights" else None
        H = _matrix(module, "hessian", x, () if w is None else (w,))
        return "" if _close(H, _hess_ref(f.ref, x, w), 1e-5) else "H off"
    names = tuple(getattr(module, "INPUTS", f.inputs))
    if f.inputs and names != f.inputs and not hasattr(module, "SHAPES"):
        return f"INPUTS {names} (expected {f.inputs})"
    if hasattr(module, "SHAPES") and command == "codegen-vjp":  # arrays in, arrays out
        w = rng.normal(size=J_ref.shape[0])
        return "" if _close(_tensor_vjp(module, x, w), w @ J_ref, 1e-6) else "vᵀJ off"
    if hasattr(module, "SHAPES"):  # a tensor graph's module: jax.jacobian's blocks
        J = _matrix(module, "jacobian", x, ())
        return "" if _close(J, J_ref, 1e-6) else f"J off by {_off(J, f, x)}"
    if command == "codegen-jvp":
        v = rng.normal(size=f.n)
        return "" if _close(module.jvp(x, v), J_ref @ v, 1e-6) else "J·v off"
    if command == "codegen-vjp":
        w = rng.normal(size=J_ref.shape[0])
        return "" if _close(module.vjp(x, w), w @ J_ref, 1e-6) else "vᵀJ off"
    if command == "codegen-vaj":
        y, J = module.value_and_jacobian(x)
        ok = _close(np.ravel(y), np.atleast_1d(f.ref(x)), 1e-9) and _close(J, J_ref, 1e-6)
        return "" if ok else "value or J off"
    J = np.asarray(module.jacobian(x))
    if not _close(J, J_ref, 1e-6):
        return f"J off by {np.max(np.abs(J - J_ref)) if J.shape == J_ref.shape else J.shape}"
    if hasattr(module, "primal") and not _close(
        np.ravel(module.primal(x)), np.atleast_1d(f.ref(x)), 1e-9
    ):
        return "primal off"
    if command == "codegen-sparse":
        values = np.asarray(module.jacobian_values(x))
        dense = np.zeros_like(J_ref)
        dense[module.JACOBIAN_ROWS, module.JACOBIAN_COLS] = values
        if not _close(dense, J_ref, 1e-6):
            return "sparse values off"
    return ""


def _matrix(module, name: str, x: np.ndarray, extra: tuple) -> np.ndarray:
    """``module.name`` at the flat ``x`` as one matrix: a tensor graph's module takes one
    argument per input (``SHAPES``) and returns jax.jacobian's blocks (one output and one
    input: the block; one output: a tuple over the inputs; one input: a tuple over the
    outputs; else a tuple over the outputs of tuples over the inputs)."""
    if not hasattr(module, "SHAPES"):
        return np.asarray(getattr(module, name)(x, *extra))
    shapes = [tuple(module.SHAPES[k]) for k in module.INPUTS]
    sizes = [math.prod(s) for s in shapes]
    starts = np.cumsum([0, *sizes])
    parts = [x[a:b].reshape(s) for a, b, s in zip(starts, starts[1:], shapes, strict=False)]
    result = getattr(module, name)(*parts, *extra)
    outputs, inputs = len(module.OUTPUTS), len(module.INPUTS)
    if outputs == 1 and inputs == 1:
        grid = [[result]]
    elif outputs == 1:
        grid = [list(result)]
    elif inputs == 1:
        grid = [[r] for r in result]
    else:
        grid = [list(r) for r in result]
    out_sizes = [math.prod(module.SHAPES[k]) for k in module.OUTPUTS]
    return np.block(
        [
            [np.reshape(np.asarray(b), (out_sizes[i], sizes[j])) for j, b in enumerate(row)]
            for i, row in enumerate(grid)
        ]
    )


def _split(module, names, flat: np.ndarray) -> list[np.ndarray]:
    """``flat`` cut into the arrays ``names`` (their ``SHAPES``)."""
    shapes = [tuple(module.SHAPES[k]) for k in names]
    starts = np.cumsum([0, *(math.prod(s) for s in shapes)])
    return [flat[a:b].reshape(s) for a, b, s in zip(starts, starts[1:], shapes, strict=False)]


def _tensor_vjp(module, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A tensor module's ``vjp(*inputs, *cotangents)`` as one flat vector."""
    xs, ws = _split(module, module.INPUTS, x), _split(module, module.OUTPUTS, w)
    out = module.vjp(*xs, *ws)
    parts = [out] if len(module.INPUTS) == 1 else list(out)
    return np.concatenate([np.ravel(np.asarray(p)) for p in parts])


def _off(J, f, x) -> str:
    J_ref = _jac_ref(f.ref, x)
    return str(np.max(np.abs(J - J_ref))) if J.shape == J_ref.shape else str(J.shape)


# ---------------------------------------------------------------- one cell


def cell(f: File, path: Path, command: str, m: int, work: Path) -> tuple[str, str, float]:
    """(verdict, detail, CPU seconds of both runs)."""
    argv, output = _argv(f, path, command, m)
    results = []
    total = 0.0
    for seed in (1, 2):
        cwd = work / f"{f.name}-{command}-{seed}"
        cwd.mkdir(parents=True)
        code, out, err, cpu = _run(argv, seed, cwd)
        total += cpu
        if code == -1:
            return "HANG", f"over {LIMIT} s of wall time", total
        lines = err.strip().splitlines()
        left = sorted(p.name for p in cwd.rglob("*") if p.is_file())
        if code != 0:
            if left:
                return "WRONG", f"exit {code} and a partial file left: {left}", total
            if code == 2 and len(lines) == 1 and lines[0].startswith("dgraph: error:"):
                return "refused", lines[0], total
            return "ERROR", f"exit {code}: " + " | ".join(lines[-3:])[:400], total
        if f.ref is None:
            return "WRONG", "accepted a file that must be refused: " + out[:200], total
        if output is None:
            try:
                results.append(json.dumps(_strip(json.loads(out)), sort_keys=True))
            except json.JSONDecodeError:
                return "ERROR", f"stdout is not one JSON object: {out[:120]!r}", total
        else:
            if output not in left:
                return "ERROR", f"no {output} written (files: {left})", total
            if seed == 1 and command.startswith(("codegen", "hessian")):
                try:
                    why = _values(f, command, cwd, output)
                except Exception as exc:  # the survey's own check failing is a finding
                    why = f"{type(exc).__name__}: {exc}"[:300]
                if why:
                    return "WRONG", why, total
            results.append(_output_bytes(cwd))
        shutil.rmtree(cwd)
    if results[0] != results[1]:
        return "NONDET", "other bytes under PYTHONHASHSEED 1 and 2", total
    return "ok", "", total


def _outputs(f: File) -> int:
    if f.ref is None:
        return 1
    x = np.array(f.point) if f.point else np.full(f.n, 0.9)
    return int(np.atleast_1d(f.ref(x)).size)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    jobs = int(next((a.split("=")[1] for a in argv if a.startswith("--jobs=")), "2"))
    only = [a for a in argv if not a.startswith("--")]
    chosen = [f for f in FILES if not only or f.name in only or f"{f.name}:" in " ".join(only)]
    picked = {a.split(":")[0]: a.split(":")[1].split(",") for a in only if ":" in a}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = tmp / "files"
        files.mkdir()
        tasks = []
        for f in chosen:
            directory = files / f.name
            directory.mkdir()
            path = _write(directory, f)
            m = _outputs(f)
            for command in _commands(f, m, "--all" in argv, "--light" in argv):
                if f.name in picked and command not in picked[f.name]:
                    continue
                tasks.append((f, path, command, m))
        counts: dict[str, int] = {}
        slow = []
        with ThreadPoolExecutor(jobs) as pool:
            futures = [
                (f, command, pool.submit(cell, f, path, command, m, tmp / "work"))
                for f, path, command, m in tasks
            ]
            for f, command, future in futures:
                verdict, detail, cpu = future.result()
                counts[verdict] = counts.get(verdict, 0) + 1
                slow.append((cpu, f.name, command))
                print(f"{f.name:20} {command:16} {verdict:8} {cpu:6.1f} {detail}", flush=True)
    print("cells: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(
        "slowest (CPU-s of both runs): "
        + "; ".join(f"{n} {c} {s:.1f}" for s, n, c in sorted(slow)[-6:])
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
