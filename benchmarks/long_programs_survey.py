"""Long programs as users write them, every command, growth exponents (session 38).

Eleven program shapes, each generated at three sizes (the loop count or statement count
``n``; the number of operations grows linearly with it):

- ``cse``: straight-line code as sympy's ``cse`` + ``pycode`` emits it: temporaries
  ``x0 = ...; x1 = ...`` each used a few times, an output every 25 statements;
- ``euler`` / ``rk4``: an explicit Euler / RK4 integrator over scalars in a Python loop
  (a damped Lotka-Volterra system, state of 2 scalars and a rate);
- ``rk4_np``: RK4 on the Lorenz system with the state a NumPy vector of 3, returning
  ``0.5 u·u``;
- ``fem``: a 1-D nonlinear diffusion residual assembled element by element into a global
  vector (``r[e] -= flux``, ``r[e + 1] += flux``);
- ``mlp``: a pure-Python MLP over lists of floats (two hidden layers of width ``n``,
  loops over neurons), a scalar loss;
- ``sum``: ``s += w[i] * x[i] ** 2`` over a vector of ``n``;
- ``horner``: ``p = 1 + p * x / k``, k = n..1 (Taylor series of exp, degree n);
- ``product``: the product of ``n`` factors ``1 + 0.01 sin(k x[k % 8])``;
- ``tree``: a pairwise reduction tree ``sqrt(a*a + b*b)`` over ``n`` leaves;
- ``jax_fori``: the RK4 of ``rk4`` written with ``jax.lax.fori_loop``, and ``jax_scan``,
  a recurrent cell ``h = tanh(W h + c_t u)`` over ``n`` steps with ``jax.lax.scan``.

Each cell runs ``python -m dgraph COMMAND model.py:f`` in a child process: ``structure
--json``, ``accumulate --json`` (the default method), ``codegen -o j.py`` and, where the
output is a scalar, ``codegen --mode hessian -o h.py``, each on the default path (no
``--level``). Its CPU seconds (user + system of the child, from its rusage) are printed,
and the growth exponent ``log(t2/t1)/log(n2/n1)`` from the previous size. The generated
code is imported and checked at a random point against the user's function itself:
``J·v`` against a central difference (step 1e-6), ``uᵀHv`` against JAX's forward over
reverse where the program traces with ``math`` and ``np`` bound to ``jax.numpy`` (to
1e-9 of ``|u|ᵀ|H||v|``), else against a four-point difference extrapolated from steps
2e-4 and 1e-4, allowed what the extrapolation changed (session 39). Verdicts: ``ok``;
``WRONG`` (a value off); ``ERROR`` (an exit code that is not 0, or exit 2 with not one
line); ``refused`` (exit 2 with one line); ``HANG`` (over 120 s
of wall time); ``skip`` (the previous size already took over 60 CPU-s: predicted HANG).

    PYTHONPATH=. python benchmarks/long_programs_survey.py [SHAPE[:N,N,N] ...]
        [--commands structure,accumulate,codegen,hessian]

(``DGRAPH_SOURCE=DIR`` runs the commands with the dgraph in DIR, a checkout of another
commit, for a before/after table.)
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cli_files_survey import _matrix

warnings.filterwarnings("ignore")
ROOT = Path(__file__).resolve().parent.parent
SOURCE = os.environ.get("DGRAPH_SOURCE", str(ROOT))
LIMIT = 120  # wall seconds: past it, HANG
SKIP_AFTER = 60.0  # CPU seconds at one size: the next size is not run

# ---------------------------------------------------------------- the program shapes


def cse(n: int) -> str:
    """``n`` temporaries as sympy's cse emits them, an output every 25."""
    rng = np.random.default_rng(n)
    lines = ["import math", "", "", "def f(a, b, c, d, e, g):"]
    names = ["a", "b", "c", "d", "e", "g"]
    outputs = []
    for k in range(n):
        back = rng.choice(min(len(names), 12), 2, replace=False)
        i, j = names[-1 - int(back[0])], names[-1 - int(back[1])]
        op = k % 6
        if op == 0:
            rhs = f"{i}*{j}"
        elif op == 1:
            rhs = f"{i} + {rng.uniform(0.5, 1.5):.3f}*{j}"
        elif op == 2:
            rhs = f"math.sin({i})"
        elif op == 3:
            rhs = f"{i} - {j}"
        elif op == 4:
            rhs = f"math.exp(-0.1*{i}**2)"
        else:
            rhs = f"{i}/(1 + {j}**2)"
        lines.append(f"    x{k} = {rhs}")
        names.append(f"x{k}")
        if k % 25 == 24:
            outputs.append(f"x{k}")
    lines.append(f"    return {', '.join(outputs)}")
    return "\n".join(lines) + "\n"


