"""Sparse Jacobians of PDE residuals at 10^4-10^6 unknowns: dgraph against asdex,
sparsejac, dense ``jax.jacfwd`` and one evaluation of F (issue 42, "What must be shown").

    python benchmarks/sparse.py [SIZE ...] [--quick] [--functions brusselator laplace3d]
        [--candidates ...] [--dgraph-max N] [--dense-limit N] [--reps 10]
        [--timeout 600] [--memory-gb 8] [--allocator default|reuse] [--json FILE]

The residuals (:mod:`sparse_functions`): the 2-D Brusselator on an N x N periodic grid
(asdex's and SciML's benchmark, 2 N^2 unknowns) and ``lap(u) + exp(u)`` on an n^3 grid with
zero Dirichlet padding; each SIZE is a target count of unknowns (default 10^4 10^5 10^6;
``--quick``: 10^3 and 10^4), the grid the nearest to it.

Every candidate runs in its own subprocess (``--worker``), so its peak memory
(``ru_maxrss``, and the rise over the process after its imports) is its own, under
``--timeout`` seconds and an address-space limit of ``--memory-gb``:

- ``F jax`` / ``F numpy``: one evaluation of the residual (jitted JAX; the NumPy twin).
- ``dgraph python`` / ``dgraph jax``: ``from_jax(F, x, level="array")`` (graph s), then
  ``make_function(g, "jacobian", lang=..., sparse=True)`` (make_function s: accumulation,
  verification, code); the JAX one called as it is (its values are one jitted function,
  its pattern a device array made once; compile s: its first call).
- ``asdex``: ``asdex.jacobian(F, x)`` (detection and coloring s), wrapped in ``jax.jit``.
- ``sparsejac``: ``sparsejac.jacfwd(F, sparsity)`` given asdex's detected pattern
  (sparsejac has no detection: its build is asdex's detection plus its own coloring).
- ``jacfwd``: dense ``jax.jit(jax.jacfwd(F))``, up to ``--dense-limit`` unknowns.
- ``floor: nnz written (python | jax)``: in a fresh worker of its own after dgraph's, a
  call that only writes as many doubles as J has nonzeros (``np.full`` / jitted
  ``jnp.full`` of one input entry): the least any call returning J's values fresh does,
  its ratio to F the bound on ``÷ F`` that no method can beat. (Measured in dgraph's
  worker after its build, it found the allocator's pages warm that J's own call did not.)

``--allocator reuse`` runs every worker with glibc's ``MALLOC_MMAP_THRESHOLD_`` and
``MALLOC_TRIM_THRESHOLD_`` at 4 GB: a freed buffer stays in the heap and the next call
reuses its pages. By default (``default``) glibc gives every buffer over 32 MB its own
fresh pages, and every call that returns one pays their first touch (about 1.3 s per GB
on the Firecracker VM of RESULTS.md): at 10⁶ unknowns J's 50-56 MB of values cost
20-30 ms per call whatever computes them, more than the whole of F.

Per call: the median of up to ``--reps`` calls after the first (fewer where they take
long, at least 3). Values: each Jacobian is written as a CSR file and compared with
jacfwd's (asdex's where the dense one was not run): max |J - J_ref| / max |J_ref|. Ratios
come from the same run: per call over asdex's per call and over F's (jitted) per call.
Growth exponents: the log-log slope of build and per-call seconds between consecutive
sizes. A candidate whose package is missing reads "not installed".
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

# run as a script (not loaded by file with its imports): its folder on the path
if not {"harness", "sparse_functions"} <= sys.modules.keys():
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (
    add_errors,
    environment,
    error_cell,
    first_call,
    logged,
    memory_cell,
    one_matrix,
    peak_mb,
    ratio_cell,
    run_worker,
    seconds_cell,
    spawn,
    timed_calls,
)
from sparse_functions import FUNCTIONS, grid, point, unknowns

CANDIDATES = (
    "F jax",
    "F numpy",
    "dgraph python",
    "dgraph jax",
    "asdex",
    "sparsejac",
    "jacfwd",
)
JACOBIANS = ("dgraph python", "dgraph jax", "asdex", "sparsejac", "jacfwd")
NEEDS = {  # the packages a candidate needs beyond jax and numpy
    "dgraph python": ("dgraph",),
    "dgraph jax": ("dgraph",),
    "asdex": ("asdex",),
    "sparsejac": ("sparsejac", "asdex"),
}
DEFAULT_SIZES = (10**4, 10**5, 10**6)
# glibc's settings under ``--allocator reuse``: freed buffers kept for the next call
REUSE = {"MALLOC_MMAP_THRESHOLD_": str(4 * 2**30), "MALLOC_TRIM_THRESHOLD_": str(4 * 2**30)}
QUICK_SIZES = (10**3, 10**4)


# ----------------------------------------------------------------------------- worker


def _floor(lang: str, nnz: int, arg, reps: int) -> float:
    """Per-call seconds of writing ``nnz`` doubles that depend on the input (jitted JAX or
    NumPy): a lower bound for any call that returns J's values fresh."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    if lang == "jax":
        fn = jax.jit(lambda x: jnp.full(nnz, x[0]))
        first_call(fn, arg)
    else:

        def fn(x):
            return np.full(nnz, x[0])

    return timed_calls(fn, arg, reps)


