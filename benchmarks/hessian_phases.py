"""CPU seconds of one sparse Hessian build, by phase (issue 55's build target).

    python benchmarks/hessian_phases.py PROBLEM SIZE [--lang jax] [--calls N] [--profile FILE]
        [--json] [--subphases]

``make_function(g, "hessian", "python", point=[x], weights=w, sparse=True)`` of a
problem of :mod:`hessian_functions` (``g`` on the problem's own shape, as
``benchmarks/hessian.py`` calls it), timed with :func:`time.process_time` (all threads
of this process) as a whole and in the phases it goes through, each timed by wrapping
the function that does it: the jaxpr reader (``gradient_graph``), pricing the candidate
eliminations (``_cheapest``), the expression set's check (``ExpressionSet.verify``),
code generation (``tensor_program``), loading the module (``load_python``) and the
generated code's check (``check_tensor``), with ``--subphases`` also their parts in
:data:`SUBPHASES`; the whole build's user and system seconds, its minor page faults
(``minflt``: pages first touched, each zeroed by the kernel: most of the system time)
and the process's peak resident memory; then the first call's CPU seconds (JAX: its
compile, where the check's program is not reused) and, with ``--calls N``, the median
CPU and wall milliseconds of N calls after it. Prints one line: those, the method
chosen, its multiplications and nnz; ``--profile`` writes a cProfile of the build too,
``--write FILE`` the generated module's text.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

if "hessian_functions" not in sys.modules:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

PHASES = {
    "reader": ("dgraph.codegen.hessian", "gradient_graph"),
    "pricing": ("dgraph.codegen.tensor.function", "_cheapest"),
    "es check": ("dgraph.core.expressions", "ExpressionSet.verify"),
    "codegen": ("dgraph.codegen.tensor.function", "tensor_program"),
    "load": ("dgraph.codegen.tensor.function", "load_python"),
    "code check": ("dgraph.codegen.tensor.function", "check_tensor"),
}


SUBPHASES = {  # --subphases: parts of the phases above (each counted in its phase too)
    "es: points": ("dgraph.core.value_check", "vertex_values"),  # the code check's too
    "es: jax ref": ("dgraph.core.value_check", "_jax_jvp"),
    "es: ES jvp": ("dgraph.core.value_check", "jvp_and_scale"),
    "cg: walk": ("dgraph.codegen.tensor.module", "_walk"),
    "cg: cancel": ("dgraph.codegen.tensor.module", "drop_cancelled"),
    "cg: cancel later": ("dgraph.codegen.tensor.module", "none_cancel"),  # its first point
    "cg: numpy_body": ("dgraph.codegen.tensor.module", "numpy_body"),
    "cg: narrowed": ("dgraph.codegen.tensor.module", "narrowed"),
    "cg: header": ("dgraph.codegen.tensor.module", "_header"),
    "cg: symmetric": ("dgraph.codegen.tensor.module", "_symmetric"),
    "cg: fold": ("dgraph.codegen.tensor.module", "_fold"),
}


def _wrap(spent: dict[str, float], phase: str, module: str, name: str) -> None:
    import importlib

    owner = importlib.import_module(module)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    inner = getattr(owner, attr)

    def timed(*a, **k):
        t0 = time.process_time()
        try:
            return inner(*a, **k)
        finally:
            spent[phase] = spent.get(phase, 0.0) + time.process_time() - t0

    setattr(owner, attr, timed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("problem")
    parser.add_argument("size", type=int)
    parser.add_argument("--profile")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--lang", default="python", choices=("python", "jax"))
    parser.add_argument("--calls", type=int, default=0, help="calls timed after the first")
    parser.add_argument("--write", help="write the generated module's text to this file")
    parser.add_argument("--subphases", action="store_true", help="also time SUBPHASES")
    a = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from hessian_functions import PROBLEMS, point, shape, size_for, weights

    import dgraph

    side = size_for(a.problem, a.size)
    f, s = PROBLEMS[a.problem], shape(a.problem, side)
    x, w = point(a.problem, side).ravel(), weights(a.problem, side)

    def g(u):
        return f(jnp.reshape(u, s))

    spent: dict[str, float] = {}
    timed = {**PHASES, **(SUBPHASES if a.subphases else {})}
    for phase, (module, name) in timed.items():
        _wrap(spent, phase, module, name)
    profiler = None
    if a.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    faults0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0, times0, w0 = time.process_time(), os.times(), time.perf_counter()
    H = dgraph.make_function(g, "hessian", a.lang, point=[x], weights=w, sparse=True)
    wall = time.perf_counter() - w0
    total, times1 = time.process_time() - t0, os.times()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = usage.ru_maxrss / 2**20  # KiB -> GiB
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(a.profile)
    t1 = time.process_time()
    h = jax.block_until_ready(H(x) if w is None else H(x, w))
    first = time.process_time() - t1
    calls = []
    for _ in range(a.calls):
        t2, w2 = time.process_time(), time.perf_counter()
        jax.block_until_ready(H(x) if w is None else H(x, w))
        calls.append((time.process_time() - t2, time.perf_counter() - w2))
    if a.write:
        Path(a.write).write_text(H.gradient.generated.text)
    es = H.generated.expression_set
    result = {
        "problem": a.problem,
        "unknowns": x.size,
        "lang": a.lang,
        "total": round(total, 3),
        "wall": round(wall, 3),
        "user": round(times1.user - times0.user, 3),
        "system": round(times1.system - times0.system, 3),
        "peak GiB": round(peak, 2),
        "minflt": usage.ru_minflt - faults0,
        **{p: round(spent.get(p, 0.0), 3) for p in timed},
        "first call": round(first, 3),
        **(
            {
                "call CPU ms": round(1e3 * sorted(c for c, _ in calls)[len(calls) // 2], 2),
                "call wall ms": round(1e3 * sorted(w for _, w in calls)[len(calls) // 2], 2),
            }
            if calls
            else {}
        ),
        "method": es.method,
        "mults": es.mults,
        "nnz": int(getattr(h, "nnz", None) or h.nse),
        "verified": bool(H.generated.verified),
    }
    print(json.dumps(result) if a.json else "  ".join(f"{k} {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
