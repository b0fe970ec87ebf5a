"""How every stage grows with graph size: time against edges, with the fitted exponent k
of time ~ edges^k, on random layered graphs (10^3–10^5 edges), Chebyshev polynomials and
spherical harmonics; tracing a NumPy-style running sum (edges and seconds against steps);
and whether ``best`` keeps its budget as graphs grow.

Run: python benchmarks/scale.py [--quick] [--layered | --tracing] (prints Markdown
tables; benchmarks/run.sh records them; ``--layered``: the layered table alone,
``--tracing``: the NumPy-style tracing table alone; ``--cpu``: seconds are each child's
CPU time, for machines whose CPUs are shared; ``--limit S``: stop a cell at S seconds).
Every cell runs in a forked child stopped at LIMIT seconds (``> 60``), and a method that
refuses a graph says why (``refused``). Layered graphs have 3 edges into every vertex, 4
inputs and 4 outputs. Exponents are least-squares slopes of log(seconds) over
log(edges), over the sizes that finished in at least 0.05 s.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import time
from collections.abc import Callable

import numpy as np

from dgraph.bench.suite import chebyshev, spherical_harmonics
from dgraph.errors import DGraphError
from dgraph.frontends import from_function, from_json
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import accumulate
from dgraph.methods.structure import structure
from dgraph.search.best import best
from dgraph.search.timebox import timeboxed

LIMIT = 60.0  # seconds per cell (--limit S)
CLOCK = time.perf_counter  # wall time; --cpu: the process's CPU time (CPUs shared)
LAYERED = [(10, 40), (20, 100), (30, 120), (40, 250), (60, 550)]  # layers x width
METHODS = ["forward", "reverse", "markowitz", "layers", "dstar", "umbrella", "zhou"]
CHEBYSHEV = [10, 20, 30, 40, 60]
HARMONICS = [5, 10, 15, 20, 25]
FUNCTION_METHODS = ["forward", "reverse", "dstar"]

TRACING = [100, 300, 1000, 3000]  # steps of a NumPy-style running sum

BEST_BUDGET = 2.0  # seconds
BEST_CASES = [(5, 10), (10, 10), (20, 20), (30, 30)]  # layers x width, one level in and out


def slope(sizes: list[float], seconds: list[float]) -> float | None:
    """Least-squares slope of log(seconds) over log(size); None with fewer than 2 points."""
    points = [(s, t) for s, t in zip(sizes, seconds, strict=True) if t is not None and t >= 0.05]
    if len(points) < 2:
        return None
    xs = [math.log(s) for s, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else None


def cell(run: Callable[[], object]) -> tuple[float | None, str]:
    """(seconds or None, the text shown) for ``run`` in a child stopped at LIMIT."""

    def child():
        t0 = CLOCK()
        try:
            extra = run()
        except DGraphError as e:
            return None, f"refused: {str(e)[:60]}"
        seconds = CLOCK() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return seconds, f"{seconds:.2f}{extra or ''} ({peak:.0f} MB)"

    out = timeboxed(child, LIMIT)
    return out if out is not None else (None, f"> {LIMIT:.0f}")


def method_cell(graph, method: str) -> tuple[float | None, str]:
    """Accumulate (unverified) then verify, timed apart: ``seconds + verify``."""

    def run():
        es = accumulate(graph, method, verify=False)
        t0 = CLOCK()
        check = es.verify()
        assert check.ok, check.detail
        return f" + {CLOCK() - t0:.2f} ✓ [{es.mults}]"

    return cell(run)


def table(title: str, rows: list[tuple[str, object]], columns: list[str], cells) -> None:
    """A Markdown table of ``cells(graph, column)`` per row, then the exponent row."""
    print(f"| {title} | edges | build | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    sizes: list[int] = []
    times: dict[str, list[float | None]] = {c: [] for c in ["build", *columns]}
    for label, make in rows:
        t0 = time.perf_counter()
        graph = make()
        built = time.perf_counter() - t0
        sizes.append(graph.n_edges)
        times["build"].append(built)
        shown = [f"{built:.2f}"]
        for c in columns:
            seconds, text = cells(graph, c)
            times[c].append(seconds)
            shown.append(text)
        print(f"| {label} | {graph.n_edges} | " + " | ".join(shown) + " |", flush=True)
    exponents = [slope(sizes, times[c]) for c in ["build", *columns]]
    print(
        "| exponent k | | " + " | ".join("–" if k is None else f"{k:.2f}" for k in exponents) + " |"
    )
    print()


def layered_cells(graph, column: str) -> tuple[float | None, str]:
    if column == "load (JSON)":
        text = graph.to_json()
        return cell(lambda: from_json(text) and None)
    if column == "structure":
        return cell(lambda: structure(graph) and None)
    return method_cell(graph, column)


def function_cells(graph, column: str) -> tuple[float | None, str]:
    if column == "load (JSON)":
        text = json.dumps(json.loads(graph.to_json()))
        return cell(lambda: from_json(text) and None)
    return method_cell(graph, column)


def running_sum(steps: int) -> Callable:
    """A NumPy-style recurrence whose partial sums are also used: sympy alone makes a sum
    of every term so far at every step (O(steps^2) edges); the tracer's tape does not."""

    def running(x):
        y = x[0]
        for _ in range(steps):
            y = y + np.sin(y) * x[1]
        return y

    return running


