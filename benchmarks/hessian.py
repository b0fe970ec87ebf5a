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
  forward-over-reverse; in parentheses the XLA compiles within it: the checks' JAX
  programs, and for ``dgraph jax`` the generated code's, which its first call then
  reuses); SciPy CSR / JAX BCOO, the JAX one called as it is. ``tril``:
  per call of the lower triangle alone (``tril=True``, the same generated module's
  ``jacobian_tril``; only the entries on and below the diagonal are computed, the full
  matrix copies the others from their mirror images).
- ``asdex``: ``asdex.hessian(f, x)`` (detection and star coloring s), ``jax.jit``-ed.
- ``jax.hessian``: dense, ``jax.jit``-ed, up to ``--dense-limit`` unknowns.

Per call: the median and the least of up to ``--reps`` calls after the first (at least 3;
the machine is shared: the median is what a user sees under its load, the least the
code's own time); ratios on the medians. Those ratios divide times taken in two
processes at two moments: on a shared machine they swing with the load of each moment
(JAX's at 10^5, 1 ms calls that XLA splits over two threads: 0.29 to 2.16 of asdex over
two runs, see RESULTS.md). So ``÷ asdex, paired`` (unless ``--no-paired``) divides times
taken together: one more worker builds asdex's and every dgraph candidate that ran, then
calls them in turn, one call each per round (the order rotated), for up to ``--reps``
rounds (at least 20) within ``--paired-budget`` seconds; the ratio of the medians of wall
seconds, and in parentheses of CPU seconds (``process_time``: all the process's threads,
no waiting). ``--dgraph DIR``: dgraph imported from another
checkout (an A/B run of two branches with the same script). Values: each
Hessian is saved as CSR and compared with jax.hessian's (asdex's above the dense limit):
max |H - H_ref| / max |H_ref|; ``nnz`` against the true count. Ratios from the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

# run as a script (not loaded by file with its imports): its folder on the path
if not {"harness", "hessian_functions"} <= sys.modules.keys():
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (
    add_errors,
    environment,
    error_cell,
    first_call,
    logged,
    median,
    memory_cell,
    one_matrix,
    peak_mb,
    ratio_cell,
    run_worker,
    seconds_cell,
    spawn,
    timed_calls,
)

CANDIDATES = ("dgraph python", "dgraph jax", "asdex", "jax.hessian")
DEFAULT_SIZES = (10**4, 10**5, 10**6)


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
    return timed_calls(fn, arg, reps, budget=budget, pick=lambda t: (median(t), min(t)))


PAIRED = "paired"
"""The worker that times asdex's and dgraph's candidates in turn (``paired:C1,C2``)."""


