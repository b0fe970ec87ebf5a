"""dgraph's sparse Hessian on the unconstrained CUTEst problems that asdex checks its
Hessian sparsity detection on (issue 55): the pattern's nonzeros against asdex's
detected ones and the true count, values against ``jax.hessian``, build and per-call
seconds.

    PYTHONPATH=/work/cutest-deps python benchmarks/cutest.py [NAME ...] [--timeout 300]
        [--memory-gb 10] [--json FILE] [--markdown FILE]

The problems are asdex's: the names of ``EXPECTED_HESSIAN_NNZ`` in asdex's
``tests/test_cutest.py`` (``test_hessian_sparsity_cutest``; 126 unconstrained problems,
n <= 2000, ground truth from CUTEst's ``sphess`` at the starting point, produced by its
``tests/setup/generate_cutest_fixtures.py``). Their JAX definitions come from the
``sif2jax`` package (not a dgraph dependency: install it apart, e.g. ``pip install
--no-deps --target DIR sif2jax equinox jaxtyping wadler-lindig beartype``, and put DIR
on ``PYTHONPATH``), at sif2jax's default sizes; ``f(y) = problem.objective(y,
problem.args)`` of one flat vector ``y``, as asdex's test builds it.

Each problem runs in a worker subprocess of its own under ``--timeout`` seconds and an
address-space limit, in float64:

- true pattern: the dense ``jax.hessian`` at three points, the start ``y0`` and
  ``y0 + s u`` with ``u`` standard normal (seed 0 and 1), ``s = 0.1 |y0|`` (0.1 where
  ``y0`` is 0: a relative step keeps VESUVIALS's peak at 3.7e-4 near its data); an entry
  is in it when it is not exactly 0.0 at some point (a NaN or an infinity counts as
  nonzero): ``true``. ``true_above`` counts only the entries above ``RESIDUE`` (1e-12)
  times the largest at that point:
  a cancellation can leave a rounding residue in ``jax.hessian`` (HEART6LS's (a, c):
  ±3.6e-15 against 341, exactly 0 from ``jacfwd(jacfwd(f))``). ``cutest`` is CUTEst's
  count as asdex's test records it (its own problem definitions, at its start point).
- asdex: ``asdex.hessian_sparsity(f, y0)``, its nonzeros and seconds.
- dgraph: ``dgraph.hessian(f, y0, sparse=True)`` (build s: reading JAX's gradient, the
  accumulation, its verification, the generated code and its check), then the CSR at
  the three points: its stored entries are dgraph's pattern; the values' max |H - H_jax| /
  max |H_jax|; per call the median of up to 10 calls. ``NARROWER``: an entry above the
  residue that dgraph does not store (a wrong answer); else ``wider``: an entry stored
  that is exactly 0.0 at every point; else ``exact`` (``exact*``: equal to the entries
  above the residue, the residue not stored). ``refused``: dgraph's one-line error (DGraphError);
  ``error``: any other exception (a bug). ``build CPU s``: the build's
  ``time.process_time`` (the machine may be shared); ``eqns (loops)``: the gradient's
  jaxpr, nested equations counted where used (:func:`jaxpr_size`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

#: asdex's baseline (detected nnz, CUTEst nnz) per problem: ``EXPECTED_HESSIAN_NNZ`` in
#: adrhill/asdex tests/test_cutest.py (the data its test asserts, kept here to compare).
ASDEX_BASELINE: dict[str, tuple[int, int]] = {
    "AKIVA": (4, 4), "ALLINITU": (16, 6), "ARGLINA": (40000, 200), "ARGLINB": (40000, 40000),
    "ARGLINC": (39204, 39204), "ARGTRIGLS": (40000, 40000), "BARD": (9, 9), "BEALE": (4, 3),
    "BENNETT5LS": (9, 9), "BIGGS6": (36, 36), "BOX3": (9, 9), "BOXBODLS": (4, 4),
    "BROWNBS": (4, 2), "BROWNDEN": (16, 16), "CHNROSNB": (148, 148), "CHNRSNBM": (148, 148),
    "CHWIRUT1LS": (9, 9), "CHWIRUT2LS": (9, 9), "CLIFF": (4, 4), "CLUSTERLS": (4, 2),
    "COATING": (2300, 2300), "COOLHANSLS": (81, 39), "CUBE": (4, 4), "DANIWOODLS": (4, 4),
    "DENSCHNA": (4, 4), "DENSCHNB": (4, 4), "DENSCHNC": (4, 4), "DENSCHND": (9, 9),
    "DENSCHNE": (3, 3), "DENSCHNF": (4, 4), "DEVGLA1": (16, 16), "DEVGLA2": (25, 25),
    "DIXMAANA1": (9, 9), "DJTL": (4, 4), "DMN15102LS": (4356, 4356),
    "DMN15103LS": (9801, 9801), "EGGCRATE": (2, 2), "ELATVIDU": (4, 4), "ENGVAL2": (9, 9),
    "ERRINROS": (148, 148), "EXP2": (4, 4), "EXPFIT": (4, 3), "GAUSS1LS": (64, 64),
    "GAUSS2LS": (64, 64), "GAUSS3LS": (64, 64), "GAUSSIAN": (9, 5), "GENROSE": (1498, 1498),
    "GROWTHLS": (9, 9), "HAHN1LS": (49, 49), "HAIRY": (4, 4), "HATFLDD": (9, 9),
    "HATFLDE": (9, 9), "HATFLDFL": (9, 9), "HATFLDFLS": (9, 9), "HEART6LS": (36, 20),
    "HEART8LS": (64, 32), "HELIX": (9, 7), "HILBERTA": (4, 4), "HILBERTB": (100, 100),
    "HIMMELBCLS": (4, 4), "HIMMELBG": (4, 4), "HIMMELBH": (2, 1), "HUMPS": (4, 4),
    "JENSMP": (4, 4), "JUDGE": (4, 4), "KIRBY2LS": (25, 25), "KOWOSB": (16, 16),
    "LANCZOS1LS": (36, 36), "LANCZOS2LS": (36, 36), "LOGHAIRY": (4, 4), "LSC1LS": (9, 9),
    "LSC2LS": (9, 9), "LUKSAN11LS": (298, 298), "LUKSAN12LS": (484, 484),
    "LUKSAN13LS": (484, 482), "LUKSAN14LS": (420, 420), "LUKSAN15LS": (592, 592),
    "LUKSAN16LS": (592, 592), "LUKSAN17LS": (592, 592), "LUKSAN21LS": (494, 494),
    "MARATOSB": (4, 4), "MEXHAT": (4, 4), "MGH09LS": (16, 16), "MGH10LS": (9, 9),
    "MGH10SLS": (9, 9), "MGH17LS": (25, 25), "MGH17SLS": (25, 19), "MISRA1ALS": (4, 4),
    "MISRA1BLS": (4, 4), "MISRA1CLS": (4, 4), "MISRA1DLS": (4, 4), "NELSONLS": (9, 9),
    "OSBORNEA": (25, 25), "OSBORNEB": (121, 117), "PALMER1C": (64, 64), "PALMER1D": (49, 49),
    "PALMER2C": (64, 64), "PALMER3C": (64, 64), "PALMER4C": (64, 64), "PALMER5C": (36, 36),
    "PALMER5D": (16, 16), "PALMER6C": (64, 64), "PALMER7C": (64, 64), "PALMER8C": (64, 64),
    "PENALTY3": (40000, 40000), "PRICE3": (4, 4), "PRICE4": (4, 4), "QING": (100, 99),
    "RAT42LS": (9, 9), "RAT43LS": (16, 16), "ROSENBR": (4, 4), "ROSZMAN1LS": (16, 16),
    "S308": (4, 4), "SISSER": (4, 4), "SNAIL": (4, 4), "SPIN2LS": (10404, 10389),
    "TRIGON1": (100, 100), "VANDANMSLS": (484, 16), "VARDIM": (40000, 40000),
    "VESUVIALS": (64, 46), "VESUVIOLS": (64, 46), "VESUVIOULS": (64, 42),
    "VIBRBEAM": (64, 64), "WAYSEA1": (4, 4), "WAYSEA2": (4, 4), "ZANGWIL2": (4, 4),
}  # fmt: skip


#: An entry of jax.hessian at most this fraction of the largest is a rounding residue.
RESIDUE = 1e-12


def _points(y0, n_points: int = 2):
    """The start and ``n_points`` random points near it."""
    import numpy as np

    scale = np.where(y0 == 0.0, 0.1, 0.1 * np.abs(y0))
    draws = (np.random.default_rng(k).standard_normal(y0.shape) for k in range(n_points))
    return [y0, *(y0 + scale * u for u in draws)]


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:240]


def jaxpr_size(closed) -> dict:
    """Equations of a closed jaxpr, nested ones included (each nested jaxpr counted where
    it is used), its loops (``scan``, ``while``) and nested calls (``pjit``, ``custom_*``)."""
    counts = {"eqns": 0, "top_eqns": len(closed.jaxpr.eqns), "loops": 0, "calls": 0}

    def walk(jaxpr) -> None:
        for eqn in jaxpr.eqns:
            counts["eqns"] += 1
            name = eqn.primitive.name
            if name in ("scan", "while"):
                counts["loops"] += 1
            elif name in ("pjit", "jit", "closed_call", "custom_jvp_call", "custom_vjp_call"):
                counts["calls"] += 1
            for value in eqn.params.values():
                for sub in value if isinstance(value, (tuple, list)) else (value,):
                    inner = getattr(sub, "jaxpr", None)
                    if inner is not None and hasattr(sub, "consts"):
                        walk(inner)
                    elif hasattr(sub, "eqns"):
                        walk(sub)

    walk(closed.jaxpr)
    return counts


def _emit(row: dict) -> None:
    print(json.dumps(row), flush=True)


def _load():
    """jax in float64 and sif2jax's unconstrained problems by name (importing sif2jax
    takes most of a minute: one worker runs many problems)."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import sif2jax

    return {p.name: p for p in sif2jax.unconstrained_minimisation_problems}


