"""Sparse Hessians at 10^4-10^6 unknowns: dgraph's (the Jacobian of JAX's gradient read as
a tensor graph) against asdex's and dense ``jax.hessian`` (issue 55, "What must be shown").

    python benchmarks/hessian.py [SIZE ...] [--problems rosenbrock minsurf lagrangian]
        [--candidates ...] [--dense-limit 10000] [--reps 10] [--timeout 900]
        [--memory-gb 10] [--json FILE]

The objectives (:mod:`hessian_functions`): extended Rosenbrock, the COPS minimal-surface
functional on an m x m grid, and the Lagrangian f0 + λᵀc of a sparse constrained problem
(weights per call, scipy's ``hess(x, v)``); each takes one flat vector (asdex wants rank
1). Each SIZE is a target count of unknowns (default 10^4 10^5 10^6).

Every candidate runs in its own subprocess (so its peak memory, ``ru_maxrss``, is its
own), under ``--timeout`` seconds and an address-space limit of ``--memory-gb``:

- ``dgraph python`` / ``dgraph jax``: ``make_function(f, "hessian", point=[x],
  weights=w, sparse=True, lang=...)`` (build s: the gradient graph read from JAX's
  jaxpr, the accumulation, its verification, the code and its check against JAX's
  forward-over-reverse); SciPy CSR / JAX BCOO, the JAX one called as it is. ``tril``:
  per call of the lower triangle alone (``tril=True``, the same generated module's
  ``jacobian_tril``; only the entries on and below the diagonal are computed, the full
  matrix copies the others from their mirror images).
- ``asdex``: ``asdex.hessian(f, x)`` (detection and star coloring s), ``jax.jit``-ed.
- ``jax.hessian``: dense, ``jax.jit``-ed, up to ``--dense-limit`` unknowns.

Per call: the median and the least of up to ``--reps`` calls after the first (at least 3;
the machine is shared: the median is what a user sees under its load, the least the
code's own time); ratios on the medians. ``--dgraph DIR``: dgraph imported from another
checkout (an A/B run of two branches with the same script). Values: each
Hessian is saved as CSR and compared with jax.hessian's (asdex's above the dense limit):
max |H - H_ref| / max |H_ref|; ``nnz`` against the true count. Ratios from the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "hessian_functions" not in sys.modules:  # run as a script: its folder on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from sparse import _environment, _first_call, _peak_mb, _relative_error, one_matrix

CANDIDATES = ("dgraph python", "dgraph jax", "asdex", "jax.hessian")
DEFAULT_SIZES = (10**4, 10**5, 10**6)
OUT_OF_MEMORY = ("RESOURCE_EXHAUSTED", "MemoryError", "std::bad_alloc")


def _flat(name: str, side: int):
    """The objective on one flat vector, its point, weights (or None) and true nnz."""
    import jax.numpy as jnp
    from hessian_functions import PROBLEMS, point, shape, true_nnz, weights

    f = PROBLEMS[name]
    s = shape(name, side)
    w = weights(name, side)
    if w is None:

        def flat(x):
            return f(jnp.reshape(x, s))

    else:

        def flat(x, v):
            return jnp.dot(v, f(jnp.reshape(x, s)))

    return f, flat, point(name, side).ravel(), w, true_nnz(name, side)


def _timed_calls(fn, arg, reps: int, budget: float = 30.0) -> tuple[float, float]:
    """The median and the least seconds of up to ``reps`` calls (at least 3, fewer past
    ``budget``)."""
    import jax

    times: list[float] = []
    start = time.perf_counter()
    while len(times) < reps and (len(times) < 3 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(arg))
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def run_candidate(name: str, side: int, candidate: str, reps: int, out: str | None) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    f, flat, x, w, true = _flat(name, side)
    xj = jnp.asarray(x)
    args = (x,) if w is None else (x, w)
    jargs = (xj,) if w is None else (xj, jnp.asarray(w))
    if candidate.startswith("dgraph"):
        import dgraph
    else:
        import asdex

        del asdex
    result: dict = {"status": "ok", "build": {}, "base_mb": _peak_mb(), "true_nnz": true}
    if candidate.startswith("dgraph"):
        lang = candidate.split()[1]
        s = (side, side) if name == "minsurf" else (side,)

        def g(u):  # the problem as written (minsurf on its m x m grid), rank 1 outside
            return f(jnp.reshape(u, s))

        t0 = time.perf_counter()
        H = dgraph.make_function(g, "hessian", lang, point=[x], weights=w, sparse=True)
        result["build"] = {"make_function": time.perf_counter() - t0}
        call_args = args if lang == "python" else jargs
        hess, first = _first_call(lambda a: H(*a), call_args)
        result["compile"] = first if lang == "jax" else None
        result["call"], result["call_min"] = _timed_calls(lambda a: H(*a), call_args, reps)
        tril = getattr(H.gradient.generated, "tril", None)
        if tril is not None:
            result["tril"] = _timed_calls(lambda a: tril(*a), call_args, reps)[0]
        result["method"] = H.generated.method
        result["verified"] = H.generated.verified
    elif candidate == "asdex":
        import asdex

        t0 = time.perf_counter()
        H = asdex.hessian(flat, *jargs)
        result["build"] = {"detect+color": time.perf_counter() - t0}
        fn = jax.jit(H)
        hess, result["compile"] = _first_call(lambda a: fn(*a), jargs)
        result["call"], result["call_min"] = _timed_calls(lambda a: fn(*a), jargs, reps)
    elif candidate == "jax.hessian":
        fn = jax.jit(jax.hessian(flat))
        hess, result["compile"] = _first_call(lambda a: fn(*a), jargs)
        result["call"], result["call_min"] = _timed_calls(lambda a: fn(*a), jargs, reps)
    else:
        raise ValueError(f"no candidate {candidate!r}")
    result["peak_mb"] = _peak_mb()
    import scipy.sparse as sp

    matrix = one_matrix(hess)
    if candidate == "jax.hessian":
        matrix.eliminate_zeros()
    result["nnz"] = int(matrix.nnz)
    result["symmetric"] = bool(abs(matrix - matrix.T).sum() == 0)
    if out:
        sp.save_npz(out, matrix, compressed=False)
        result["matrix"] = out
    return result


def _worker(spec: str) -> None:
    args = json.loads(spec)
    limit = args.get("memory_gb") or 0
    if limit:
        size = int(limit * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    try:
        found = run_candidate(
            args["name"], args["side"], args["candidate"], args["reps"], args["out"]
        )
    except MemoryError:
        found = {"status": f"out of memory (address space limit {limit} GB)"}
    print(json.dumps(found), flush=True)


def _spawn(name: str, side: int, candidate: str, opts, out: str) -> dict:
    spec = {
        "name": name,
        "side": side,
        "candidate": candidate,
        "reps": opts.reps,
        "out": out,
        "memory_gb": opts.memory_gb,
    }
    env = dict(os.environ)
    here = opts.dgraph or str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=opts.timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {opts.timeout:g} s"}
    for line in reversed(done.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1].strip()
    if any(sign in done.stderr for sign in OUT_OF_MEMORY):
        return {"status": f"out of memory: {tail[:120]}"}
    return {"status": f"failed (exit {done.returncode}): {tail[:200]}"}


def measure(opts) -> list[dict]:
    from hessian_functions import size_for

    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="dgraph-hessian-") as tmp:
        for name in opts.problems:
            for target in opts.sizes:
                side = size_for(name, target)
                n = side * side if name == "minsurf" else side
                found: dict[str, dict] = {}
                for candidate in opts.candidates:
                    if candidate == "jax.hessian" and n > opts.dense_limit:
                        found[candidate] = {"status": "skipped (dense)"}
                        continue
                    out = os.path.join(tmp, f"{name}-{n}-{candidate.replace(' ', '_')}.npz")
                    start = time.perf_counter()
                    found[candidate] = _spawn(name, side, candidate, opts, out)
                    print(
                        f"  {name} n={n} {candidate}: {found[candidate]['status']}"
                        f" ({time.perf_counter() - start:.1f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
                reference = next(
                    (c for c in ("jax.hessian", "asdex") if found.get(c, {}).get("matrix")), None
                )
                for candidate, result in found.items():
                    if reference and result.get("matrix") and candidate != reference:
                        result["error"] = _relative_error(
                            result["matrix"], found[reference]["matrix"]
                        )
                    result["reference"] = reference
                    rows.append({"problem": name, "n": n, "candidate": candidate, **result})
    return rows


def _s(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) >= 1e-3 else f"{value:.2e}"


def table(rows: list[dict]) -> str:
    lines = [
        "| problem | unknowns | candidate | build s | compile s | per call s median (least)"
        " | ÷ asdex | tril s | peak MB (rise) | nnz (true) | symmetric | rel. error |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_key = {(r["problem"], r["n"], r["candidate"]): r for r in rows}
    for r in rows:
        head = f"| {r['problem']} | {r['n']} | {r['candidate']} |"
        if r["status"] != "ok":
            lines.append(f"{head} {r['status']} | | | | | | | | |")
            continue
        build = sum(r["build"].values()) if r["build"] else None
        asdex = by_key.get((r["problem"], r["n"], "asdex"), {})
        over = (
            f"{r['call'] / asdex['call']:.2f}"
            if asdex.get("status") == "ok" and r["candidate"] != "asdex"
            else "—"
        )
        error = (
            f"{r['error']:.1e}"
            if "error" in r
            else ("ref" if r.get("reference") == r["candidate"] else "—")
        )
        lines.append(
            f"{head} {_s(build)} | {_s(r.get('compile'))} | {_s(r['call'])}"
            f" ({_s(r.get('call_min'))}) | {over}"
            f" | {_s(r.get('tril'))} | {r['peak_mb']:.0f} ({r['peak_mb'] - r['base_mb']:.0f})"
            f" | {r['nnz']} ({r['true_nnz']}) | {r['symmetric']} | {error} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--worker"]:
        _worker(argv[1])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, help="target unknowns (default 1e4 1e5 1e6)")
    parser.add_argument(
        "--problems",
        nargs="+",
        choices=("rosenbrock", "minsurf", "lagrangian"),
        default=["rosenbrock", "minsurf", "lagrangian"],
    )
    parser.add_argument("--candidates", nargs="+", choices=CANDIDATES, default=list(CANDIDATES))
    parser.add_argument("--dense-limit", type=int, default=10**4, help="jax.hessian up to this n")
    parser.add_argument("--reps", type=int, default=10, help="calls timed per candidate")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per candidate")
    parser.add_argument("--memory-gb", type=float, default=10.0, help="address space (0: none)")
    parser.add_argument("--json", help="write the raw results here")
    parser.add_argument("--dgraph", help="import dgraph from this checkout (default: this one)")
    opts = parser.parse_args(argv)
    opts.sizes = opts.sizes or list(DEFAULT_SIZES)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"{_environment()}; load average {load} at the start", flush=True)
    rows = measure(opts)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))
    print(table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