def _paired(name: str, side: int, candidates: list[str], reps: int, budget: float) -> dict:
    """asdex's ``jax.jit``-ed Hessian and each dgraph ``candidates`` built in this process,
    warmed up (3 calls each), then called in turn, one call each per round (the order
    rotated each round), for ``reps`` rounds (at least 20, fewer past ``budget`` seconds):
    each one's median wall and CPU seconds, and their ratios over asdex's."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import asdex
    import jax.numpy as jnp

    import dgraph

    f, flat, x, w, _ = _flat(name, side)
    jargs = (jnp.asarray(x),) if w is None else (jnp.asarray(x), jnp.asarray(w))
    args = (x,) if w is None else (x, w)
    s = (side, side) if name == "minsurf" else (side,)

    def g(u):
        return f(jnp.reshape(u, s))

    calls = {"asdex": partial(jax.jit(asdex.hessian(flat, *jargs)), *jargs)}
    for candidate in candidates:
        lang = candidate.split()[1]
        H = dgraph.make_function(g, "hessian", lang, point=[x], weights=w, sparse=True)
        calls[candidate] = partial(H, *(args if lang == "python" else jargs))
    for call in calls.values():
        for _ in range(3):
            jax.block_until_ready(call())
    names = list(calls)
    wall: dict[str, list[float]] = {c: [] for c in names}
    cpu: dict[str, list[float]] = {c: [] for c in names}
    start, rounds = time.perf_counter(), max(reps, 20)
    for r in range(rounds):
        if r >= 3 and time.perf_counter() - start > budget:
            break
        for c in names[r % len(names) :] + names[: r % len(names)]:
            t0, c0 = time.perf_counter(), time.process_time()
            jax.block_until_ready(calls[c]())
            wall[c].append(time.perf_counter() - t0)
            cpu[c].append(time.process_time() - c0)
    found = {c: {"call": median(wall[c]), "cpu": median(cpu[c])} for c in names}
    for c in candidates:
        found[c]["ratio"] = found[c]["call"] / found["asdex"]["call"]
        found[c]["cpu_ratio"] = found[c]["cpu"] / found["asdex"]["cpu"]
    return {"status": "ok", "rounds": len(wall["asdex"]), "paired": found}


def run_candidate(name: str, side: int, candidate: str, reps: int, out: str | None) -> dict:
    if candidate.startswith(PAIRED + ":"):
        budget = float(os.environ.get("DGRAPH_PAIRED_BUDGET", "30"))
        return _paired(name, side, candidate.split(":", 1)[1].split(","), reps, budget)
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
    result: dict = {"status": "ok", "build": {}, "base_mb": peak_mb(), "true_nnz": true}
    if candidate.startswith("dgraph"):
        lang = candidate.split()[1]
        s = (side, side) if name == "minsurf" else (side,)

        def g(u):  # the problem as written (minsurf on its m x m grid), rank 1 outside
            return f(jnp.reshape(u, s))

        compiles = _xla_compiles()
        t0 = time.perf_counter()
        H = dgraph.make_function(g, "hessian", lang, point=[x], weights=w, sparse=True)
        result["build"] = {"make_function": time.perf_counter() - t0}
        result["build_xla"] = sum(compiles)  # XLA compiles within the build (its checks)
        call_args = args if lang == "python" else jargs
        hess, first = first_call(lambda a: H(*a), call_args)
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
        hess, result["compile"] = first_call(lambda a: fn(*a), jargs)
        result["call"], result["call_min"] = _timed_calls(lambda a: fn(*a), jargs, reps)
    elif candidate == "jax.hessian":
        fn = jax.jit(jax.hessian(flat))
        hess, result["compile"] = first_call(lambda a: fn(*a), jargs)
        result["call"], result["call_min"] = _timed_calls(lambda a: fn(*a), jargs, reps)
    else:
        raise ValueError(f"no candidate {candidate!r}")
    result["peak_mb"] = peak_mb()
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


def _spawn(name: str, side: int, candidate: str, opts, out: str) -> dict:
    spec = {
        "name": name,
        "side": side,
        "candidate": candidate,
        "reps": opts.reps,
        "out": out,
        "memory_gb": opts.memory_gb,
    }
    env = {**os.environ, "DGRAPH_PAIRED_BUDGET": str(opts.paired_budget)}
    return spawn(str(Path(__file__).resolve()), spec, opts.timeout, env=env, root=opts.dgraph)


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
                    run = partial(_spawn, name, side, candidate, opts, out)
                    found[candidate] = logged(name, n, candidate, run)
                add_errors(found, ("jax.hessian", "asdex"))
                ran = [c for c in found if c.startswith("dgraph") and found[c]["status"] == "ok"]
                if opts.paired and ran and found.get("asdex", {}).get("status") == "ok":
                    paired = f"{PAIRED}:{','.join(ran)}"
                    run = partial(_spawn, name, side, paired, opts, None)
                    found[PAIRED] = logged(name, n, PAIRED, run)
                for candidate, result in found.items():
                    rows.append({"problem": name, "n": n, "candidate": candidate, **result})
    return rows


def _xla_compiles() -> list[float]:
    """The seconds of each XLA compile from now on, as JAX records them (its
    ``backend_compile_duration`` event): a build's share spent in XLA, which the
    first call of the jitted code then does not pay again."""
    import jax.monitoring

    seconds: list[float] = []

    def heard(event: str, duration: float, **_: object) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            seconds.append(duration)

    jax.monitoring.register_event_duration_secs_listener(heard)
    return seconds


def table(rows: list[dict]) -> str:
    lines = [
        "| problem | unknowns | candidate | build s | compile s | per call s median (least)"
        " | ÷ asdex | ÷ asdex, paired (CPU) | tril s | peak MB (rise) | nnz (true)"
        " | symmetric | rel. error |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_key = {(r["problem"], r["n"], r["candidate"]): r for r in rows}
    for r in rows:
        if r["candidate"] == PAIRED:
            continue  # its ratios are cells of the dgraph rows
        head = f"| {r['problem']} | {r['n']} | {r['candidate']} |"
        if r["status"] != "ok":
            lines.append(f"{head} {r['status']} | | | | | | | | | |")
            continue
        build = seconds_cell(sum(r["build"].values()) if r["build"] else None)
        if r.get("build_xla") is not None:
            build += f" (XLA {seconds_cell(r['build_xla'])})"
        asdex = by_key.get((r["problem"], r["n"], "asdex"), {})
        over = ratio_cell(r, asdex, 2)
        lines.append(
            f"{head} {build} | {seconds_cell(r.get('compile'))}"
            f" | {seconds_cell(r['call'])} ({seconds_cell(r.get('call_min'))}) | {over}"
            f" | {_paired_cell(r, by_key.get((r['problem'], r['n'], PAIRED), {}))}"
            f" | {seconds_cell(r.get('tril'))} | {memory_cell(r)}"
            f" | {r['nnz']} ({r['true_nnz']}) | {r['symmetric']} | {error_cell(r)} |"
        )
    return "\n".join(lines)


def _paired_cell(row: dict, paired: dict) -> str:
    """``row``'s per call over asdex's timed together (wall, and CPU in parentheses),
    the paired worker's status where it failed, a dash where it did not run."""
    if not paired:
        return "—"
    if paired.get("status") != "ok":
        return paired.get("status", "—")[:60]
    mine = paired["paired"].get(row["candidate"], {})
    if "ratio" not in mine:  # asdex's own row, or a candidate not paired
        return "—"
    return f"{mine['ratio']:.2f} ({mine['cpu_ratio']:.2f})"


def main(argv: list[str]) -> None:
    if argv[:1] == ["--worker"]:
        run_worker(argv[1], run_candidate)
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
    parser.add_argument(
        "--no-paired", dest="paired", action="store_false", help="no paired worker (docstring)"
    )
    parser.add_argument(
        "--paired-budget", type=float, default=30.0, help="seconds of the paired worker's calls"
    )
    parser.add_argument("--json", help="write the raw results here")
    parser.add_argument("--dgraph", help="import dgraph from this checkout (default: this one)")
    opts = parser.parse_args(argv)
    opts.sizes = opts.sizes or list(DEFAULT_SIZES)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"{environment()}; load average {load} at the start", flush=True)
    rows = measure(opts)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))
    print(table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
