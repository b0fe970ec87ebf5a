"""Generated Jacobian code against sympy, CasADi and JAX: operations and time per point.

    python benchmarks/codegen.py [--functions a,b] [--batch 10000] [--budget 5]

For every function of the full benchmark suite that has local partials (the structural
paper graphs and random DAGs have none) and every function of
benchmarks/codegen_functions.py: the operations of dgraph's generated ``jacobian`` (the
cheapest program over the compared methods), of sympy's ``jacobian`` + ``cse`` and of
CasADi's SX ``jacobian`` instruction list, all counted by dgraph.codegen.counting; then
the time per point over one batch, for dgraph's NumPy module and compiled C, sympy's
``lambdify(cse=True)``, CasADi's generated C, dgraph's JAX module (``jax.jit`` of its
``jacobian``) and JAX's jitted ``jacfwd``/``jacrev`` (the optional tools where installed),
and, where JAX is installed, the time of one jitted call at batch 1 for the three JAX
evaluators. Every evaluator is checked against sympy's values first. Prints three
Markdown tables.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codegen_functions import FUNCTIONS

from dgraph.bench.suite import SUITES
from dgraph.codegen.c import c_source, compiler, load_c
from dgraph.codegen.compare import (
    casadi_jacobian,
    installed,
    jax_jacobian,
    per_point_seconds,
    sympy_jacobian,
)
from dgraph.codegen.jaxcode import jax_module
from dgraph.codegen.python import load_python, python_module
from dgraph.codegen.selection import cheapest_jacobian

TIMED = ["dgraph-py", "dgraph-c", "sympy", "casadi-c", "dgraph-jax", "jax-jacfwd", "jax-jacrev"]
SINGLE = ["dgraph-jax", "jax-jacfwd", "jax-jacrev"]  # timed at batch 1 as well
RANGES = {"T": (800.0, 2500.0), "temperature": (800.0, 2500.0)}  # kelvin; else (0.5, 1.5)


def builders() -> dict:
    """The full suite's functions (those without local partials are skipped when built)
    and benchmarks/codegen_functions.py."""
    return dict(SUITES["full"]) | FUNCTIONS


def sample(graph, count: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    ranges = [RANGES.get(x, (0.5, 1.5)) for x in graph.inputs]
    return np.stack([rng.uniform(lo, hi, size=count) for lo, hi in ranges], axis=-1)


def measure(name: str, build, batch: int, budget: float | None) -> dict | None:
    graph = build()
    if not graph.has_partials():
        return None
    t0 = time.perf_counter()
    program, _ = cheapest_jacobian(graph, budget=budget)
    seconds = time.perf_counter() - t0
    names = {"title": name, "inputs": graph.inputs, "outputs": graph.outputs}
    evaluators = {"dgraph-py": load_python(python_module({"jacobian": program}, **names)).jacobian}
    if compiler() is not None:
        evaluators["dgraph-c"] = load_c(c_source({"jacobian": program}, **names)).jacobian
    sympy_base = sympy_jacobian(graph)
    evaluators["sympy"] = sympy_base.evaluate
    casadi = casadi_jacobian(graph)
    if casadi is not None:
        evaluators[casadi.tool] = casadi.evaluate
    if installed("jax"):
        evaluators["dgraph-jax"] = _jax_evaluator(jax_module({"jacobian": program}, **names))
    for mode in ("forward", "reverse"):
        jax = jax_jacobian(graph, mode)
        if jax is not None:
            evaluators[jax.tool] = jax.evaluate
    points = sample(graph, batch)
    reference = sympy_base.evaluate(points[:100])
    scale = max(1.0, float(np.abs(reference).max()))
    for tool, evaluate in evaluators.items():
        error = float(np.abs(evaluate(points[:100]) - reference).max()) / scale
        if error > 1e-9:
            raise AssertionError(f"{name}: {tool} differs from sympy by {error:.1e}")
    return {
        "function": name,
        "size": f"{len(graph.outputs)}x{len(graph.inputs)}",
        "method": program.method,
        "dgraph": program.ops,
        "sympy": sympy_base.ops,
        "casadi": casadi.ops if casadi is not None else None,
        "codegen_seconds": seconds,
        "us_per_point": {t: per_point_seconds(e, points) * 1e6 for t, e in evaluators.items()},
        "us_single": {
            t: per_point_seconds(evaluators[t], points[:1], repeat=50) * 1e6
            for t in SINGLE
            if t in evaluators
        },
    }


def _jax_evaluator(text: str):
    """dgraph's generated JAX ``jacobian``, jitted, in doubles, on a batch."""
    import jax

    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(load_python(text).jacobian)
    return lambda points: np.asarray(jitted(points).block_until_ready())