def euler(n: int) -> str:
    return f"""
def f(p, q, k):
    h = 0.001
    for _ in range({n}):
        dp = k * p - 0.5 * p * q
        dq = 0.3 * p * q - q
        p = p + h * dp
        q = q + h * dq
    return p, q
"""


def rk4(n: int) -> str:
    return f"""
def rhs(p, q, k):
    return k * p - 0.5 * p * q, 0.3 * p * q - q


def f(p, q, k):
    h = 0.01
    for _ in range({n}):
        a1, b1 = rhs(p, q, k)
        a2, b2 = rhs(p + 0.5 * h * a1, q + 0.5 * h * b1, k)
        a3, b3 = rhs(p + 0.5 * h * a2, q + 0.5 * h * b2, k)
        a4, b4 = rhs(p + h * a3, q + h * b3, k)
        p = p + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
        q = q + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
    return p, q
"""


def rk4_np(n: int) -> str:
    return f"""import numpy as np


def lorenz(u):
    return np.array([10.0 * (u[1] - u[0]), u[0] * (28.0 - u[2]) - u[1], u[0] * u[1] - 2.5 * u[2]])


def f(u):
    h = 0.001
    for _ in range({n}):
        k1 = lorenz(u)
        k2 = lorenz(u + 0.5 * h * k1)
        k3 = lorenz(u + 0.5 * h * k2)
        k4 = lorenz(u + h * k3)
        u = u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return 0.5 * (u @ u)
"""


def fem(n: int) -> str:
    return f"""import math

import numpy as np


def f(u):
    n = {n}
    h = 1.0 / n
    r = np.zeros(n + 1)
    for e in range(n):
        k = (u[e + 1] - u[e]) / h
        m = 0.5 * (u[e] + u[e + 1])
        flux = (1.0 + m * m) * k
        r[e] -= flux
        r[e + 1] += flux
        r[e] += 0.5 * h * math.sin(u[e])
        r[e + 1] += 0.5 * h * math.sin(u[e + 1])
    return r
"""


def mlp(n: int) -> str:
    return f"""import math
import random

_R = random.Random(0)
W1 = [[_R.uniform(-1, 1) for _ in range(4)] for _ in range({n})]
W2 = [[_R.uniform(-1, 1) / {n} for _ in range({n})] for _ in range({n})]
W3 = [_R.uniform(-1, 1) for _ in range({n})]


def layer(W, x):
    out = []
    for row in W:
        s = 0.0
        for w, v in zip(row, x):
            s += w * v
        out.append(math.tanh(s))
    return out


def f(x):
    h = layer(W1, [x[0], x[1], x[2], x[3]])
    h = layer(W2, h)
    y = 0.0
    for w, v in zip(W3, h):
        y += w * v
    return (y - 0.5) ** 2
"""


def sum_terms(n: int) -> str:
    return f"""import numpy as np

W = np.linspace(0.5, 1.5, {n})


def f(x):
    s = 0.0
    for i in range({n}):
        s += W[i] * x[i] ** 2
    return s
"""


def horner(n: int) -> str:
    return f"""
def f(x):
    p = 1.0
    for k in range({n}, 0, -1):
        p = 1.0 + p * x / k
    return p
"""


def product(n: int) -> str:
    return f"""import math


def f(x):
    p = 1.0
    for k in range({n}):
        p = p * (1.0 + 0.01 * math.sin(k * x[k % 8]))
    return p
"""


