"""The harness that ``benchmarks/sparse.py`` and ``benchmarks/hessian.py`` share: each
candidate in a worker subprocess of its own (its peak memory its own, under a time and an
address-space limit), its calls timed, its matrix read as CSR and compared with a
reference, and the cells of the Markdown tables they print.
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Signs in a worker's stderr that it ran out of memory.
OUT_OF_MEMORY = ("RESOURCE_EXHAUSTED", "MemoryError", "std::bad_alloc")

# ----------------------------------------------------------------------------- worker


def peak_mb() -> float:
    """This process's peak resident memory in MB (``ru_maxrss``, kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_call(fn, arg):
    """``fn(arg)`` once, waited for: its result and seconds (JAX: the compile)."""
    import jax

    t0 = time.perf_counter()
    out = jax.block_until_ready(fn(arg))
    return out, time.perf_counter() - t0


def median(times: list[float]) -> float:
    import numpy as np

    return float(np.median(times))


def log_slope(sizes: Sequence[float], seconds: Sequence[float], floor: float = 1e-9) -> float:
    """The growth exponent: the least-squares slope of log(seconds) over log(size), each
    time at least ``floor`` (a time read as 0 would have no logarithm)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, floor)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return covariance / sum((x - mx) ** 2 for x in xs)


def pairwise_exponents(sizes: Sequence[float], seconds: Sequence[float]) -> list[str]:
    """Each step's growth exponent, ``a->b: slope``, between consecutive sizes."""
    return [
        f"{a}->{b}: {math.log(t / s) / math.log(b / a):.2f}"
        for a, b, s, t in zip(sizes, sizes[1:], seconds, seconds[1:], strict=False)
    ]


class Slow(BaseException):  # not an Exception: code under survey catching those keeps it
    """A survey case past its CPU limit (:func:`survey_case`)."""


def _slow(signum: int, frame: object) -> None:
    raise Slow()


def survey_case(run: Callable[[], str], limit: float) -> tuple[str, float]:
    """One survey case: ``run()``'s own message, or ``REFUSED`` and a ``DGraphError``'s
    first line, ``ERROR`` and another exception's with the line it came from, ``SLOW``
    past ``limit`` CPU seconds (SIGPROF); with the CPU seconds it took."""
    import signal
    import traceback

    import dgraph

    signal.signal(signal.SIGPROF, _slow)
    t0 = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        msg = run()
    except Slow:
        msg = f"SLOW over {limit:.0f} CPU-s"
    except Exception as e:
        mine = isinstance(e, dgraph.DGraphError)
        first = str(e).splitlines()[0][:240] if str(e) else ""
        tb = traceback.format_exc().strip().splitlines()
        at = "" if mine else " @ " + (tb[-3].strip()[:100] if len(tb) > 2 else "")
        msg = f"{'REFUSED' if mine else 'ERROR'} {type(e).__name__}: {first}{at}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return msg, time.process_time() - t0


def made_verdict(made: Any, found: tuple[str, float]) -> str:
    """A survey case's line for ``make_function``'s ``made`` whose value compared as
    ``found`` (verdict, error): an ``ok`` not verified is ``NOTVER``, with the check's
    status."""
    verdict, err = found
    verified = getattr(made.generated, "verified", "?")
    if verdict == "ok" and verified is not True:
        verdict = "NOTVER"
    why = "" if verified is True else " | " + str(made.generated.check.status)[:160]
    return f"{verdict} err {err:.1e} verified={verified}{why}"


def outcome_table(rows: dict[tuple, tuple[str, str]], kinds: Sequence[str]) -> None:
    """A survey's Markdown table: its cases (``(name, where, kind) -> (outcome, line)``)
    counted by outcome and kind."""
    print("| outcome | " + " | ".join(kinds) + " |")
    for v in sorted({v for v, _ in rows.values()}):
        counts = [sum(1 for k, r in rows.items() if k[2] == c and r[0] == v) for c in kinds]
        print(f"| {v} | " + " | ".join(map(str, counts)) + " |")


def not_ok(rows: dict[tuple, tuple[str, str]], width: int) -> None:
    """Every survey case whose outcome is not ``ok``, its line cut at ``width``."""
    for _, (v, line) in sorted(rows.items()):
        if v != "ok":
            print(line[:width])


def survey_table(paths: Sequence[str], cases: Sequence[str], noun: str) -> None:
    """A survey log's counts per outcome and case (a later line for the same name, point
    and case replaces an earlier one), then every case that is not right and verified;
    ``noun`` names what the first column counts (problems, energies)."""
    rows: dict[tuple, tuple[str, str]] = {}
    for line in (ln for p in paths for ln in Path(p).read_text().splitlines()):
        parts = line.split()
        if len(parts) >= 5 and parts[2] in cases:
            rows[tuple(parts[:3])] = (parts[4], line.rstrip())
    outcome_table(rows, [c for c in cases if any(k[2] == c for k in rows)])
    print(f"{len(rows)} cases, {len({k[0] for k in rows})} {noun}")
    not_ok(rows, 260)


def jacobian_cpu(f: Callable, point: Sequence) -> tuple[float, int]:
    """``dgraph.jacobian(f, point=point)``'s CPU seconds and its graph's vertices; it must
    verify."""
    import dgraph

    start = time.process_time()
    es = dgraph.jacobian(f, point=point)
    spent = time.process_time() - start
    assert es.verified, getattr(f, "__name__", f)
    return spent, len(es.graph.vertices)