def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if b else "—"


def markdown(rows: list[dict], batch: int) -> str:
    head = (
        "| function | m x n | method | dgraph mults | sympy mults | CasADi mults"
        " | dgraph / sympy | dgraph / CasADi | divs dgraph / sympy / CasADi | codegen s |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        d, s, c = r["dgraph"], r["sympy"], r["casadi"]
        lines.append(
            f"| {r['function']} | {r['size']} | {r['method']} | {d.mults} | {s.mults} | "
            f"{c.mults if c else '—'} | {_ratio(d.mults, s.mults)} | "
            f"{_ratio(d.mults, c.mults) if c else '—'} | "
            f"{d.divs} / {s.divs} / {c.divs if c else '—'} | {r['codegen_seconds']:.1f} |"
        )
    tools = [t for t in TIMED if any(t in r["us_per_point"] for r in rows)]
    lines += [
        "",
        f"Microseconds per point, one batch of {batch} points (best of 5), one core:",
        "",
        "| function | " + " | ".join(tools) + " | sympy / dgraph-c |",
        "|" + "---|" * (len(tools) + 2),
    ]
    for r in rows:
        times = r["us_per_point"]
        cells = [f"{times[t]:.3f}" if t in times else "—" for t in tools]
        best = times.get("dgraph-c", times["dgraph-py"])
        lines.append(
            f"| {r['function']} | " + " | ".join(cells) + f" | {times['sympy'] / best:.1f} |"
        )
    if any(r["us_single"] for r in rows):
        lines += [
            "",
            "Microseconds per jitted call at batch 1 (one point; best of 50, the call and the"
            " transfer of its result included), and the ratios of JAX's own to dgraph's JAX:",
            "",
            "| function | dgraph-jax | jax-jacfwd | jax-jacrev | jacfwd / dgraph"
            " | jacrev / dgraph | batch 10⁴: jacfwd / dgraph | jacrev / dgraph |",
            "|" + "---|" * 8,
        ]
        for r in rows:
            one, many = r["us_single"], r["us_per_point"]
            if "dgraph-jax" not in one:
                continue
            cells = [f"{one.get(t, float('nan')):.1f}" for t in SINGLE]
            ratios = [_ratio(one[t], one["dgraph-jax"]) for t in SINGLE[1:] if t in one]
            ratios += [_ratio(many[t], many["dgraph-jax"]) for t in SINGLE[1:] if t in many]
            lines.append(f"| {r['function']} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", help="comma-separated names (default: all)")
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--budget", type=float, default=5.0, help="exact searches' seconds")
    args = parser.parse_args()
    chosen = builders()
    if args.functions:
        chosen = {n: chosen[n] for n in args.functions.split(",")}
    rows = []
    for name, build in chosen.items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        row = measure(name, build, args.batch, args.budget)
        if row is not None:
            rows.append(row)
    versions = [f"Python {platform.python_version()}", f"numpy {np.__version__}"]
    for tool in ("sympy", "casadi", "jax"):
        if installed(tool):
            versions.append(f"{tool} {__import__(tool).__version__}")
    print(f"({platform.machine()}; {', '.join(versions)}; cc: {compiler() or 'none'})\n")
    print(markdown(rows, args.batch))


if __name__ == "__main__":
    main()