def run_candidate(name: str, side: int, candidate: str, reps: int, out: str | None) -> dict:
    """Build and time one candidate on one residual and grid, in this process."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    f, f_numpy, _ = FUNCTIONS[name]
    x = point(name, side)
    xj = jnp.asarray(x)
    jax.block_until_ready(xj)
    result: dict = {"status": "ok", "build": {}}
    if candidate.startswith("dgraph"):
        import dgraph
        from dgraph.frontends import from_jax
    elif candidate in ("asdex", "sparsejac"):
        import asdex
        import sparsejac

        del asdex, sparsejac  # imported before the baseline memory reading
    result["base_mb"] = peak_mb()
    jac = None
    if candidate == "F jax":
        fn = jax.jit(f)
        _, result["compile"] = first_call(fn, xj)
        result["call"] = timed_calls(fn, xj, reps)
    elif candidate == "F numpy":
        result["call"] = timed_calls(f_numpy, x, reps)
    elif candidate.startswith("dgraph"):
        lang = candidate.split()[1]
        t0 = time.perf_counter()
        g = from_jax(f, x, level="array")
        t1 = time.perf_counter()
        J = dgraph.make_function(g, "jacobian", lang=lang, sparse=True)
        t2 = time.perf_counter()
        result["build"] = {"graph": t1 - t0, "make_function": t2 - t1}
        arg = x if lang == "python" else xj
        fn = J  # JAX's: its values one jitted function, the pattern a device array (a
        # jax.jit around J would copy the constant pattern out on every call)
        jac, first = first_call(fn, arg)
        if lang == "jax":
            result["compile"] = first
        result["call"] = timed_calls(fn, arg, reps)
    elif candidate == "asdex":
        import asdex

        t0 = time.perf_counter()
        J = asdex.jacobian(f, xj)
        result["build"] = {"detect+color": time.perf_counter() - t0}
        fn = jax.jit(J)
        jac, result["compile"] = first_call(fn, xj)
        result["call"] = timed_calls(fn, xj, reps)
    elif candidate == "sparsejac":
        import asdex
        import sparsejac

        t0 = time.perf_counter()
        pattern = asdex.jacobian_sparsity(f, xj).to_bcoo()
        t1 = time.perf_counter()
        J = sparsejac.jacfwd(f, sparsity=pattern)
        t2 = time.perf_counter()
        result["build"] = {"detect (asdex)": t1 - t0, "color": t2 - t1}
        fn = jax.jit(J)
        jac, result["compile"] = first_call(fn, xj)
        result["call"] = timed_calls(fn, xj, reps)
    elif candidate.startswith("floor"):  # "floor LANG NNZ": J's nnz doubles written
        _, lang, nnz = candidate.split()
        result["call"] = _floor(lang, int(nnz), xj if lang == "jax" else x, reps)
    elif candidate == "jacfwd":
        fn = jax.jit(jax.jacfwd(f))
        jac, result["compile"] = first_call(fn, xj)
        result["call"] = timed_calls(fn, xj, reps)
    else:
        raise ValueError(f"no candidate {candidate!r}")
    result["peak_mb"] = peak_mb()
    if jac is not None:
        import scipy.sparse as sp

        matrix = one_matrix(jac)
        del jac
        result["nnz"] = int(matrix.nnz)
        result["shape"] = list(matrix.shape)
        if out:
            sp.save_npz(out, matrix, compressed=False)
            result["matrix"] = out
    elif candidate == "F jax":
        result["shape"] = [int(np.size(f(xj))), int(x.size)]
    return result


# ----------------------------------------------------------------------------- parent


def _missing(candidate: str) -> str | None:
    for package in ("jax", "numpy", *NEEDS.get(candidate, ())):
        if importlib.util.find_spec(package) is None:
            return f"not installed ({package})"
    return None


def _spawn(name: str, side: int, candidate: str, opts, out: str) -> dict:
    """One candidate in a fresh interpreter; its result or a one-line status."""
    missing = None if candidate.startswith("floor") else _missing(candidate)
    if missing:
        return {"status": missing}
    spec = {
        "name": name,
        "side": side,
        "candidate": candidate,
        "reps": opts.reps,
        "out": out,
        "memory_gb": opts.memory_gb,
    }
    env = dict(os.environ)
    if opts.allocator == "reuse":
        env.update(REUSE)
    else:
        for key in REUSE:
            env.pop(key, None)
    limit = f"address space limit {opts.memory_gb:g} GB" if opts.memory_gb else "no limit"
    script = str(Path(__file__).resolve())
    return spawn(script, spec, opts.timeout, env, out_of_memory=f"out of memory ({limit})")


def _skip(candidate: str, n: int, opts) -> str | None:
    if candidate.startswith("dgraph") and opts.dgraph_max and n > opts.dgraph_max:
        return f"skipped (above --dgraph-max {opts.dgraph_max})"
    if candidate == "jacfwd" and n > opts.dense_limit:
        return f"skipped (dense: {8 * n * n / 2**30:.0f} GiB)"
    return None


def measure(opts) -> list[dict]:
    """Every candidate at every function and size, one subprocess each."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="dgraph-sparse-") as tmp:
        for name in opts.functions:
            for target in opts.sizes:
                side = grid(name, target)
                n = unknowns(name, side)
                found: dict[str, dict] = {}
                for candidate in opts.candidates:
                    skip = _skip(candidate, n, opts)
                    out = os.path.join(tmp, f"{name}-{n}-{candidate.replace(' ', '_')}.npz")
                    run = (
                        partial(dict, status=skip)
                        if skip
                        else partial(_spawn, name, side, candidate, opts, out)
                    )
                    found[candidate] = logged(name, n, candidate, run)
                add_errors(found, ("jacfwd", "asdex"))
                for candidate, result in found.items():
                    rows.append(
                        {"function": name, "side": side, "n": n, "candidate": candidate, **result}
                    )
                    if candidate.startswith("dgraph") and result.get("nnz"):
                        rows.append(_floor_row(name, side, n, candidate, result, opts, tmp))
    return rows


