"""Seconds of ``dgraph codegen`` on long programs (issue 40, item 0), and growth exponents;
or of ``dgraph compare --budget B`` against its ceiling (issue 52, item 7).

    python benchmarks/long_programs.py [--chains 500,1000,2000,5000,10000]
        [--sums 250,500,1000,2000] [--lang python] [--timeout 300] [--write DIR]
        [--compare B] [--reps N]
    python benchmarks/long_programs.py --hessians 15,30,60,120 [--hessian-n 2000]

Inputs, written as traces: the chain ``v1 = sin(x)``, ``v2 = sin(v1)``, ... of n steps
(the shape of every explicit time-stepping loop) and the single statement
``y = x**1*y0 + x**2*y0 + ... + x**n*y0`` of n terms. Each is given to
``python -m dgraph codegen FILE -o jac.<ext> --json`` in a fresh process (import
included), and the wall seconds of that process are reported with the shipped method, its
operations and whether its check passed; CPU seconds (user + system) beside the wall
seconds, which a loaded machine inflates. The growth exponent is the least-squares slope
of log seconds over log size (steps, or terms) over the sizes measured; 1 is linear.
``--write DIR`` only writes the traces there. ``--compare B`` runs ``python -m dgraph
compare FILE --budget B --json`` instead, ``--reps`` times (default 3) each, and reports
the median wall seconds of the whole process against the ceiling
(:func:`dgraph.methods.compare.compare_ceiling`), whether the comparison was cut by time
and what became of codegen's choice (shipped, or why not).

``--hessians K,...`` instead times ``dgraph.hessian(f, x, sparse=True)`` (issue 55) of
the JAX function of K terms ``f(x) = Σ_k sum(sin(x[k:n-K+k] · c_k) · x[K-k:n-k])``
(``c_k = 1 + 0.01 k``, n = ``--hessian-n`` = 2,000 unknowns: K slices, products and sums
each, a long program whose Hessian has 2K - 1 diagonals), each K in a fresh process
(imports not counted): the build's CPU seconds (user and system of the process, not
counting children), the process's peak RSS, the Hessian's stored entries and whether
the code and its expression set verified; then the growth exponent in K.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import log_slope  # benchmarks/, first on the path

HERE = Path(__file__).resolve().parent.parent

__all__ = ["chain_trace", "hessian_build", "slices_sum", "slope", "sum_trace"]


def chain_trace(n: int) -> str:
    """The trace of ``v_k = sin(v_{k-1})``, k = 1..n, from input ``x`` to output ``y``."""
    lines = [f"# {n}-step chain v = sin(v)", "inputs: x", "outputs: y"]
    previous = "x"
    for k in range(1, n):
        lines.append(f"v{k} = sin({previous})")
        previous = f"v{k}"
    lines.append(f"y = sin({previous})")
    return "\n".join(lines) + "\n"


def sum_trace(n: int) -> str:
    """The one-statement trace ``y = x**1*y0 + ... + x**n*y0`` over inputs ``x, y0``."""
    terms = " + ".join(f"x**{k}*y0" for k in range(1, n + 1))
    return f"# {n}-term statement\ninputs: x, y0\noutputs: y\ny = {terms}\n"


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of log seconds over log size."""
    return log_slope([n for n, _ in points], [t for _, t in points])


