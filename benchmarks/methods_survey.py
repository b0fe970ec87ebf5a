"""A survey of the Jacobian methods and the command line on graphs not in the tests
(session 35): element-level graphs of small real programs (``benchmarks/real_programs.py``
through the JAX and NumPy tracers), sympy expression sets (a 3-D robot arm's forward
kinematics, a chemical kinetics right-hand side), hand-written evaluation traces and
dgraph/1 JSON graphs with edge cases (a vertex with no outputs, an output that is also an
input, repeated edges, a constant label 0, a unicode name).

Each row is one graph × one method or command; each cell ``ok`` / ``refused`` (one line)
/ ``WRONG`` / ``ERROR`` / ``HANG`` (over ``--limit`` seconds) / ``NONDET``. For every
method: the reported mults equal a recount of the returned expression set (one mult per
factor after the first of each product, a numeric factor free), the Jacobian at a point
matches ``jax.jacfwd`` (JAX graphs) or a reference written independently in NumPy
(central differences, step 1e-6, tolerance 1e-6 relative+absolute), ``verified`` is not
true without a check, no "optimal" result is beaten by a method of its class, and the
result is the same in a second run. Commands run twice as processes with different
``PYTHONHASHSEED`` and their ``--json`` (seconds dropped) and ``.tex``/``.dot`` output
must be the same bytes.

    python benchmarks/methods_survey.py [NAME ... chains] [--limit=SECONDS] [--no-cli]
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import warnings
from functools import partial
from pathlib import Path

import jax
import numpy as np
import sympy

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_programs as rp  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60
METHODS = (
    "forward",
    "reverse",
    "markowitz",
    "vertex-optimal",
    "edge-optimal",
    "face-optimal",
    "face-greedy",
    "zhou",
    "dstar",
    "umbrella",
    "layers",
    "best",
)
VERTEX_CLASS = ("forward", "reverse", "markowitz")

# ---------------------------------------------------------------- hand-written files

TRACE_SHARED = """\
inputs: x0, x1, x2
outputs: y0, y1
# a shared subexpression, a constant, a power
v1 = sin(x0*x1)
v2 = v1*x2 + 3
y0 = v1**2 + exp(v2)
y1 = log(1 + x2**2)*v1
"""

TRACE_LONG = """\
inputs: a, b
outputs: r
t1 = a*b
t2 = t1*t1
t3 = sqrt(t2 + 1)
t4 = t3*a - b
t5 = tanh(t4)
r = t5*t1 + t3
"""

# dgraph/1 JSON: the inputs' labels are functions of the inputs, so the reference is
# written directly (J = sum over paths of products of labels).
JSON_EDGES = {
    "format": "dgraph/1",
    "inputs": ["x0", "x1"],
    "outputs": ["y", "z"],
    "vertices": [
        {"id": "v1", "expr": "x0*x1"},
        {"id": "v2", "expr": "sin(v1)"},
        {"id": "y", "expr": "v2 + v1"},
        {"id": "z", "expr": "2*v2"},
    ],
    "edges": [
        {"source": "x0", "target": "v1", "label": "x1"},
        {"source": "x1", "target": "v1", "label": "x0"},
        {"source": "v1", "target": "v2", "label": "cos(v1)"},
        {"source": "v2", "target": "y", "label": "1"},
        {"source": "v1", "target": "y", "label": "1"},
        {"source": "v2", "target": "z", "label": "2"},
        {"source": "x0", "target": "z", "label": "0"},
    ],
}

JSON_UNICODE = {
    "format": "dgraph/1",
    "inputs": ["α", "β"],
    "outputs": ["γ"],
    "vertices": [
        {"id": "δ", "expr": "α*β"},
        {"id": "ε", "expr": "exp(δ)"},
        {"id": "dead", "expr": "δ**2"},
        {"id": "γ", "expr": "ε + δ"},
    ],
    "edges": [
        {"source": "α", "target": "δ", "label": "β"},
        {"source": "β", "target": "δ", "label": "α"},
        {"source": "δ", "target": "ε", "label": "exp(δ)"},
        {"source": "δ", "target": "dead", "label": "2*δ"},
        {"source": "ε", "target": "γ"},
        {"source": "δ", "target": "γ"},
    ],
}

# the unicode graph in ASCII: a vertex with no outputs (dead code, dropped with a note)
JSON_DEAD = json.loads(
    json.dumps(JSON_UNICODE, ensure_ascii=False).translate(
        str.maketrans({"α": "a", "β": "b", "γ": "g", "δ": "d", "ε": "e"})
    )
)

JSON_REPEATED = {
    "format": "dgraph/1",
    "inputs": ["x"],
    "outputs": ["y"],
    "vertices": [{"id": "u", "expr": "x**2"}, {"id": "y", "expr": "u*x"}],
    "edges": [
        {"source": "x", "target": "u", "label": "2*x"},
        {"source": "u", "target": "y", "label": "x"},
        {"source": "x", "target": "y", "label": "u"},
        {"source": "x", "target": "y", "label": "u"},
    ],
}

JSON_IN_OUT = {
    "format": "dgraph/1",
    "inputs": ["x", "w"],
    "outputs": ["w", "y"],
    "vertices": [{"id": "y", "expr": "x*w"}],
    "edges": [
        {"source": "x", "target": "y", "label": "w"},
        {"source": "w", "target": "y", "label": "x"},
    ],
}


def _ref_json_edges(x):
    v1 = x[0] * x[1]
    d1 = np.array([x[1], x[0]])
    c = np.cos(v1)
    return np.array([(c + 1) * d1, 2 * c * d1])


def _ref_unicode(x):
    d = x[0] * x[1]
    return np.array([(np.exp(d) + 1) * np.array([x[1], x[0]])])


def _ref_repeated(x):
    # u = x**2, y = u*x with the edge x->y given twice: Bauer's formula sums both
    return np.array([[2 * x[0] * x[0] + 2 * x[0] ** 2]])


# ---------------------------------------------------------------- sympy sets


def _robot3d():
    q = sympy.symbols("q0:4")
    lengths = (0.4, 0.3, 0.25, 0.1)
    x = y = z = sympy.Integer(0)
    yaw = q[0]
    pitch = sympy.Integer(0)
    for k in range(1, 4):
        pitch = pitch + q[k]
        x += lengths[k] * sympy.cos(pitch) * sympy.cos(yaw)
        y += lengths[k] * sympy.cos(pitch) * sympy.sin(yaw)
        z += lengths[k] * sympy.sin(pitch)
    return [x, y, z + lengths[0]], list(q)


def _kinetics():
    c = sympy.symbols("c0:5")
    k1, k2, k3, k4 = 0.04, 3e1, 1e2, 0.5
    r1 = k1 * c[0]
    r2 = k2 * c[1] ** 2
    r3 = k3 * c[1] * c[2]
    r4 = k4 * c[3] * sympy.exp(-1 / (c[4] + 2))
    return [-r1 + r3, r1 - r2 - r3, r2 - r4, r4 - r3 * c[3], r1 * c[4]], list(c)


def _sympy_case(builder):
    outs, ins = builder()
    f = sympy.lambdify(ins, outs, "numpy")
    return dgraph.from_sympy(outs, ins), ("fd", lambda x: np.array(f(*x), dtype=float))


# ---------------------------------------------------------------- the cases


def _jax_case(f, n):
    x = np.linspace(0.3, 0.9, n) + 0.05 * np.arange(n) ** 1.5
    g = dgraph.from_jax(f, x)
    return g, ("jax", f)


def _numpy_case(f, n):
    g = dgraph.from_function(f, sizes=[n])
    return g, ("fd", lambda x: np.atleast_1d(np.asarray(f(np.asarray(x)), dtype=float)))


def _trace_numpy_shared(x):
    v1 = np.sin(x[0] * x[1])
    v2 = v1 * x[2] + 3
    return np.array([v1**2 + np.exp(v2), np.log(1 + x[2] ** 2) * v1])


def _trace_numpy_long(x):
    a, b = x
    t1 = a * b
    t3 = np.sqrt(t1 * t1 + 1)
    return np.array([np.tanh(t3 * a - b) * t1 + t3])


def _files(tmp: Path) -> dict[str, tuple]:
    (tmp / "shared.trace").write_text(TRACE_SHARED)
    (tmp / "long.trace").write_text(TRACE_LONG)
    out = {
        "trace_shared": (tmp / "shared.trace", ("fd", _trace_numpy_shared)),
        "trace_long": (tmp / "long.trace", ("fd", _trace_numpy_long)),
    }
    for name, data, ref in (
        ("json_edges", JSON_EDGES, ("exact", _ref_json_edges)),
        ("json_unicode", JSON_UNICODE, ("exact", _ref_unicode)),
        ("json_dead", JSON_DEAD, ("exact", _ref_unicode)),
        ("json_repeated", JSON_REPEATED, ("exact", _ref_repeated)),
        ("json_in_out", JSON_IN_OUT, ("exact", lambda x: np.array([[0.0, 1.0], [x[1], x[0]]]))),
    ):
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(data, ensure_ascii=False))
        out[name] = (path, ref)
    return out


def _program_cases() -> dict[str, tuple]:
    return {
        "lotka_volterra": lambda: _jax_case(rp.lotka_volterra, 2),
        "rk4_lotka_volterra": lambda: _jax_case(rp.rk4_lotka_volterra, 2),
        "rk4_pendulum": lambda: _jax_case(rp.rk4_pendulum, 2),
        "euler_van_der_pol": lambda: _jax_case(rp.euler_van_der_pol, 2),
        "heat1d_roll": lambda: _jax_case(rp.heat1d_roll, 6),
        "burgers1d": lambda: _jax_case(rp.burgers1d, 5),
        "robot_arm": lambda: _jax_case(rp.robot_arm, 3),
        "spring_network": lambda: _jax_case(rp.spring_network, 8),
        "quaternion_rotate": lambda: _jax_case(rp.quaternion_rotate, 4),
        "robot_arm_numpy": lambda: _numpy_case(rp.robot_arm_numpy, 3),
        "heat1d_numpy": lambda: _numpy_case(rp.heat1d_numpy, 6),
        "rosenbrock_numpy": lambda: _numpy_case(rp.rosenbrock_numpy, 5),
        "robot3d_sympy": lambda: _sympy_case(_robot3d),
        "kinetics_sympy": lambda: _sympy_case(_kinetics),
    }


# ---------------------------------------------------------------- checks


class Hang(Exception):
    pass


def _alarm(*_):
    raise Hang


def recount(es) -> int:
    """Mults of the expression set counted from its expressions (independently of dgraph's
    counter): each product costs one per factor after the first; numbers are free."""

    def mults(e) -> int:
        if e.is_Add:
            return sum(mults(a) for a in e.args)
        if e.is_Mul:
            factors = [a for a in e.args if not a.is_Number]
            return max(len(factors) - 1, 0) + sum(mults(a) for a in factors)
        if e.is_Pow and e.exp.is_Integer and e.exp > 1:
            return int(e.exp) - 1 + mults(e.base)
        return 0

    total = sum(mults(e) for e in dict(es.references).values())
    return total + sum(mults(e) for e in es.jacobian.values())


def _point(g) -> np.ndarray:
    n = len(g.inputs)
    return 0.4 + 0.13 * np.arange(n) + 0.01 * np.arange(n) ** 2


def reference(g, ref, x) -> np.ndarray:
    kind, f = ref
    if kind == "jax":
        return np.atleast_2d(np.asarray(jax.jacfwd(f)(x)))
    if kind == "exact":
        return np.atleast_2d(f(x))
    h = 1e-6
    cols = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))]
    return np.atleast_2d(np.array(cols).T)


def _cell(run) -> tuple[str, str]:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        return run()
    except Hang:
        return "HANG", f"over {LIMIT} s"
    except dgraph.DGraphError as e:
        text = str(e)
        return ("refused", text) if "\n" not in text.strip() else ("ERROR", text)
    except Exception as e:
        return "ERROR", f"{type(e).__name__}: {e}"[:300]
    finally:
        signal.alarm(0)


def method_cell(g, ref, method, results) -> tuple[str, str]:
    def run():
        es = dgraph.accumulate(g, method)
        again = dgraph.accumulate(g, method)
        if (es.mults, str(es.jacobian)) != (again.mults, str(again.jacobian)):
            return "NONDET", f"{es.mults} then {again.mults} mults in one process"
        counted = recount(es)
        if counted != es.mults:
            return "WRONG", f"reports {es.mults} mults, its expressions have {counted}"
        x = _point(g)
        got = np.asarray(es.evaluate(x), dtype=float).reshape(len(g.outputs), len(g.inputs))
        want = reference(g, ref, x)
        tol = 1e-6 if ref[0] == "fd" else 1e-9
        if want.shape != got.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            return "WRONG", f"J differs from the reference by {np.max(np.abs(got - want)):.3g}"
        if es.verified and getattr(es.verification, "status", "") != "verified":
            return "WRONG", f"verified but verification says {es.verification!r}"
        results[method] = es
        return "ok", f"{es.mults} mults"

    return _cell(run)


def optimal_claims(results) -> list[str]:
    """Each exact method's count against the methods of its class or a smaller one."""
    out = []
    mults = {m: es.mults for m, es in results.items()}
    chains = (
        ("vertex-optimal", VERTEX_CLASS),
        ("edge-optimal", (*VERTEX_CLASS, "vertex-optimal")),
        ("face-optimal", (*VERTEX_CLASS, "vertex-optimal", "edge-optimal", "face-greedy")),
    )
    for exact, smaller in chains:
        if exact not in mults:
            continue
        for other in smaller:
            if other in mults and mults[other] < mults[exact]:
                out.append(f"{exact} {mults[exact]} beaten by {other} {mults[other]}")
    best = results.get("best")
    if best is not None and best.info.get("proven_optimal"):
        among = best.info.get("optimal_among", "")
        key = "mults_effective" if best.info.get("objective") == "effective" else "mults"
        for other, es in results.items():
            if among == "any elimination" and getattr(es, key) < getattr(best, key):
                out.append(f"best (proven) {getattr(best, key)} beaten by {other}")
    return out


