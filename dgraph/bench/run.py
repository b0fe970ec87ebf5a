"""Run the benchmark suite: multiplications and seconds per function and method, with
baselines measured in the same run (forward, reverse, Markowitz, sympy jacobian + cse)."""

from __future__ import annotations

import time
from typing import Any

from ..core.paths import count_paths, naive_cost
from ..frontends import bundled
from ..methods import COMPARED, compare
from .baselines import local_partials_ops, sympy_jacobian_cse
from .suite import suite

__all__ = ["bench", "markdown"]


def bench(
    suite_name: str = "quick", methods: list[str] | None = None, budget: float | None = None
) -> dict[str, Any]:
    """One row per function and method: ``mults``, ``mults_effective``, ``seconds``."""
    rows: list[dict[str, Any]] = []
    entries = suite(suite_name)
    compare(bundled("naumann_sin.trace"), ["forward"])  # warm sympy's caches before timing
    for name, build in entries.items():
        t0 = time.perf_counter()
        graph = build()
        if graph.has_partials():  # every method's counts read them: not one method's time
            for u, v in graph.edges():
                graph.partial(u, v)
        build_seconds = time.perf_counter() - t0
        size = {
            "function": name,
            "vertices": len(graph),
            "edges": graph.n_edges,
            "paths": count_paths(graph),
        }
        comparison = compare(graph, methods or COMPARED, budget, each=True)
        for method, es in comparison.results.items():
            rows.append(
                {
                    **size,
                    "method": method,
                    "mults": es.mults,
                    "mults_effective": es.mults_effective,
                    "adds": es.adds,
                    "seconds": es.info["seconds"],
                    "verified": es.verified,
                    **({"optimal": es.info["optimal"]} if "optimal" in es.info else {}),
                }
            )
        for method, why in comparison.skipped.items():
            rows.append({**size, "method": method, "skipped": why})
        rows.append({**size, "method": "naive-paths", "mults": naive_cost(graph), "seconds": 0.0})
        if graph.has_partials():
            partials = local_partials_ops(graph)
            rows.append(
                {
                    **size,
                    "method": "local-partials",
                    "mults": partials.mults,
                    "seconds": build_seconds,
                }
            )
            ops, seconds = sympy_jacobian_cse(graph)
            rows.append(
                {
                    **size,
                    "method": "sympy-jacobian-cse",
                    "mults": ops.mults,
                    "seconds": round(seconds, 4),
                }
            )
    return {"suite": suite_name, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    """Two tables: multiplications per method, and seconds as ratios to forward mode."""
    by_function: dict[str, dict[str, dict]] = {}
    for row in result["rows"]:
        by_function.setdefault(row["function"], {})[row["method"]] = row
    return _mults_table(by_function) + "\n\n" + _seconds_table(by_function)


def _cell(row: dict | None, key: str = "mults") -> str:
    if row is None or key not in row:
        return "—"
    eff = row.get("mults_effective")
    text = f"{row[key]}" + (f" ({eff})" if key == "mults" and eff not in (None, row[key]) else "")
    return text + ("*" if row.get("optimal") is False else "")


def _mults_table(by_function: dict[str, dict[str, dict]]) -> str:
    columns = [*COMPARED, "naive-paths"]
    head = "| function | vertices | edges | paths | " + " | ".join(columns)
    head += " | best / min(fwd, rev, mark) | partials + best effective | sympy jacobian+cse |"
    lines = [head, "|" + "---|" * (len(columns) + 7)]
    for function, rows in by_function.items():
        size = next(iter(rows.values()))
        cells = [function, str(size["vertices"]), str(size["edges"]), str(size["paths"])]
        cells += [_cell(rows.get(m)) for m in columns]
        done = [r for m, r in rows.items() if m in COMPARED and "mults" in r]
        base = min(rows[m]["mults"] for m in ("forward", "reverse", "markowitz"))
        cells.append(f"{min(r['mults'] for r in done) / base:.2f}" if base else "—")
        partials = rows.get("local-partials")
        best_effective = min(r["mults_effective"] for r in done)
        cells.append(str(partials["mults"] + best_effective) if partials else "—")
        cells.append(_cell(rows.get("sympy-jacobian-cse")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _seconds_table(by_function: dict[str, dict[str, dict]]) -> str:
    columns = [m for m in COMPARED if m != "forward"] + ["sympy-jacobian-cse"]
    head = "| function | forward (s) | " + " | ".join(f"{m} / forward" for m in columns) + " |"
    lines = [head, "|" + "---|" * (len(columns) + 2)]
    for function, rows in by_function.items():
        base = rows["forward"]["seconds"]
        cells = [function, f"{base:.4f}"]
        for m in columns:
            r = rows.get(m)
            cells.append("—" if r is None or "seconds" not in r else f"{r['seconds'] / base:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