def timed_calls(
    fn, arg, reps: int, budget: float = 20.0, pick: Callable[[list[float]], float] = median
) -> float:
    """``pick`` (the median; ``min``: the least disturbed call) of the seconds of up to
    ``reps`` calls (at least 3, fewer past ``budget`` seconds)."""
    import jax

    times: list[float] = []
    start = time.perf_counter()
    while len(times) < reps and (len(times) < 3 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(arg))
        times.append(time.perf_counter() - t0)
    return pick(times)


def one_matrix(result):
    """The matrix as one ``scipy.sparse`` CSR array, from what a candidate returns: a
    dict with one entry ``{(y, x): block}`` (dgraph before the one-matrix API), a BCOO,
    a SciPy sparse array or a dense array."""
    import numpy as np
    import scipy.sparse as sp

    if isinstance(result, dict):
        if len(result) != 1:
            raise ValueError(f"expected one Jacobian block, got {len(result)}")
        (result,) = result.values()
    if sp.issparse(result):
        return sp.csr_array(result)
    if hasattr(result, "indices") and hasattr(result, "data") and hasattr(result, "nse"):
        idx = np.asarray(result.indices)
        coo = sp.coo_array((np.asarray(result.data), (idx[:, 0], idx[:, 1])), shape=result.shape)
        return coo.tocsr()  # duplicates summed, as BCOO's todense does
    return sp.csr_array(np.asarray(result))


def run_worker(spec: str, run_candidate: Callable[..., dict]) -> None:
    """The worker's side: ``run_candidate(name, side, candidate, reps, out)`` under the
    spec's address-space limit, its result printed as one JSON line."""
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


# ----------------------------------------------------------------------------- parent


def spawn(
    script: str,
    spec: dict,
    timeout: float,
    env: dict | None = None,
    out_of_memory: str = "out of memory",
    root: str | None = None,
) -> dict:
    """``script --worker SPEC`` in a fresh interpreter (``env``: its environment, this
    one's by default; ``root``, else this repository, first on its path): the worker's
    result, or a one-line status (``out_of_memory`` heads the one for a worker that ran
    out)."""
    env = dict(os.environ if env is None else env)
    here = root or str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run(
            [sys.executable, script, "--worker", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {timeout:g} s"}
    for line in reversed(done.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1].strip()
    if any(sign in done.stderr for sign in OUT_OF_MEMORY):
        return {"status": f"{out_of_memory}: {tail[:120]}"}
    return {"status": f"failed (exit {done.returncode}): {tail[:200]}"}


def logged(name: str, n: int, candidate: str, run: Callable[[], dict]) -> dict:
    """``run()``'s result, its status and seconds written to stderr as it finishes."""
    start = time.perf_counter()
    found = run()
    print(
        f"  {name} n={n} {candidate}: {found['status']} ({time.perf_counter() - start:.1f} s)",
        file=sys.stderr,
        flush=True,
    )
    return found


def relative_error(path: str, reference: str) -> float:
    """max |M - M_ref| / max |M_ref| of two CSR files (inf: shapes differ)."""
    import numpy as np
    import scipy.sparse as sp

    mine, ref = sp.load_npz(path), sp.load_npz(reference)
    if mine.shape != ref.shape:
        return math.inf
    scale = float(np.abs(ref.data).max()) if ref.nnz else 0.0
    diff = (mine - ref).tocsr()
    worst = float(np.abs(diff.data).max()) if diff.nnz else 0.0
    return worst / scale if scale else worst


def add_errors(found: dict[str, dict], references: Sequence[str]) -> None:
    """Each result's ``reference`` (the first of ``references`` that wrote a matrix) and
    its ``error`` against it."""
    reference = next((c for c in references if found.get(c, {}).get("matrix")), None)
    for candidate, result in found.items():
        if reference and result.get("matrix") and candidate != reference:
            result["error"] = relative_error(result["matrix"], found[reference]["matrix"])
        result["reference"] = reference


def environment(packages: Sequence[str] = ("jax", "numpy", "scipy", "asdex", "sparsejac")) -> str:
    """One line: the machine and the versions of ``packages``."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in packages:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} not installed")
    cpu = platform.processor() or platform.machine()
    return f"{platform.platform()}, {cpu}, {os.cpu_count()} cores; " + ", ".join(found)


# ----------------------------------------------------------------------------- table cells


def seconds_cell(value: float | None) -> str:
    """Seconds to three digits (small ones in e-notation; None: a dash)."""
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) >= 1e-3 else f"{value:.2e}"


def ratio_cell(row: dict, over: dict, digits: int, applies: bool = True) -> str:
    """``row``'s per call over ``over``'s (a dash where ``over`` did not run, is ``row``'s
    own candidate, or ``applies`` is false)."""
    if applies and over.get("status") == "ok" and over["candidate"] != row["candidate"]:
        return f"{row['call'] / over['call']:.{digits}f}"
    return "—"


def memory_cell(row: dict) -> str:
    """Peak MB and, in parentheses, its rise over the worker's after its imports."""
    return f"{row['peak_mb']:.0f} ({row['peak_mb'] - row['base_mb']:.0f})"


def error_cell(row: dict) -> str:
    """The relative error to the reference ("ref" for the reference itself)."""
    if "error" in row:
        return f"{row['error']:.1e}"
    return "ref" if row.get("reference") == row["candidate"] else "—"