# ---------------------------------------------------------------- the command line


def _cli(args, seed, cwd) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONHASHSEED=str(seed), PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-m", "dgraph", *args],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env=env,
        cwd=cwd,
    )
    return p.returncode, p.stdout, p.stderr


def _strip_seconds(obj):
    if isinstance(obj, dict):
        return {
            k: _strip_seconds(v)
            for k, v in obj.items()
            # budget_note names the CPU seconds of a time ceiling: a measurement
            if "seconds" not in k and k not in ("budget", "cut_by_time", "budget_note")
        }
    if isinstance(obj, list):
        return [_strip_seconds(v) for v in obj]
    return obj


def cli_cell(args, tmp: Path, output: str | None = None) -> tuple[str, str]:
    outs = []
    for seed in (1, 2):
        try:
            code, out, err = _cli([*args, *(["-o", output] if output else [])], seed, tmp)
        except subprocess.TimeoutExpired:
            return "HANG", f"over {LIMIT} s"
        if code != 0:
            lines = err.strip().splitlines()
            if code == 2 and len(lines) == 1:
                return "refused", lines[0]
            return "ERROR", f"exit {code}: " + " | ".join(lines[-3:])[:300]
        if output:
            stem = Path(output).stem
            files = sorted(tmp.glob(f"{stem}*{Path(output).suffix}"))
            outs.append(b"".join(f.read_bytes() for f in files))
            for f in files:
                f.unlink()
        else:
            try:
                outs.append(json.dumps(_strip_seconds(json.loads(out)), sort_keys=True))
            except json.JSONDecodeError:
                outs.append(out)
    if outs[0] != outs[1]:
        return "NONDET", "different output with PYTHONHASHSEED 1 and 2"
    return "ok", ""


