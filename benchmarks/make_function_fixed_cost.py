"""make_function's fixed cost per call on small functions, and proof that a change to it
keeps every result: a corpus of small functions (NumPy and JAX templates at n = 2, 3, 5,
AlphaGrad's scalar graphs, the bundled traces, sympy expressions, the peers' test
functions of tests/peers) made in one warm process, each once, in the modes jacobian,
hessian, hvp, value_and_jacobian, vjp (a gradient), dense and sparse, python, jax and c.
Each call's CPU time (this process and its children: C's compiler) and a hash of what
it made: the generated source, the function's docstring, the verification report and,
for a graph of scalars, codegen's selection rows.

    PYTHONPATH=. python benchmarks/make_function_fixed_cost.py run OUT.json
    PYTHONPATH=/tmp/base python benchmarks/make_function_fixed_cost.py run BASE.json
    python benchmarks/make_function_fixed_cost.py compare BASE.json OUT.json [MORE.json ...]

``compare`` says whether every hash is identical and prints the medians of CPU-ms per
call by mode and in all (pairs of files alternate: base, new, base, new ...).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import sympy

jax.config.update("jax_enable_x64", True)
ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: the dgraph measured is the one it names

import dgraph  # noqa: E402
from dgraph import make_function  # noqa: E402

# --- templates: f(c) -> a function of one vector x (vector or scalar result) ------------


def _numpy_vector(c: float) -> list[tuple[str, Callable]]:
    return [
        ("np_sin_rev_exp", lambda x: np.sin(x) * x[::-1] + np.exp(c * x).sum()),
        ("np_tanh_cumsum", lambda x: np.tanh(c * np.cumsum(x))),
        ("np_poly", lambda x: x**3 - c * x**2 + x * x[0]),
        ("np_ratio", lambda x: (x + c) / (1.0 + x**2)),
        ("np_log1p_sq", lambda x: np.log1p(x**2) * c + np.sqrt(1.0 + x)),
        ("np_outer_diff", lambda x: np.cos(x - x.mean()) * c),
        ("np_softmax", lambda x: np.exp(c * x) / np.exp(c * x).sum()),
        ("np_roll_prod", lambda x: x * np.roll(x, 1) + c),
    ]


def _numpy_scalar(c: float) -> list[tuple[str, Callable]]:
    return [
        ("np_sin_prod", lambda x: (np.sin(c * x) * x).sum() + (x**2).prod()),
        ("np_rosen", lambda x: (c * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()),
        ("np_logsumexp", lambda x: np.log(np.exp(c * x).sum())),
        ("np_quartic", lambda x: ((x - c) ** 4).sum() + x[0] * x[-1]),
        ("np_dot_tanh", lambda x: np.tanh(x) @ np.cos(c * x)),
        ("np_norm_exp", lambda x: np.exp(-c * (x**2).sum()) + np.sin(x).sum()),
    ]


def _jax_vector(c: float) -> list[tuple[str, Callable]]:
    return [
        ("jax_tanh_cos", lambda x: jnp.tanh(c * x) * jnp.cos(x[::-1])),
        ("jax_cumprod", lambda x: jnp.cumprod(1.0 + c * x)),
        ("jax_sigmoid", lambda x: 1.0 / (1.0 + jnp.exp(-c * x)) + x[0]),
    ]


def _jax_scalar(c: float) -> list[tuple[str, Callable]]:
    return [
        ("jax_dot_tanh", lambda x: jnp.tanh(c * x) @ jnp.cos(x) + x[0] * x[1]),
        ("jax_softplus", lambda x: jnp.log1p(jnp.exp(c * x)).sum() + (x**2).sum()),
        ("jax_rosen", lambda x: jnp.sum(c * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)),
    ]


TRACES = {
    "trace_poly": "inputs: x1, x2\noutputs: y1, y2\n"
    "y1 = x1*x2 + sin(x1)\ny2 = exp(x2)*x1 - {c}*x2**2\n",
    "trace_chain": "inputs: x1, x2\noutputs: y\n"
    "v1 = sin(x1)*x2\nv2 = cos(v1) + {c}*x1\ny = v1*v2 + log(1 + x2**2)\n",
    "trace_three": "inputs: x1, x2, x3\noutputs: y1, y2\n"
    "a = x1*x2*x3\nb = a + {c}*x1\ny1 = sin(a)*b\ny2 = b/(1 + x3**2)\n",
}


def _sympy_graph(c: float, n: int) -> dgraph.DGraph:
    xs = sympy.symbols(f"x1:{n + 1}")
    outs = [sympy.sin(xs[k]) * xs[(k + 1) % n] + c * xs[k] ** 2 for k in range(n)]
    return dgraph.from_sympy(outs, list(xs))


Job = tuple[str, str, Callable[[], Any]]  # (name, mode, make)


def _jobs(c: float) -> list[Job]:
    """The corpus at constant ``c`` (a warm-up pass takes another ``c``: every graph of
    the measured pass is new to the process's caches)."""
    jobs: list[Job] = []

    def make(f, mode, x, **kw):
        return lambda: dgraph.make_function(f, mode, point=[x], **kw)

    for n in (2, 3, 5):
        x = np.linspace(0.3, 1.1, n)
        for name, f in _numpy_vector(c) + _jax_vector(c):
            jobs.append((f"{name}/{n}", "jacobian", make(f, "jacobian", x)))
        for name, f in _numpy_vector(c)[:4]:
            jobs.append((f"{name}/{n}/sparse", "jacobian", make(f, "jacobian", x, sparse=True)))
            jobs.append((f"{name}/{n}/vj", "value_and_jacobian", make(f, "value_and_jacobian", x)))
        for name, f in _numpy_scalar(c) + _jax_scalar(c):
            jobs.append((f"{name}/{n}", "gradient", make(f, "jacobian", x)))
            jobs.append((f"{name}/{n}", "hessian", make(f, "hessian", x)))
            jobs.append((f"{name}/{n}", "hvp", make(f, "hvp", x)))
        for name, f in _numpy_scalar(c)[:2]:
            jobs.append((f"{name}/{n}/sparse", "hessian", make(f, "hessian", x, sparse=True)))
            jobs.append((f"{name}/{n}/vjp", "vjp", make(f, "vjp", x)))
    for name, f in _numpy_vector(c)[:2] + _numpy_scalar(c)[:1]:
        x = np.linspace(0.3, 1.1, 3)
        mode = "hessian" if name in dict(_numpy_scalar(c)) else "jacobian"
        jobs.append((f"{name}/3/jax", mode, make(f, mode, x, lang="jax")))
        jobs.append((f"{name}/3/c", mode, make(f, mode, x, lang="c")))
    for name, text in TRACES.items():
        for lang in ("python", "c"):
            jobs.append((f"{name}/{lang}", "jacobian", _trace_job(text, c, lang)))
    for n in (2, 3, 4):
        jobs.append((f"sympy/{n}", "jacobian", lambda n=n: make_function(_sympy_graph(c, n))))
    for name in ("naumann_sin.trace", "spherical_coordinates.trace"):
        jobs.append((name, "jacobian", lambda name=name: make_function(dgraph.bundled(name))))
    jobs += _alphagrad_jobs(c)
    jobs += _peer_jobs()
    return jobs


def _trace_job(text: str, c: float, lang: str) -> Callable[[], Any]:
    return lambda: dgraph.make_function(dgraph.from_trace(text.format(c=c)), lang=lang)


def _alphagrad_jobs(c: float) -> list[Job]:
    import alphagrad_functions as ag

    jobs: list[Job] = []
    for name in ("HumanHeartDipole", "PropaneCombustion", "RobotArm_6DOF"):
        f, point = ag.FUNCTIONS[name]
        point = tuple(np.float64(v * (1 + 0.01 * c)) for v in point)
        jobs.append((f"alphagrad/{name}", "jacobian", lambda f=f, p=point: _alphagrad(f, p)))
    return jobs


def _alphagrad(f: Callable, point: tuple) -> Any:
    return dgraph.make_function(dgraph.from_jax(f, *point))


def _peer_jobs() -> list[Job]:
    """The peers' test functions (tests/peers) with at most 12 argument entries, at their
    own points (the same in both passes: the warm-up pass takes none of them)."""
    from tests.peers import CASES

    jobs: list[Job] = []
    for case in CASES:
        args = tuple(np.asarray(a, dtype=np.float64) for a in case.args())
        if sum(a.size for a in args) > 12 or not all(a.ndim for a in args):
            continue
        jobs.append((f"peer/{case.name}", "jacobian", lambda f=case.fn, a=args: _peer(f, a)))
    return jobs


def _peer(f: Callable, args: tuple) -> Any:
    return dgraph.make_function(f, "jacobian", point=list(args))


def _digest(made: Any) -> dict[str, str]:
    """Hashes of what a call made: source, docstring, verification report, selection."""
    g = made.generated
    check = g.check.to_dict() if g.check is not None else None
    selection = g.selection.to_dict() if getattr(g, "selection", None) is not None else None
    parts = {
        "source": g.text,
        "doc": made.__doc__ or "",
        "check": json.dumps(check, sort_keys=True, default=str),
        "selection": json.dumps(selection, sort_keys=True, default=str),
        "method": str(g.method),
    }
    return {k: hashlib.md5(v.encode()).hexdigest()[:12] for k, v in parts.items()}


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run(out: str) -> None:
    warnings.simplefilter("ignore")
    for _, _, job in _jobs(7.0)[::7]:  # warm-up: imports, JAX's primitives, sympy
        with contextlib.suppress(Exception):
            job()
    rows = []
    for name, mode, job in _jobs(1.5):
        t = _cpu()
        try:
            made = job()
            error = ""
        except Exception as exc:
            made, error = None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        ms = 1000 * (_cpu() - t)
        digest = _digest(made) if made is not None else {"error": error}
        rows.append({"name": name, "mode": mode, "ms": ms, "digest": digest})
    Path(out).write_text(json.dumps(rows, indent=0))
    print(f"{len(rows)} calls, {sum(r['ms'] for r in rows) / 1000:.1f} CPU-s, pid {os.getpid()}")


def compare(paths: list[str]) -> None:
    runs = [json.loads(Path(p).read_text()) for p in paths]
    base, new = runs[0::2], runs[1::2]
    names = [(r["name"], r["mode"]) for r in runs[0]]
    same = all([(r["name"], r["mode"]) for r in x] == names for x in runs)
    differ = [
        names[k]
        for k in range(len(names))
        if len({json.dumps(x[k]["digest"], sort_keys=True) for x in runs}) > 1
    ]
    errors = sum("error" in r["digest"] for r in runs[0])
    print(f"{len(names)} calls ({errors} refused), same corpus: {same}; results differing: "
          f"{len(differ)} {differ[:5]}")  # fmt: skip

    def per_call(group: list[list[dict]], k: int) -> float:
        return statistics.median(x[k]["ms"] for x in group)

    modes = sorted({m for _, m in names})
    print(f"{'mode':20} {'calls':>5} {'base ms':>9} {'new ms':>9} {'new/base':>8}")
    for mode in [*modes, "all"]:
        ks = [k for k, (_, m) in enumerate(names) if mode in ("all", m)]
        b = statistics.median(per_call(base, k) for k in ks)
        n = statistics.median(per_call(new, k) for k in ks) if new else float("nan")
        sb = sum(per_call(base, k) for k in ks)
        sn = sum(per_call(new, k) for k in ks) if new else float("nan")
        print(f"{mode:20} {len(ks):5d} {b:9.1f} {n:9.1f} {n / b:8.2f}   sum {sb / 1000:6.2f} s"
              f" -> {sn / 1000:6.2f} s ({sn / sb:.2f})")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        compare(sys.argv[2:])
