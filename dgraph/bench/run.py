"""Run the benchmark suite: multiplications and seconds per function and method, with
baselines measured in the same run (forward, reverse, Markowitz, sympy jacobian + cse)."""

from __future__ import annotations

import time
from typing import Any

from ..core.paths import count_paths, naive_cost
from ..methods import COMPARED, compare
from .baselines import local_partials_ops, sympy_jacobian_cse
from .suite import suite

__all__ = ["bench", "markdown"]


def bench(
    suite_name: str = "quick", methods: list[str] | None = None, budget: float | None = None
) -> dict[str, Any]:
    """One row per function and method: ``mults``, ``mults_effective``, ``seconds``."""
    rows: list[dict[str, Any]] = []
    for name, build in suite(suite_name).items():
        t0 = time.perf_counter()
        graph = build()
        build_seconds = time.perf_counter() - t0
        size = {
            "function": name,
            "vertices": len(graph),
            "edges": graph.n_edges,
            "paths": count_paths(graph),
        }
        comparison = compare(graph, methods or COMPARED, budget)
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
    """A table per function: methods as columns, ratios to min(forward, reverse, Markowitz)."""
    by_function: dict[str, dict[str, dict]] = {}
    for row in result["rows"]:
        by_function.setdefault(row["function"], {})[row["method"]] = row
    columns = [*COMPARED, "naive-paths"]
    head = "| function | |V| | |E| | paths | " + " | ".join(columns)
    head += " | best / min(fwd,rev,mark) | partials + best eff. | sympy jacobian+cse |"
    lines = [head, "|" + "---|" * (len(columns) + 7)]
    for function, rows in by_function.items():
        any_row = next(iter(rows.values()))
        cells = [function, str(any_row["vertices"]), str(any_row["edges"]), str(any_row["paths"])]
        for m in columns:
            r = rows.get(m)
            if r is None or "mults" not in r:
                cells.append("—")
            else:
                eff = r.get("mults_effective")
                cells.append(
                    f"{r['mults']}" + (f" ({eff})" if eff is not None and eff != r["mults"] else "")
                )
        done = [r for m, r in rows.items() if m in COMPARED and "mults" in r]
        base = min(rows[m]["mults"] for m in ("forward", "reverse", "markowitz"))
        best = min(done, key=lambda r: r["mults"])
        cells.append(f"{best['mults'] / base:.2f}" if base else "—")
        partials = rows.get("local-partials")
        best_eff = min(r["mults_effective"] for r in done)
        cells.append(str(partials["mults"] + best_eff) if partials else "—")
        sym = rows.get("sympy-jacobian-cse")
        cells.append(str(sym["mults"]) if sym else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