class _Alarm(BaseException):  # not caught by an `except Exception` inside
    pass


def _on_alarm(signum, frame):
    raise _Alarm


def run_problem(name: str, problems: dict, timeout: float) -> None:
    """One problem: a JSON line after each phase (a crash keeps what was printed)."""
    import jax
    import numpy as np
    import scipy.sparse as sp

    row: dict = {"name": name, "cutest": ASDEX_BASELINE.get(name, (None, None))[1]}
    if name not in problems:
        row["dgraph"] = "not in sif2jax"
        _emit(row)
        return
    problem = problems[name]
    y0 = np.asarray(problem.y0, dtype=np.float64).ravel()
    row["n"] = int(y0.size)

    def f(y):
        return problem.objective(y, problem.args)

    points = _points(y0)
    dense = jax.jit(jax.hessian(f))
    refs = [np.asarray(dense(p)) for p in points]
    truth = np.zeros(refs[0].shape, dtype=bool)
    above = np.zeros(refs[0].shape, dtype=bool)  # above a rounding residue
    for r in refs:
        truth |= r != 0.0
        above |= ~(np.abs(r) <= RESIDUE * np.max(np.abs(r)))
    row["true"] = int(truth.sum())
    row["true_above"] = int(above.sum())
    _emit(row)

    import asdex

    signal.alarm(int(timeout))
    t0 = time.perf_counter()
    try:
        detected = asdex.hessian_sparsity(f, y0)
        row["asdex_s"] = time.perf_counter() - t0
        row["asdex"] = int(detected.nnz)
        found = np.asarray(detected.todense()).astype(bool)
        row["asdex_missed"] = int((truth & ~found).sum())
    except _Alarm:
        row["asdex"] = f"timeout after {timeout:g} s"
    except Exception as e:  # a peer's failure is a row, not a crash
        row["asdex"] = _one_line(e)
    finally:
        signal.alarm(0)
    _emit(row)

    import dgraph
    from dgraph.errors import DGraphError

    row["jaxpr"] = jaxpr_size(jax.make_jaxpr(jax.grad(f))(y0))
    signal.alarm(int(timeout))
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        H = dgraph.hessian(f, y0, sparse=True)
        row["build_s"] = time.perf_counter() - t0
        row["build_cpu_s"] = time.process_time() - c0
        stored = np.zeros(truth.shape, dtype=bool)
        err = 0.0
        for p, ref in zip(points, refs, strict=True):
            M = sp.csr_array(H(p))
            coo = M.tocoo()
            stored[coo.row, coo.col] = True
            scale = max(float(np.max(np.abs(ref))), 1e-300)
            err = max(err, float(np.max(np.abs(M.toarray() - ref))) / scale)
        row["dgraph_nnz"] = int(stored.sum())
        row["rel_error"] = err
        row["missed"] = int((truth & ~stored).sum())
        row["missed_above"] = int((above & ~stored).sum())
        row["extra"] = int((stored & ~truth).sum())
        times = []
        start = time.perf_counter()
        while len(times) < 10 and (len(times) < 3 or time.perf_counter() - start < 5.0):
            t1 = time.perf_counter()
            H(points[0])
            times.append(time.perf_counter() - t1)
        row["call_s"] = float(np.median(times))
        row["dgraph"] = (
            "NARROWER"
            if row["missed_above"]
            else ("wider" if row["extra"] else ("exact" if not row["missed"] else "exact*"))
        )
        row["method"] = getattr(getattr(H, "generated", None), "method", None)
    except _Alarm:
        row["dgraph"] = "error"
        row["why"] = f"timeout after {timeout:g} s"
    except DGraphError as e:
        row["dgraph"] = "refused"
        row["why"] = _one_line(e)
    except Exception as e:  # a bug, recorded as a row
        row["dgraph"] = "error"
        row["why"] = _one_line(e)
    finally:
        signal.alarm(0)
    row["done"] = True
    _emit(row)


