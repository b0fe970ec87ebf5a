"""How the Hessian build's CPU seconds grow with the size of a program of many small array
operations (issue 55): the binomial-tree American put of ``benchmarks/real_programs11.py``
(a shrinking lattice, one small array op chain per level) and its quantum circuit (a
complex state vector, gates as small matrix products, per layer), by phase, each size in
a fresh process, with the growth exponent between consecutive sizes and the least-squares
slope of log CPU-s on log size.

    python benchmarks/build_growth.py binomial 6 12 24 48 [--sparse] [--json]
    python benchmarks/build_growth.py quantum 1 2 4 8 --sparse

``binomial`` is ``make_function(f, "hessian", point=(x,))`` (dense, as
``benchmarks/hessian_builds.py`` builds it), ``quantum`` likewise, ``--sparse`` with
``sparse=True`` (the surveys' ``hmed``). Each phase is timed by wrapping the function that
does it wherever dgraph's modules hold it (nested calls counted once), with
:func:`time.process_time`; a phase is counted in every phase that contains it (``cg:
optimize`` in ``codegen``, ``fold`` in several). The error is against ``jax.hessian`` of
the program's JAX twin.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from harness import log_slope  # benchmarks/, first on the path

HERE = Path(__file__).resolve().parent

PROGRAMS = {"binomial": "binomial_tree_american", "quantum": "quantum_circuit_expectation"}

#: phase -> (module, function): timed wherever a dgraph module holds that function
PHASES = {
    "numpy trace": ("dgraph.codegen.hessian", "traced_array_graph"),
    "primal check": ("dgraph.codegen.tensor.primal", "check_primal"),
    "reader": ("dgraph.frontends.jax_hessian", "gradient_graph"),
    "pricing": ("dgraph.codegen.tensor.function", "_cheapest"),
    "es check": ("dgraph.core.expressions", "ExpressionSet.verify"),
    "codegen": ("dgraph.codegen.tensor.module", "tensor_program"),
    "cg: optimize": ("dgraph.codegen.array_passes", "optimize_statements"),
    "cse": ("dgraph.codegen.array_passes", "common_subexpressions"),
    "op count": ("dgraph.codegen.array_passes", "count_array_ops"),
    "load": ("dgraph.codegen.python", "load_python"),
    "code check": ("dgraph.codegen.tensor.check", "check_tensor"),
    "columns check": ("dgraph.codegen.tensor.check", "check_dense_whole"),
}


def _wrap_everywhere(spent: dict[str, float], phase: str, module: str, name: str) -> None:
    import importlib

    owner = importlib.import_module(module)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    inner = getattr(owner, attr)
    depth = [0]

    def timed(*a, **k):
        if depth[0]:
            return inner(*a, **k)
        depth[0] += 1
        t0 = time.process_time()
        try:
            return inner(*a, **k)
        finally:
            spent[phase] = spent.get(phase, 0.0) + time.process_time() - t0
            depth[0] -= 1

    if path:  # a method: its class only
        setattr(owner, attr, timed)
        return
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("dgraph") and getattr(mod, attr, None) is inner:
            setattr(mod, attr, timed)


def one(program: str, size: int, sparse: bool, error: bool = True) -> dict:
    """One build, in this process: its CPU seconds, by phase."""
    sys.path.insert(0, str(HERE))
    import jax

    jax.config.update("jax_enable_x64", True)
    import numpy as np
    import real_programs11

    import dgraph
    import dgraph.codegen.tensor.check  # the modules whose functions are timed

    f, xs, _, ref = real_programs11.PROGRAMS[PROGRAMS[program]][0](size)
    x = np.asarray(xs[0])
    spent: dict[str, float] = {}
    for phase, (module, name) in PHASES.items():
        _wrap_everywhere(spent, phase, module, name)
    t0 = time.process_time()
    H = dgraph.make_function(f, "hessian", "python", point=(x,), sparse=sparse)
    total = time.process_time() - t0
    print(f"built in {total:.2f} CPU-s", file=sys.stderr, flush=True)
    generated = H.gradient.generated
    largest = float("nan")
    if error:  # jax.hessian unrolled (compiling it takes minutes and GBs past ~60 levels)
        want = np.asarray(jax.hessian(ref)(x))
        got = H(x)
        got = np.asarray(got.toarray() if hasattr(got, "toarray") else got).reshape(want.shape)
        largest = float(np.abs(got - want).max() / np.abs(want).max())
    return {
        "program": program,
        "size": size,
        "unknowns": int(x.size),
        "sparse": sparse,
        "total": round(total, 3),
        **{p: round(spent.get(p, 0.0), 3) for p in PHASES},
        "lines": generated.text.count("\n"),
        "verified": str(generated.check.status),
        "error": largest,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(PROGRAMS))
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--sparse", action="store_true")
    parser.add_argument("--json", action="store_true", help="one JSON line per size")
    parser.add_argument("--no-error", action="store_true", help="no jax.hessian reference")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.one:
        print(json.dumps(one(a.program, a.sizes[0], a.sparse, not a.no_error)), flush=True)
        return
    rows = []
    for size in a.sizes:
        command = [sys.executable, __file__, a.program, str(size), "--one"]
        command += ["--sparse"] * a.sparse + ["--no-error"] * a.no_error
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode:
            print(f"{a.program} {size}: failed\n{out.stderr[-2000:]}", flush=True)
            break
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        if a.json:
            print(json.dumps(row), flush=True)
        else:
            shown = {k: v for k, v in row.items() if k not in ("program", "sparse")}
            print("  ".join(f"{k} {v}" for k, v in shown.items()), flush=True)
    if len(rows) < 2:
        return
    sizes = [r["size"] for r in rows]
    print("growth exponents (consecutive sizes; least-squares slope over all):")
    for key in ("total", *PHASES):
        ts = [r[key] for r in rows]
        if max(ts) < 0.05:
            continue
        steps = [
            math.log(max(t2, 1e-3) / max(t1, 1e-3)) / math.log(n2 / n1)
            for n1, n2, t1, t2 in zip(sizes, sizes[1:], ts, ts[1:], strict=False)
        ]
        shown = " ".join(f"{s:.2f}" for s in steps)
        print(f"  {key:14} {shown}   fit {log_slope(sizes, ts, floor=1e-3):.2f}", flush=True)


if __name__ == "__main__":
    main()