def commands(name: str, path: Path, g, tmp: Path) -> list[tuple[str, tuple]]:
    p = str(path)
    rows = [
        ("cli accumulate markowitz", (["accumulate", p, "--method", "markowitz", "--json"],)),
        ("cli accumulate best", (["accumulate", p, "--method", "best", "--json"],)),
        ("cli compare", (["compare", p, "--json"],)),
        ("cli structure", (["structure", p, "--json"],)),
        ("cli faces", (["faces", p, "--json"],)),
        ("cli render .tex", (["render", p], f"{name}.tex")),
        ("cli render .dot levels", (["render", p, "--view", "levels"], f"{name}.dot")),
        (
            "cli render --steps .svg",
            (["render", p, "--steps", "--method", "reverse"], f"{name}-s.svg"),
        ),
        ("cli codegen python", (["codegen", p, "--lang", "python"], f"{name}.py")),
        ("cli codegen c", (["codegen", p, "--lang", "c"], f"{name}.c")),
    ]
    if len(g.inputs) == len(g.outputs):
        v = ",".join(["1"] * len(g.outputs))
        rows.append(("cli inverse", (["inverse", p, "--vector", v, "--json"],)))
    return rows


def _steps_output(tmp: Path, name: str) -> None:
    for f in tmp.glob(f"{name}-s*"):
        f.unlink()