def tree(n: int) -> str:
    return f"""import math


def f(x):
    terms = [x[i % 8] * (1.0 + 0.001 * i) for i in range({n})]
    while len(terms) > 1:
        pairs = [math.sqrt(a * a + b * b) for a, b in zip(terms[::2], terms[1::2])]
        terms = pairs + terms[len(pairs) * 2 :]
    return terms[0]
"""


def jax_fori(n: int) -> str:
    return f"""import jax
import jax.numpy as jnp


def rhs(u, k):
    p, q = u[0], u[1]
    return jnp.stack([k * p - 0.5 * p * q, 0.3 * p * q - q])


def f(u):
    h = 0.01

    def step(_, u):
        a1 = rhs(u, 1.1)
        a2 = rhs(u + 0.5 * h * a1, 1.1)
        a3 = rhs(u + 0.5 * h * a2, 1.1)
        a4 = rhs(u + h * a3, 1.1)
        return u + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)

    u = jax.lax.fori_loop(0, {n}, step, u)
    return jnp.sum(u * u)
"""


def jax_scan(n: int) -> str:
    return f"""import jax
import jax.numpy as jnp
import numpy as np

W = np.array([[0.5, -0.3, 0.2], [0.1, 0.4, -0.2], [-0.3, 0.2, 0.6]])
C = np.sin(np.arange({n}) * 0.1)


def f(u):
    def cell(h, c):
        h = jnp.tanh(W @ h + c * u)
        return h, jnp.sum(h)

    h, ys = jax.lax.scan(cell, jnp.zeros(3), C)
    return jnp.sum(h * h) + 0.01 * jnp.sum(ys)
"""


@dataclass
class Shape:
    """One program shape: its source at size n, its inputs, its sizes."""

    name: str
    source: object  # n -> module text
    sizes: tuple[int, ...]
    inputs: tuple[str, ...] = ()  # --inputs (none: every parameter a scalar)
    entries: object = None  # n -> number of input entries
    scalar: bool = False  # one output: --mode hessian
    jax: bool = False


SHAPES = [
    Shape("cse", cse, (500, 2000, 8000), entries=lambda n: 6),
    Shape("euler", euler, (100, 400, 1600), entries=lambda n: 3),
    Shape("rk4", rk4, (25, 100, 400), entries=lambda n: 3),
    Shape("rk4_np", rk4_np, (10, 40, 160), ("u:3",), lambda n: 3, True),
    Shape("fem", fem, (100, 400, 1600), ("u:{n1}",), lambda n: n + 1),
    Shape("mlp", mlp, (10, 20, 40), ("x:4",), lambda n: 4, True),
    Shape("sum", sum_terms, (500, 2000, 8000), ("x:{n}",), lambda n: n, True),
    Shape("horner", horner, (500, 2000, 8000), (), lambda n: 1, True),
    Shape("product", product, (250, 1000, 4000), ("x:8",), lambda n: 8, True),
    Shape("tree", tree, (250, 1000, 4000), ("x:8",), lambda n: 8, True),
    Shape("jax_fori", jax_fori, (25, 100, 400), ("u:2",), lambda n: 2, True, True),
    Shape("jax_scan", jax_scan, (100, 400, 1600), ("u:3",), lambda n: 3, True, True),
]

COMMANDS = {
    "structure": (["structure"], ["--json"], None),
    "accumulate": (["accumulate"], ["--json"], None),
    "codegen": (["codegen"], ["-o", "j.py"], "j.py"),
    "hessian": (["codegen"], ["--mode", "hessian", "-o", "h.py"], "h.py"),
}

# ---------------------------------------------------------------- running a cell


