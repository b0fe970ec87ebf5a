"""Hessian chain bracketing against forward-over-reverse and second-order tangents.

Costs are fma in dgraph.chain.hessian's model (Hessian blocks formed for a <= b only).
Three sets:

1. seed 002's printed chains (dgraph/chain/data), code only (second-order term = |E_i|),
   and the same shapes with F'_i, F''_i given as dense tensors;
2. random dense chains with scalar output, sizes uniform in [1, M], as the reference
   implementation of Naumann and Burela generates them (its test files use M = q), 20
   seeds per row: the ratio forward-over-reverse / optimum, median (min - max);
3. random code-only chains (seed 002's generator: |E_i| in [n+m, (n+m)²]), 20 seeds.

Run: python benchmarks/chain_hessian.py  (prints Markdown tables; deterministic seeds).
"""

from __future__ import annotations

import statistics
import time

from dgraph.chain import bundled_problem, random_problem
from dgraph.chain.hessian import (
    HessianProblem,
    forward_over_reverse,
    random_hessian_problem,
    second_order_tangent,
    solve_hessian,
)

SEEDS = range(20)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f} - {max(values):.1f})"


def seed_chains() -> None:
    print("| chain | factors | optimum | bracketing | fwd-over-rev | 2nd-order tangent | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in ("example_s4.txt", "example_s5.txt", "case_study_s6.txt"):
        chain = bundled_problem(name)
        for label, p in (
            ("code", HessianProblem.from_chain(chain)),
            ("dense", HessianProblem.dense(list(zip(chain.m, chain.n, strict=True)))),
        ):
            s = solve_hessian(p)
            fovr = forward_over_reverse(p)
            text = s.bracketing()
            text = text if len(text) <= 60 else text[:57] + "..."
            print(
                f"| {name} ({label}) | {p.q} | {s.cost:,} | `{text}` | {fovr:,} "
                f"| {second_order_tangent(p):,} | {fovr / s.cost:.1f} |",
                flush=True,
            )


def random_dense() -> None:
    print(
        "| q | M | fwd-over-rev / optimum | 2nd-order tangent / optimum "
        "| dense products only / optimum | DP seconds (median) |"
    )
    print("|---|---|---|---|---|---|")
    for q, size in ((5, 5), (10, 10), (20, 20), (50, 50), (100, 100), (10, 15), (50, 15)):
        fovr, sot, prod, seconds = [], [], [], []
        for seed in SEEDS:
            p = random_hessian_problem(q, size, seed=1000 * q + seed)
            t0 = time.perf_counter()
            s = solve_hessian(p)
            seconds.append(time.perf_counter() - t0)
            fovr.append(forward_over_reverse(p) / s.cost)
            sot.append(second_order_tangent(p) / s.cost)
            prod.append(solve_hessian(p, ("given", "product")).cost / s.cost)
        print(
            f"| {q} | {size} | {_spread(fovr)} | {_spread(sot)} | {_spread(prod)} "
            f"| {statistics.median(seconds):.2f} |",
            flush=True,
        )


def random_code() -> None:
    print("| q | M | fwd-over-rev / optimum | 2nd-order tangent / optimum | optimum's operations |")
    print("|---|---|---|---|---|")
    for q, size in ((5, 10), (10, 10), (20, 50), (50, 50)):
        fovr, sot, ops = [], [], {}
        for seed in SEEDS:
            chain = random_problem(q, size, seed=1000 * q + seed)
            p = HessianProblem.from_chain(chain)
            s = solve_hessian(p)
            fovr.append(forward_over_reverse(p) / s.cost)
            sot.append(second_order_tangent(p) / s.cost)
            for x in s.tree().walk():
                ops[x.op] = ops.get(x.op, 0) + 1
        used = ", ".join(f"{k} {v}" for k, v in sorted(ops.items()))
        print(f"| {q} | {size} | {_spread(fovr)} | {_spread(sot)} | {used} |", flush=True)


def main() -> None:
    print("### seed 002's chains\n")
    seed_chains()
    print("\n### random dense chains, scalar output (20 seeds each)\n")
    random_dense()
    print("\n### random code-only chains (20 seeds each)\n")
    random_code()


if __name__ == "__main__":
    main()