CHAINS = {
    "chain4": "4\n3 5 9\n4 3 12\n2 4 8\n6 2 12\n",
    "chain6": "6\n8 2 10\n8 8 30\n8 8 30\n8 8 30\n8 8 30\n1 8 8\n",
}


def chain_cell(name: str, memory: int | None, tmp: Path) -> tuple[str, str]:
    """``dgraph chain``: the same bytes under two hash seeds, the optimum no dearer than
    tangent, adjoint or preaccumulation without a bound, its tape within the bound."""
    path = tmp / f"{name}.txt"
    path.write_text(CHAINS[name])
    args = ["chain", str(path), "--json", *(["--memory", str(memory)] if memory else [])]
    cell = cli_cell(args, tmp)
    if cell[0] != "ok":
        return cell
    data = json.loads(_cli(args, 1, tmp)[1])
    if memory is None:
        plain = min(data["tangent"], data["adjoint"], data["preaccumulation"])
        if data["optimal"] > plain:
            return "WRONG", f"optimal {data['optimal']} > {plain} of a plain mode"
    elif data["tape"] > memory:
        return "WRONG", f"tape {data['tape']} over the bound {memory}"
    return "ok", f"optimal {data['optimal']}, tape {data['tape']}"


def _load(build, into: list) -> tuple[str, str]:
    into.append(build())
    return "ok", ""