def tracing_table(quick: bool = False) -> None:
    """``from_function`` on :func:`running_sum`: seconds and edges against steps."""
    print("| NumPy-style running sum, steps | trace + build: seconds [edges, per step] |")
    print("|---|---|")
    steps = TRACING[:2] if quick else TRACING
    seconds: list[float | None] = []
    for n in steps:

        def run(n=n):
            g = from_function(running_sum(n), sizes=[2])
            return f" [{g.n_edges}, {g.n_edges / n:.1f}]"

        t, text = cell(run)
        seconds.append(t)
        print(f"| {n} | {text} |", flush=True)
    k = slope(steps, seconds)
    print(f"| exponent k (seconds ~ steps^k) | {'–' if k is None else f'{k:.2f}'} |")
    print()


def main(quick: bool = False, parts: tuple[str, ...] = ("layered", "functions", "tracing")) -> None:
    if "layered" in parts:
        layered_table(quick)
    if "functions" in parts:
        functions_tables(quick)
    if "tracing" in parts:
        tracing_table(quick)
    if "functions" in parts:
        budget_table()


def layered_table(quick: bool = False) -> None:
    layered = LAYERED[:3] if quick else LAYERED
    print(
        f"Each cell: seconds to accumulate + seconds to verify ✓ [structural mults]"
        f" (peak memory of the child); stopped at {LIMIT:.0f} s of wall time."
        + (" Seconds are the child's CPU time." if CLOCK is time.process_time else "")
        + "\n"
    )
    print("build: the graph from its generator (layered) or from sympy expressions (functions).\n")
    table(
        "layered (layers x width)",
        [(f"{a} x {b}", lambda a=a, b=b: random_layered(0, a, b, 3, 4)) for a, b in layered],
        ["load (JSON)", "structure", *METHODS],
        layered_cells,
    )


def functions_tables(quick: bool = False) -> None:
    cheb = CHEBYSHEV[:3] if quick else CHEBYSHEV
    table(
        "Chebyshev T_n",
        [(f"n = {n}", lambda n=n: chebyshev(n)) for n in cheb],
        ["load (JSON)", *FUNCTION_METHODS],
        function_cells,
    )
    harm = HARMONICS[:2] if quick else HARMONICS
    table(
        "spherical harmonics",
        [(f"order {n}", lambda n=n: spherical_harmonics(n)) for n in harm],
        ["load (JSON)", *FUNCTION_METHODS],
        function_cells,
    )


def budget_table() -> None:
    """``best`` with a fixed budget: its wall time, the winner built and verified."""
    print(f"| best, budget {BEST_BUDGET:g} s | intermediates | edges | seconds | found by | note |")
    print("|---|---|---|---|---|---|")
    for layers, width in BEST_CASES:
        g = random_layered(1, layers, width)
        t0 = time.perf_counter()
        es = best(g, BEST_BUDGET)
        seconds = time.perf_counter() - t0
        assert es.verified
        note = es.info.get("budget_note", "")
        print(
            f"| {layers} x {width} | {len(g.intermediates)} | {g.n_edges} | {seconds:.2f} "
            f"| {es.info['found_by']} | {note} |",
            flush=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    parser.add_argument("--layered", action="store_true", help="the layered table alone")
    parser.add_argument("--tracing", action="store_true", help="the tracing table alone")
    parser.add_argument("--cpu", action="store_true", help="seconds of CPU time, not wall")
    parser.add_argument("--limit", type=float, default=LIMIT, help="seconds per cell")
    options = parser.parse_args()
    LIMIT = options.limit
    if options.cpu:
        CLOCK = time.process_time
    chosen = tuple(p for p in ("layered", "tracing") if getattr(options, p))
    main(quick=options.quick, parts=chosen or ("layered", "functions", "tracing"))