def _run(argv: list[str], cwd: Path) -> tuple[int, str, str, float]:
    """(exit code or -1 past LIMIT, stdout, stderr, CPU seconds of the child: user and
    system, from the rusage of the children waited for, one child at a time)."""
    env = dict(os.environ, PYTHONPATH=SOURCE, PYTHONHASHSEED="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "dgraph", *argv]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=LIMIT, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return -1, "", "", float("nan")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, p.stdout, p.stderr, cpu


def _import(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _sizes(shape: Shape, n: int) -> list[int]:
    """Each parameter's entries (0: a scalar)."""
    if not shape.inputs:
        return [0] * shape.entries(n)
    return [shape.entries(n) if ":" in a else 0 for a in shape.inputs]


def _user(shape: Shape, module, n: int):
    """The user's function as flat x -> flat y (NumPy floats)."""
    sizes = _sizes(shape, n)

    def call(x):
        args, at = [], 0
        for s in sizes:
            if s:
                args.append(np.array(x[at : at + s]))
                at += s
            else:
                args.append(float(x[at]))
                at += 1
        if shape.jax:
            import jax.numpy as jnp

            args = [jnp.asarray(a) for a in args]
        y = module.f(*args)
        parts = y if isinstance(y, tuple) else (y,)
        return np.concatenate([np.ravel(np.asarray(p, dtype=float)) for p in parts])

    return call


def _generated(module, name: str, x: np.ndarray, extra: tuple = ()) -> np.ndarray:
    """``module.name`` at the flat ``x`` as one matrix (a tensor module's blocks too, as
    benchmarks/cli_files_survey.py assembles them)."""
    if not hasattr(module, "SHAPES"):
        return np.atleast_2d(np.asarray(getattr(module, name)(x, *extra), dtype=float))
    return _matrix(module, name, x, extra)


def _check(shape: Shape, n: int, source: Path, output: Path, hessian: bool) -> str:
    """'' when the generated code agrees with central differences of the user's f."""
    if shape.jax:
        import jax

        jax.config.update("jax_enable_x64", True)
    user = _user(shape, _import(source, f"user_{shape.name}_{n}_{hessian}"), n)
    generated = _import(output, f"gen_{shape.name}_{n}_{hessian}")
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 1.5, sum(max(s, 1) for s in _sizes(shape, n)))
    v = rng.normal(size=x.size)
    if not hessian:
        J = _generated(generated, "jacobian", x)
        h = 1e-6
        ref = (user(x + h * v) - user(x - h * v)) / (2 * h)
        got = J @ v
        scale = np.abs(J) @ np.abs(v) + np.abs(ref)
        ok = got.shape == ref.shape and np.all(np.abs(got - ref) <= 1e-5 * (1 + scale))
        return "" if ok else f"J·v off by {np.max(np.abs(got - ref)):.3g}"
    H = _generated(generated, "hessian", x)
    w = rng.normal(size=x.size)
    got = float(w @ H @ v)
    scale = float(np.abs(w) @ np.abs(H) @ np.abs(v))
    ref, tolerance, by = _reference_uhv(shape, source, n, user, (x, w, v))
    ok = abs(got - ref) <= tolerance * (1 + scale)
    return "" if ok else f"uᵀHv {got:.6g} vs {ref:.6g} ({by})"


def _args(shape: Shape, n: int, z) -> list:
    """The flat input ``z`` (a JAX array) as the user's arguments."""
    args, at = [], 0
    for s in _sizes(shape, n):
        args.append(z[at : at + s] if s else z[at])
        at += max(s, 1)
    return args


def _jax_uhv(shape: Shape, source: Path, n: int, xwv: tuple) -> float:
    """``wᵀ H v`` of the user's function by JAX (forward over reverse). The module is
    imported again with its ``math`` and ``np`` bound to ``jax.numpy``, so that
    ``math.sin``, ``np.array`` and the like trace; raises where the program does not."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    module = _import(source, f"jaxed_{shape.name}_{n}")
    for name in ("math", "np"):
        if name in vars(module):
            setattr(module, name, jnp)

    def g(z):
        return jnp.ravel(jnp.asarray(module.f(*_args(shape, n, z))))[0]

    x, w, v = (jnp.asarray(a) for a in xwv)
    return float(jnp.dot(w, jax.jvp(jax.grad(g), (x,), (v,))[1]))


def _reference_uhv(shape: Shape, source: Path, n: int, user, xwv: tuple) -> tuple:
    """(``wᵀ H v`` of the user's function, the tolerance relative to ``|w|ᵀ|H||v|``, by
    what): by JAX where the program traces with ``jax.numpy`` (1e-9); else a four-point
    central difference Richardson-extrapolated from steps 2h and h, allowed 1e-4 or ten
    times the change the extrapolation made (the truncation error of factors
    ``sin(k x)`` with k in the hundreds is the difference's, not the generated code's)."""
    try:
        return _jax_uhv(shape, source, n, xwv), 1e-9, "jax"
    except Exception:  # the program does not trace: differences of the user's code
        pass
    x, w, v = xwv

    def g(z):
        return float(user(z)[0])

    def four(h: float) -> float:
        a = g(x + h * w + h * v) - g(x + h * w - h * v) - g(x - h * w + h * v)
        return (a + g(x - h * w - h * v)) / (4 * h * h)

    coarse, fine = four(2e-4), four(1e-4)
    ref = (4 * fine - coarse) / 3
    return ref, max(1e-4, 10 * abs(ref - fine) / (1 + abs(ref))), "differences"


def cell(shape: Shape, n: int, command: str, work: Path) -> tuple[str, float, str]:
    """(verdict, CPU seconds, detail)."""
    cwd = work / f"{shape.name}-{n}-{command}"
    cwd.mkdir(parents=True)
    source = cwd / "model.py"
    source.write_text(shape.source(n))
    before, after, output = COMMANDS[command]
    inputs = [a.format(n=n, n1=n + 1) for a in shape.inputs]
    argv = [*before, "model.py:f", *(["--inputs", ",".join(inputs)] if inputs else []), *after]
    code, out, err, cpu = _run(argv, cwd)
    lines = [x for x in err.strip().splitlines() if not x.startswith("dgraph: note:")]
    if code == -1:
        return "HANG", float("nan"), f"over {LIMIT} s of wall time"
    if code == 2 and len(lines) == 1:
        return "refused", cpu, lines[0][:200]
    if code == 1 and command == "accumulate" and not lines:  # exit 1: not verified
        try:
            detail = json.loads(out).get("verification_detail", "")
        except json.JSONDecodeError:
            detail = "stdout is not JSON"
        return "unverif", cpu, str(detail)[-160:]
    if code != 0:
        return "ERROR", cpu, f"exit {code}: " + (lines[-1] if lines else "")[:200]
    if output is None:
        return "ok", cpu, ""
    try:
        why = _check(shape, n, source, cwd / output, command == "hessian")
    except Exception as exc:  # the survey's check failing is a finding too
        why = f"check failed: {type(exc).__name__}: {exc}"[:200]
    return ("WRONG" if why else "ok"), cpu, why


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands = list(COMMANDS)
    for a in argv:
        if a.startswith("--commands="):
            commands = a.split("=", 1)[1].split(",")
    picked = {}
    for a in argv:
        if not a.startswith("--"):
            name, _, sizes = a.partition(":")
            picked[name] = tuple(int(s) for s in sizes.split(",")) if sizes else None
    shapes = [s for s in SHAPES if not picked or s.name in picked]
    print(f"{'program':9} {'command':10} {'n':>6} {'verdict':8} {'CPU-s':>7} {'exp':>5}  detail")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            sizes = picked.get(shape.name) or shape.sizes
            for command in commands:
                if command == "hessian" and not shape.scalar:
                    continue
                previous = None
                for n in sizes:
                    if previous and previous[1] > SKIP_AFTER:
                        verdict, cpu, detail = "skip", float("nan"), "previous size over 60 s"
                    else:
                        verdict, cpu, detail = cell(shape, n, command, Path(tmp))
                    slope = ""
                    if previous and previous[1] > 0 and cpu == cpu and verdict != "skip":
                        slope = f"{math.log(cpu / previous[1]) / math.log(n / previous[0]):.2f}"
                    print(
                        f"{shape.name:9} {command:10} {n:6d} {verdict:8} {cpu:7.2f} "
                        f"{slope:>5}  {detail}",
                        flush=True,
                    )
                    previous = (n, cpu if cpu == cpu else float("inf"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