def _floor_row(name: str, side: int, n: int, candidate: str, result: dict, opts, tmp) -> dict:
    """The floor of a dgraph candidate: J's nnz doubles written, in a fresh worker (the
    least a call returning J's values does, under the same allocator as J's call)."""
    lang = candidate.split()[1]
    found = _spawn(name, side, f"floor {lang} {result['nnz']}", opts, "")
    row = {"function": name, "side": side, "n": n, "candidate": f"floor: nnz written ({lang})"}
    return {**row, **found, "nnz": result["nnz"]}


def _build(row: dict) -> float | None:
    return sum(row["build"].values()) if row.get("build") else None


def table(rows: list[dict]) -> str:
    """The Markdown table of every candidate, with ratios from the same run."""
    lines = [
        "| function | unknowns | candidate | build s (parts) | compile s | per call s"
        " | ÷ asdex | ÷ F | peak MB (rise) | nnz | rel. error |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_key = {(r["function"], r["n"], r["candidate"]): r for r in rows}
    for r in rows:
        head = f"| {r['function']} | {r['n']} | {r['candidate']} |"
        if r["status"] != "ok":
            lines.append(f"{head} {r['status']} | | | | | | | |")
            continue
        parts = " + ".join(f"{k} {seconds_cell(v)}" for k, v in r["build"].items())
        build = f"{seconds_cell(_build(r))} ({parts})" if r["build"] else "—"
        asdex = by_key.get((r["function"], r["n"], "asdex"), {})
        f_jax = by_key.get((r["function"], r["n"], "F jax"), {})
        over_asdex = ratio_cell(r, asdex, 2, applies=r["candidate"] in JACOBIANS)
        over_f = ratio_cell(r, f_jax, 1)
        lines.append(
            f"{head} {build} | {seconds_cell(r.get('compile'))} | {seconds_cell(r['call'])}"
            f" | {over_asdex} | {over_f}"
            f" | {memory_cell(r)} | {r.get('nnz', '—')} | {error_cell(r)} |"
        )
    return "\n".join(lines)


def _slope(t0: float | None, t1: float | None, n0: int, n1: int) -> str:
    if not t0 or not t1:
        return "—"
    return f"{math.log(t1 / t0) / math.log(n1 / n0):.2f}"


def exponents(rows: list[dict]) -> str:
    """Growth exponents of build and per-call seconds in n between consecutive sizes."""
    lines = [
        "| function | candidate | sizes | build exponent | per-call exponent |",
        "|---|---|---|---|---|",
    ]
    series: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        if r["status"] == "ok":
            series.setdefault((r["function"], r["candidate"]), []).append(r)
    for (name, candidate), found in series.items():
        found.sort(key=lambda r: r["n"])
        for a, b in itertools.pairwise(found):
            lines.append(
                f"| {name} | {candidate} | {a['n']} → {b['n']}"
                f" | {_slope(_build(a), _build(b), a['n'], b['n'])}"
                f" | {_slope(a['call'], b['call'], a['n'], b['n'])} |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--worker"]:
        run_worker(argv[1], run_candidate)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, help="target unknowns (default 1e4 1e5 1e6)")
    parser.add_argument("--quick", action="store_true", help="sizes 1e3 and 1e4")
    parser.add_argument(
        "--functions", nargs="+", choices=sorted(FUNCTIONS), default=sorted(FUNCTIONS)
    )
    parser.add_argument("--candidates", nargs="+", choices=CANDIDATES, default=list(CANDIDATES))
    parser.add_argument(
        "--dgraph-max", type=int, default=0, help="skip dgraph above this n (0: never)"
    )
    parser.add_argument("--dense-limit", type=int, default=15000, help="jacfwd up to this n")
    parser.add_argument("--reps", type=int, default=10, help="calls timed per candidate")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per candidate")
    parser.add_argument(
        "--memory-gb", type=float, default=8.0, help="address space per candidate (0: none)"
    )
    parser.add_argument(
        "--allocator",
        choices=("default", "reuse"),
        default="default",
        help="glibc as it is, or keeping freed buffers for the next call (see above)",
    )
    parser.add_argument("--json", help="write the raw results here")
    opts = parser.parse_args(argv)
    opts.sizes = opts.sizes or list(QUICK_SIZES if opts.quick else DEFAULT_SIZES)
    print(f"{environment()}; allocator {opts.allocator}", flush=True)
    rows = measure(opts)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    print()
    print(exponents(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