def worker(names: list[str], timeout: float) -> None:
    """The worker: each problem in turn, under a per-phase alarm of ``timeout`` s."""
    signal.signal(signal.SIGALRM, _on_alarm)
    problems = _load()
    for name in names:
        run_problem(name, problems, timeout)


def _pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)


def spawn_all(names: list[str], timeout: float, memory_gb: float, report) -> list[dict]:
    """All ``names`` in worker subprocesses: one worker until it crashes or falls silent
    for ``2 * timeout + 120`` s (killed), then a fresh one for the problems after the one
    it was on (that one's row keeps what it printed, with the status)."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    rows: dict[str, dict] = {}
    todo = list(names)
    while todo:
        spec = json.dumps({"names": todo, "memory_gb": memory_gb, "timeout": timeout})
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", spec],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        current = None
        status = None
        while True:
            try:
                line = lines.get(timeout=2 * timeout + 120 if current else 600)
            except queue.Empty:
                proc.kill()
                status = "killed: no progress (hang or timeout)"
                break
            if not line.startswith("{"):
                if proc.poll() is not None and lines.empty():
                    break
                continue
            row = json.loads(line)
            rows[row["name"]] = row
            current = row["name"]
            if row.get("done") or row.get("dgraph") == "not in sif2jax":
                report(row)
                todo.remove(current)
                current = None
                if not todo:
                    break
        proc.wait()
        if todo:
            name = current or todo[0]
            row = rows.setdefault(name, {"name": name})
            row["dgraph"] = row.get("dgraph", "error")
            row["why"] = status or f"worker exited ({proc.returncode})"
            report(row)
            todo.remove(name)
    return [rows[n] for n in names]


def _cell(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _true_cell(r: dict) -> str:
    """The true count, the count above the residue in parentheses where it differs."""
    true, above = r.get("true"), r.get("true_above")
    return _cell(true) if above in (None, true) else f"{true} ({above})"


def _size_cell(size: dict | None) -> str:
    """The gradient's jaxpr: equations, nested ones included, and its loops."""
    return "–" if not size else f"{size['eqns']} ({size['loops']})"