def run(trace: Path, out: Path, timeout: float, extra: list[str]) -> dict:
    command = [sys.executable, "-m", "dgraph", "codegen", str(trace), "-o", str(out), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [*command, *extra],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(HERE)},
            cwd=trace.parent,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"wall": None, "error": f"> {timeout:g} s"}
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        return {"wall": wall, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    data = json.loads(done.stdout.splitlines()[0])
    checked = data.get("check", {}).get("ok")
    fields = {k: data.get(k) for k in ("method", "mults", "adds")}
    return {"wall": round(wall, 2), "cpu": round(cpu, 2), "checked": checked, **fields}


def slices_sum(K: int, n: int):
    """The JAX function of K terms of ``--hessians`` (module docstring)."""
    import jax.numpy as jnp

    def f(x):
        total = 0.0
        for k in range(K):
            term = jnp.sin(x[k : n - K + k] * (1.0 + 0.01 * k)) * x[K - k : n - k]
            total = total + jnp.sum(term)
        return total

    return f


def hessian_build(K: int, n: int) -> dict:
    """In this process: ``dgraph.hessian`` of :func:`slices_sum` at n points in (0.1,
    0.9), its build's CPU seconds, peak RSS (MiB), stored entries, checks."""
    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    import dgraph

    x = np.linspace(0.1, 0.9, n)
    f = slices_sum(K, n)
    start = time.process_time()
    H = dgraph.hessian(f, x, sparse=True)
    built = time.process_time() - start
    generated = H.generated
    return {
        "K": K,
        "n": n,
        "cpu": round(built, 2),
        "rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "nnz": int(H(x).nnz),
        "code_checked": bool(generated.check.ok),
        "verified": bool(generated.expression_set.verified),
        "method": generated.expression_set.method,
    }


def run_hessian(K: int, n: int, timeout: float) -> dict:
    """:func:`hessian_build` in a fresh process."""
    command = [sys.executable, __file__, "--hessian-child", str(K), "--hessian-n", str(n)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(HERE)},
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"K": K, "error": f"> {timeout:g} s"}
    if done.returncode != 0:
        return {"K": K, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def hessian_table(sizes: list[int], n: int, timeout: float) -> None:
    """The ``--hessians`` table and the growth exponent of the build's CPU seconds in K."""
    print("| K | n | build CPU s | peak RSS MiB | nnz | method | code checked | verified |")
    print("|---|---|---|---|---|---|---|---|")
    points = []
    for K in sizes:
        row = run_hessian(K, n, timeout)
        if "error" in row:
            print(f"| {K} | {n} | {row['error']} | | | | | |", flush=True)
            continue
        print(
            f"| {K} | {n} | {row['cpu']} | {row['rss_mib']} | {row['nnz']:,} | {row['method']}"
            f" | {row['code_checked']} | {row['verified']} |",
            flush=True,
        )
        points.append((K, row["cpu"]))
    if len(points) >= 2:
        print(f"growth exponent in K: {slope(points):.2f} (CPU)")


def run_compare(trace: Path, budget: float, reps: int, timeout: float) -> dict:
    """``dgraph compare --budget`` on ``trace``, ``reps`` times: wall seconds (median and
    each), load average before, whether the time ceiling cut anything, codegen's choice."""
    from dgraph.methods.compare import compare_ceiling

    command = [sys.executable, "-m", "dgraph", "compare", str(trace), "--budget", f"{budget:g}"]
    walls, cut, choice = [], set(), set()
    load = os.getloadavg()[0]
    for _ in range(reps):
        t0 = time.perf_counter()
        try:
            done = subprocess.run(
                [*command, "--json"],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(HERE)},
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {"error": f"> {timeout:g} s"}
        walls.append(round(time.perf_counter() - t0, 2))
        if not done.stdout.strip():
            return {"wall": walls, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
        data = json.loads(done.stdout.splitlines()[0])
        cut.add(data["cut_by_time"])
        codegen = data.get("codegen", {})
        choice.add(codegen.get("shipped") or codegen.get("skipped") or json.dumps(codegen))
    return {
        "median": sorted(walls)[len(walls) // 2],
        "wall": walls,
        "ceiling": compare_ceiling(budget),
        "load": round(load, 2),
        "cut_by_time": sorted(cut),
        "codegen": sorted(choice),
    }


def _sizes(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", default="500,1000,2000,5000,10000")
    parser.add_argument("--sums", default="250,500,1000,2000")
    parser.add_argument("--lang", default="python", choices=["python", "c", "jax", "cuda"])
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--write", type=Path, help="only write the traces into this folder")
    parser.add_argument("--compare", type=float, help="time dgraph compare --budget B instead")
    parser.add_argument("--reps", type=int, default=3, help="runs of each compare (median)")
    parser.add_argument("--hessians", help="time dgraph.hessian of K terms instead: K,K,...")
    parser.add_argument("--hessian-n", type=int, default=2000, help="unknowns of --hessians")
    parser.add_argument("--hessian-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help="more codegen arguments (after --)")
    args = parser.parse_args()
    if args.hessian_child is not None:
        print(json.dumps(hessian_build(args.hessian_child, args.hessian_n)))
        return
    if args.hessians:
        hessian_table(_sizes(args.hessians), args.hessian_n, args.timeout)
        return
    suffix = {"python": "py", "c": "c", "jax": "py", "cuda": "cu"}[args.lang]
    extra = ["--lang", args.lang, *args.extra]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.write or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for label, sizes, make in (
            ("chain", _sizes(args.chains), chain_trace),
            ("sum", _sizes(args.sums), sum_trace),
        ):
            points = []
            for n in sizes:
                trace = folder / f"{label}_{n}.trace"
                trace.write_text(make(n))
                if args.write:
                    continue
                if args.compare is not None:
                    row = run_compare(trace, args.compare, args.reps, args.timeout)
                    print(f"{label} {n}: {json.dumps(row)}", flush=True)
                    continue
                row = run(trace, Path(tmp) / f"out.{suffix}", args.timeout, extra)
                print(f"{label} {n}: {json.dumps(row)}", flush=True)
                if row.get("wall") is not None and "error" not in row:
                    points.append((n, row["wall"], row["cpu"]))
            if len(points) >= 2:
                wall = slope([(n, w) for n, w, _ in points])
                cpu = slope([(n, c) for n, _, c in points])
                print(f"{label}: growth exponent {wall:.2f} (wall), {cpu:.2f} (CPU)")


if __name__ == "__main__":
    main()