def main(argv: list[str] | None = None) -> int:
    global LIMIT
    argv = list(sys.argv[1:] if argv is None else argv)
    use_cli = "--no-cli" not in argv
    for a in argv:
        if a.startswith("--limit="):
            LIMIT = int(a.split("=")[1])
    names = [a for a in argv if not a.startswith("--")]
    tmp = Path(tempfile.mkdtemp(prefix="methods_survey_"))
    cases = dict(_program_cases())
    for key, (path, ref) in _files(tmp).items():
        cases[key] = lambda path=path, ref=ref: (dgraph.load(str(path)), ref, path)
    bad = []
    for name, build in cases.items():
        if names and name not in names:
            continue
        loaded: list = []
        cell = _cell(partial(_load, build, loaded))
        if cell[0] != "ok":
            print(f"{name:20s} {'-':11s} {'load':26s} {cell[0]:8s} {cell[1][:160]}", flush=True)
            bad.append((name, "load", *cell))
            continue
        built = loaded[0]
        g, ref = built[0], built[1]
        path = built[2] if len(built) > 2 else tmp / f"{name}.json"
        if len(built) == 2:
            path.write_text(g.to_json())
        size = f"{len(g.vertices)}v/{g.n_edges}e"
        results: dict = {}
        rows = [(m, method_cell(g, ref, m, results)) for m in METHODS]
        claims = optimal_claims(results)
        rows.append(("optimal claims", ("WRONG", "; ".join(claims)) if claims else ("ok", "")))
        rows.append(("api compare", _cell(lambda g=g: ("ok", f"best {dgraph.compare(g).best}"))))
        if use_cli:
            for label, spec in commands(name, path, g, tmp):
                rows.append((label, cli_cell(spec[0], tmp, spec[1] if len(spec) > 1 else None)))
                _steps_output(tmp, name)
        for label, (cell, note) in rows:
            print(f"{name:20s} {size:11s} {label:26s} {cell:8s} {note[:160]}", flush=True)
            if cell != "ok":
                bad.append((name, label, cell, note))
    if use_cli and (not names or "chains" in names):
        for chain in CHAINS:
            for memory in (None, 12, 6, 1):
                cell, note = chain_cell(chain, memory, tmp)
                label = f"cli chain --memory {memory}"
                print(f"{chain:20s} {'-':11s} {label:26s} {cell:8s} {note[:160]}", flush=True)
                if cell != "ok":
                    bad.append((chain, label, cell, note))
    print(f"\n{len(bad)} cells not ok")
    for row in bad:
        print(" | ".join(row)[:400])
    return 0


if __name__ == "__main__":
    sys.exit(main())
