"""``dgraph chain --hessian``: Hessian chain bracketing (Naumann and Burela), reported in
the style of ``dgraph chain``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..chain.hessian import (
    HessianProblem,
    HessianSolution,
    forward_over_reverse,
    hessian_tree_text,
    random_hessian_problem,
    read_hessian_problem,
    second_order_tangent,
    solve_hessian,
)
from ..errors import DGraphError, InputError

__all__ = ["MAX_HESSIAN_FACTORS", "hessian_report", "hessian_result", "run_hessian"]

# The table is filled in Python, O(q³): q = 150 takes a few seconds.
MAX_HESSIAN_FACTORS = 150
_LISTED = 20


def _products(problem: HessianProblem) -> int | None:
    """Dense products of given factors only (None when a factor is not given)."""
    if not all(problem.given):
        return None
    return solve_hessian(problem, ("given", "product")).cost


def hessian_result(problem: HessianProblem) -> dict[str, Any]:
    """Everything ``dgraph chain --hessian --json`` prints."""
    solution = solve_hessian(problem)
    fovr = forward_over_reverse(problem)
    return {
        "problem": problem.name,
        "q": problem.q,
        "factors": [
            {"m": m, "n": n, "edges": e, "second": s, "given": g}
            for m, n, e, s, g in zip(
                problem.m, problem.n, problem.edges, problem.second, problem.given, strict=True
            )
        ],
        "optimal": solution.cost,
        "bracketing": solution.bracketing(),
        "latex": solution.bracketing(latex=True),
        "tree": solution.tree().operations(),
        "forward_over_reverse": fovr,
        "second_order_tangent": second_order_tangent(problem),
        "products_only": _products(problem),
        "ratio": fovr / solution.cost if solution.cost else None,
        "table": solution.rows(),
    }


def _rows(solution: HessianSolution, everything: bool) -> list[str]:
    used = {(x.j, x.i) for x in solution.tree().walk()}
    rows = solution.rows()
    if not everything:
        rows = [r for r in rows[:-1] if (r["j"], r["i"]) in used] + rows[-1:]
    return [
        f"F_{{{r['j']},{r['i']}}}: {r['op']}({r['split'] or 0}); cost={r['cost']};"
        + (" (root: F'_{q,1} not formed)" if r.get("root") else "")
        for r in rows
    ]


def hessian_report(problem: HessianProblem, everything: bool = False) -> str:
    """The readable report."""
    solution = solve_hessian(problem)
    fovr = forward_over_reverse(problem)
    given = sum(problem.given)
    lines = [
        f"{problem.name or 'chain'}: q = {problem.q} factors, Hessian chain"
        f" ({given} given dense, {problem.q - given} code only)"
    ]
    if everything or problem.q <= _LISTED:
        for i, (m, n, e, s, g) in enumerate(
            zip(problem.m, problem.n, problem.edges, problem.second, problem.given, strict=True),
            start=1,
        ):
            lines.append(f"G_{{{i}}}=[ {m} {n} {e} {s} ]" + (" given" if g else ""))
    lines.append("Dynamic Programming Table" + (":" if everything else " (the optimum's rows):"))
    lines += _rows(solution, everything)
    lines += [
        f"optimal: {solution.cost} fma",
        f"  F″ = {solution.bracketing()}",
        hessian_tree_text(solution.tree(), problem) if problem.q <= _LISTED else "",
        f"forward-over-reverse (second-order adjoints): {fovr}"
        + (f"  (x{fovr / solution.cost:.1f} the optimum)" if solution.cost else ""),
        f"second-order tangents: {second_order_tangent(problem)}",
    ]
    products = _products(problem)
    if products is not None:
        lines.append(f"dense products only: {products}")
    return "\n".join(line for line in lines if line)


def run_hessian(args: argparse.Namespace) -> int:
    """``dgraph chain --hessian``: PROBLEM (lines 'm n', 'm n |E|' or 'm n |E| S') or
    ``--random Q`` (a dense chain with scalar output)."""
    if args.graph is not None or args.memory is not None:
        raise DGraphError("dgraph chain --hessian: --graph and --memory do not apply")
    if args.random is not None:
        problem = random_hessian_problem(args.random, args.size, args.seed)
    else:
        problem = read_hessian_problem(args.problem)
    if problem.q > MAX_HESSIAN_FACTORS:
        raise InputError(
            f"chain --hessian: q = {problem.q} factors exceed the limit of {MAX_HESSIAN_FACTORS}"
            " (the dynamic program takes O(q³) time)"
        )
    if args.json:
        print(json.dumps(hessian_result(problem)))
    else:
        print(hessian_report(problem, args.table))
    return 0
