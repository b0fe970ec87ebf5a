"""Matrix-free Jacobian chaining on random chains of q = 10 … 500 factors (seed 002's sizes).

The instances come from ``random_problem`` (sizes in [1, 50], the reference generator's
edge-count rule) with fixed seeds, so every run solves the same chains.

Run: python benchmarks/chain.py  (prints a Markdown table). Costs are fma as in the paper;
"ratio" is the best homogeneous method (tangent, adjoint, preaccumulation) over the
optimum, the paper's last column. Seconds are the best of three runs of the dynamic
program alone, unbounded and with the tape bound M̄ = the median |E_i|.
"""

from __future__ import annotations

import statistics
import time

from dgraph.chain import (
    homogeneous_adjoint,
    homogeneous_tangent,
    preaccumulation,
    random_problem,
    solve,
)

SIZES = (10, 50, 100, 250, 500)


def _timed(f, *args):
    best, value = float("inf"), None
    for _ in range(3):
        t0 = time.perf_counter()
        value = f(*args)
        best = min(best, time.perf_counter() - t0)
    return value, best


def main() -> None:
    print(
        "| q | tangent | adjoint | preaccumulation | optimum | ratio | tape "
        "| M̄ = median | optimum at M̄ | seconds | seconds at M̄ |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for q in SIZES:
        p = random_problem(q, 50, seed=q)
        s, seconds = _timed(solve, p)
        bound = int(statistics.median(p.edges))
        bounded, seconds_bounded = _timed(solve, p, bound)
        tangent, adjoint = homogeneous_tangent(p), homogeneous_adjoint(p)
        pre = preaccumulation(p).cost
        ratio = min(tangent, adjoint, pre) / s.cost
        print(
            f"| {q} | {tangent:,} | {adjoint:,} | {pre:,} | {s.cost:,} | {ratio:.1f} "
            f"| {s.tape_used:,} | {bound:,} | {bounded.cost:,} | {seconds:.3f} "
            f"| {seconds_bounded:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
