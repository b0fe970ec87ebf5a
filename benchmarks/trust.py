"""What the checks of issue 21 cost as graphs grow: reading traces and JSON with the
restricted parser, and verifying an expression set above the exact-expansion limit.

Run: python benchmarks/trust.py  (prints Markdown tables; benchmarks/run.sh records them).
Growth exponents are least-squares slopes of log(seconds) against log(size).
"""

from __future__ import annotations

import time

from harness import log_slope  # benchmarks/, first on the path

from dgraph.core.paths import count_paths
from dgraph.core.verify import EXACT_PATH_LIMIT
from dgraph.frontends import from_json, from_trace
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import accumulate

TRACE_SIZES = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
# layers x width, 3 edges into every vertex, 4 inputs and 4 outputs
VERIFY_CASES = ((10, 40), (20, 100), (40, 250), (80, 500))


def recurrence(n: int) -> str:
    """A trace of ``n`` statements: a two-variable recurrence with sin, products, sums."""
    lines = ["inputs: a, b", "outputs: y"]
    previous = ("a", "b")
    for k in range(n - 1):
        name = f"v{k}"
        lines.append(f"{name} = sin({previous[1]})*{previous[0]} + 0.5*{previous[1]}")
        previous = (previous[1], name)
    lines.append(f"y = {previous[0]}*{previous[1]}")
    return "\n".join(lines)


def timed(f):
    t0 = time.perf_counter()
    value = f()
    return value, time.perf_counter() - t0


def loading() -> None:
    print(
        "| statements | edges (statement) | read trace, statement (s) | edges (elemental)"
        " | read trace, elemental (s) | write JSON (s) | read JSON (s) |"
    )
    print("|---|---|---|---|---|---|---|")
    statement, elemental, write_seconds, json_seconds = [], [], [], []
    for n in TRACE_SIZES:
        text = recurrence(n)
        g, t = timed(lambda text=text: from_trace(text, "statement"))
        ge, te = timed(lambda text=text: from_trace(text, "elemental"))
        written, tw = timed(g.to_json)
        _, tj = timed(lambda written=written: from_json(written))
        statement.append(t)
        elemental.append(te)
        write_seconds.append(tw)
        json_seconds.append(tj)
        print(
            f"| {n} | {g.n_edges} | {t:.2f} | {ge.n_edges} | {te:.2f} | {tw:.2f} | {tj:.2f} |",
            flush=True,
        )
    print(
        f"| growth exponent | | {log_slope(TRACE_SIZES, statement):.2f} |"
        f" | {log_slope(TRACE_SIZES, elemental):.2f} | {log_slope(TRACE_SIZES, write_seconds):.2f}"
        f" | {log_slope(TRACE_SIZES, json_seconds):.2f} |"
    )


def verification() -> None:
    print("| edges | paths | references | mode | verify (s) | detail |")
    print("|---|---|---|---|---|---|")
    sizes, seconds = [], []
    for layers, width in VERIFY_CASES:
        g = random_layered(0, layers, width, 3, 4)
        es = accumulate(g, "reverse", verify=False)
        check, t = timed(es.verify)
        assert check.ok, check.detail
        paths = count_paths(g)
        if paths > EXACT_PATH_LIMIT:
            sizes.append(g.n_edges)
            seconds.append(t)
        shown = f"{paths:.3g}" if paths > 1e6 else str(paths)
        refs = len(es.references)
        print(
            f"| {g.n_edges} | {shown} | {refs} | {check.mode} | {t:.2f} | {check.detail} |",
            flush=True,
        )
    if len(sizes) > 1:
        exponent = log_slope(sizes, seconds)
        print(f"| growth exponent (above the exact limit) | | | | {exponent:.2f} | |")


def main() -> None:
    loading()
    print()
    verification()


if __name__ == "__main__":
    main()