def table(rows: list[dict]) -> str:
    lines = [
        "| problem | n | CUTEst nnz | true nnz | asdex nnz | dgraph nnz | dgraph | rel. error"
        " | build s | build CPU s | eqns (loops) | per call s | asdex detect s | note |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        asdex = r.get("asdex")
        note = r.get("why", "")
        if isinstance(asdex, str):
            note = f"asdex: {asdex}; {note}"
            asdex = None
        lines.append(
            "| "
            + " | ".join(
                [
                    r["name"],
                    _cell(r.get("n")),
                    _cell(r.get("cutest")),
                    _true_cell(r),
                    _cell(asdex),
                    _cell(r.get("dgraph_nnz")),
                    _cell(r.get("dgraph")),
                    _cell(r.get("rel_error"), 2),
                    _cell(r.get("build_s"), 2),
                    _cell(r.get("build_cpu_s"), 2),
                    _size_cell(r.get("jaxpr")),
                    _cell(r.get("call_s"), 2),
                    _cell(r.get("asdex_s"), 2),
                    note.replace("|", "\\|"),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def summary(rows: list[dict]) -> str:
    from collections import Counter

    kinds = Counter(r.get("dgraph") for r in rows)
    asdex_wider = sum(
        1 for r in rows if isinstance(r.get("asdex"), int) and r["asdex"] > r.get("true", 0)
    )
    parts = [f"{k}: {v}" for k, v in sorted(kinds.items(), key=lambda kv: str(kv[0]))]
    return (
        f"{len(rows)} problems; dgraph's pattern {', '.join(parts)}; "
        f"asdex's detected pattern wider than the true one on {asdex_wider}"
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="problems (default: asdex's 126)")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--memory-gb", type=float, default=10.0)
    parser.add_argument("--json", help="write the rows as JSON")
    parser.add_argument("--markdown", help="write the table as Markdown")
    parser.add_argument(
        "--previous", help="JSON of an earlier run: its rows for the problems not named"
    )
    opts = parser.parse_args(argv)
    done: list[dict] = []

    def report(row: dict) -> None:
        done.append(row)
        print(
            f"{row['name']}: {row.get('dgraph')} true {row.get('true')} dgraph"
            f" {row.get('dgraph_nnz')} asdex {row.get('asdex')} {row.get('why', '')}",
            file=sys.stderr,
            flush=True,
        )
        if opts.json:
            Path(opts.json).write_text(json.dumps(done, indent=1))

    rows = spawn_all(opts.names or sorted(ASDEX_BASELINE), opts.timeout, opts.memory_gb, report)
    if opts.previous:
        again = {r["name"]: r for r in rows}
        earlier = json.loads(Path(opts.previous).read_text())
        rows = [again.get(r["name"], r) for r in earlier]
        rows += [r for r in again.values() if r["name"] not in {e["name"] for e in earlier}]
    where = f"{platform.platform()}, Python {sys.version.split()[0]}"
    text = f"{table(rows)}\n\n{summary(rows)}\n\n{where}\n"
    if opts.markdown:
        Path(opts.markdown).write_text(text)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        spec = json.loads(sys.argv[2])
        if spec.get("memory_gb"):
            size = int(spec["memory_gb"] * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        worker(spec["names"], spec["timeout"])
    else:
        main(sys.argv[1:])
