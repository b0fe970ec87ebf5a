"""``dgraph chain``: optimal matrix-free Jacobian chain bracketing (Naumann, matrix-free chaining).

``dgraph chain PROBLEM [--memory B]`` reads the ADMission text format; ``--graph GRAPH
[--cuts 'a,b;c']`` derives the problem from a graph's stages and compares with the
elimination methods; ``--random Q [--size M] [--seed S]`` draws an instance.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..chain.dynamic import (
    ChainSolution,
    homogeneous_adjoint,
    homogeneous_tangent,
    preaccumulation,
    preaccumulation_parts,
    solve,
)
from ..chain.notation import tree_text
from ..chain.partition import vertex_cuts
from ..chain.problem import ChainProblem, random_problem, read_problem
from ..chain.reference import reference_solve
from ..errors import DGraphError, InputError
from ..frontends.trace import GRANULARITIES
from ..methods.chain import ELIMINATION_METHODS
from .args import cut_list, input_options, load_graph, output_path, write_atomic
from .chain_hessian import run_hessian

__all__ = ["MAX_FACTORS", "add_arguments", "check_size", "report", "result", "run"]

_LISTED = 20  # factors and table rows listed in the readable report without --table

# What the O(q³) table solves in seconds: with 64-bit integers up to MAX_FACTORS, with
# Python integers (needed once sizes and edge counts get large, and far slower) up to
# MAX_FACTORS_BIG.
MAX_FACTORS = 500
MAX_FACTORS_BIG = 100
MAX_ENTRY = 10**15
MAX_RANDOM_SIZE = 10**4  # with q <= MAX_FACTORS the table stays in 64-bit integers


def _nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _positive(text: str) -> int:
    value = _nonnegative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be >= 1, got 0")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("problem", nargs="?", help="chain in ADMission text format: q, then 'm n |E|'")
    p.add_argument("--memory", type=_nonnegative, help="tape bound M̄ (edges); default none")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--table", action="store_true", help="list every subchain of the table")
    p.add_argument("--write", metavar="FILE", help="also write the problem in ADMission format")
    p.add_argument(
        "--hessian",
        action="store_true",
        help="Hessian chain bracketing: PROBLEM lines 'm n' (given dense), 'm n |E|' or"
        " 'm n |E| S'; --random draws a dense chain with scalar output",
    )
    g = p.add_argument_group("from a graph (instead of PROBLEM)")
    g.add_argument("--graph", help="file.json, file.trace or file.py:function, cut into stages")
    g.add_argument(
        "--cuts",
        help="cut vertex sets from the outputs down, 'a,b;c,d', or 'auto': vertex cuts at"
        " the local minima of the live-value count (default: levels)",
    )
    g.add_argument("--granularity", choices=GRANULARITIES, default="elemental")
    input_options(g)
    g.add_argument(
        "--methods",
        help="elimination methods to compare (default: "
        f"{','.join(ELIMINATION_METHODS)}; 'none' for none)",
    )
    r = p.add_argument_group("a random instance (instead of PROBLEM)")
    r.add_argument(
        "--random", type=_positive, metavar="Q", help=f"number of factors (<= {MAX_FACTORS})"
    )
    r.add_argument(
        "--size",
        type=_positive,
        default=10,
        help=f"sizes in [1, SIZE] (default 10, at most {MAX_RANDOM_SIZE})",
    )
    r.add_argument("--seed", type=_nonnegative, help="random seed")


def result(problem: ChainProblem, memory: int | None = None) -> dict[str, Any]:
    """Everything ``dgraph chain --json`` prints for a problem."""
    solution = solve(problem, memory)
    pre = preaccumulation(problem, memory)
    reference = reference_solve(problem, memory)
    return {
        "problem": problem.name,
        "q": problem.q,
        "factors": [list(f) for f in problem.factors],
        "memory": memory,
        "optimal": solution.cost,
        "tape": solution.tape_used,
        "bracketing": solution.bracketing(),
        "latex": solution.bracketing(latex=True),
        "tree": solution.tree().operations(),
        "tangent": homogeneous_tangent(problem),
        "adjoint": homogeneous_adjoint(problem),
        "preaccumulation": pre.cost,
        "preaccumulation_parts": list(preaccumulation_parts(pre)),
        "preaccumulation_bracketing": pre.bracketing(),
        "reference": {
            "optimal": reference.cost,
            "tape": reference.tape_used,
            "bracketing": reference.bracketing(),
        },
        "table": solution.rows(),
    }


def _table_lines(solution: ChainSolution, everything: bool) -> list[str]:
    """Rows in the reference solver's style: ``F_{j,i}: CODE(k); fma=…; M=…;``."""
    if everything:
        rows = solution.rows()
    else:
        used = {(x.j, x.i) for x in solution.tree().walk()}
        rows = [r for r in solution.rows() if (r["j"], r["i"]) in used]
    return [
        f"F_{{{r['j']},{r['i']}}}: {r['code']}({r['split'] or 0}); fma={r['fma']}; M={r['tape']};"
        for r in rows
    ]


def report(problem: ChainProblem, memory: int | None, everything: bool = False) -> str:
    """The readable report."""
    solution = solve(problem, memory)
    pre = preaccumulation(problem, memory)
    leaves, products = preaccumulation_parts(pre)
    reference = reference_solve(problem, memory)
    bound = "none" if memory is None else str(memory)
    lines = [
        f"{problem.name or 'chain'}: q = {problem.q} factors, {problem.total_edges} edges, "
        f"tape bound {bound}"
    ]
    if everything or problem.q <= _LISTED:
        lines += [f"G_{{{i}}}=[ {m} {n} {e} ]" for i, (m, n, e) in enumerate(problem.factors, 1)]
    lines.append("Dynamic Programming Table" + (":" if everything else " (the optimum's rows):"))
    lines += _table_lines(solution, everything)
    lines += [
        f"optimal: {solution.cost} fma, tape {solution.tape_used}",
        f"  F′ = {solution.bracketing()}",
        tree_text(solution.tree(), problem) if problem.q <= _LISTED else "",
        f"homogeneous tangent mode: {homogeneous_tangent(problem)}",
        f"homogeneous adjoint mode: {homogeneous_adjoint(problem)}",
        f"optimal preaccumulation: {leaves} + {products} = {pre.cost}",
        f"reference solver's accounting: {reference.cost} fma, tape {reference.tape_used}"
        f"  ({reference.bracketing()})",
    ]
    return "\n".join(line for line in lines if line)


def _graph_problem(args: argparse.Namespace) -> tuple[ChainProblem, dict[str, Any]]:
    from ..methods.chain import compare_with_elimination

    graph = load_graph(args)
    cuts = None
    if args.cuts == "auto":
        cuts = vertex_cuts(graph)
    elif args.cuts:
        cuts = cut_list(graph, args.cuts)
    methods = list(ELIMINATION_METHODS)
    if args.methods is not None and args.methods != "none":
        methods = [m.strip() for m in args.methods.split(",")]
        if not all(methods):
            raise InputError(f"--methods: an empty name in {args.methods[:60]!r}")
        for given in ("vertex", "edges"):
            if given in methods:
                raise InputError(f"--methods: {given!r} replays a given order; chain has none")
    compared = compare_with_elimination(graph, cuts, args.memory, methods)
    stages = compared["stages"]
    extra = {
        "graph": graph.name,
        "cuts": stages.cuts,
        "copies": stages.copies,
        "methods": compared["methods"],
    }
    return stages.problem, extra


def _names_a_graph(problem: str) -> bool:
    """Whether PROBLEM names what ``--graph`` reads: a function, or a regular file of a
    JSON graph or a trace (anything else is read as a chain, with that reader's errors)."""
    if problem.rpartition(":")[0].endswith(".py") or problem.endswith(".py"):
        return True
    return problem.endswith((".json", ".trace")) and Path(problem).is_file()


def check_size(problem: ChainProblem) -> None:
    """Refuse, in one line, a problem the dynamic program cannot solve in seconds."""
    if max(*problem.m, *problem.n, *problem.edges) > MAX_ENTRY:
        raise InputError(f"chain: sizes and edge counts must be at most {MAX_ENTRY:.0e}")
    size = max(*problem.m, *problem.n)
    big = 2 * size * problem.total_edges + size**3 + 1 >= 2**61  # as dynamic._dtype decides
    limit = MAX_FACTORS_BIG if big else MAX_FACTORS
    if problem.q > limit:
        why = " with sizes this large" if big else ""
        raise InputError(
            f"chain: q = {problem.q} factors exceed the limit of {limit}{why}"
            " (the dynamic program takes O(q³) time)"
        )


def run(args: argparse.Namespace) -> int:
    sources = [s for s in (args.problem, args.graph, args.random) if s is not None]
    if len(sources) != 1:
        raise DGraphError("dgraph chain: give exactly one of PROBLEM, --graph or --random")
    if args.graph is None and (
        args.cuts or args.methods or args.inputs or args.level or args.params
    ):
        raise DGraphError(
            "dgraph chain: --cuts, --methods, --inputs, --level and --params apply to --graph"
        )
    if args.problem is not None and _names_a_graph(args.problem):
        raise InputError(
            f"{args.problem}: a graph is cut into stages with --graph {args.problem}"
            " (PROBLEM is a chain in ADMission text format)"
        )
    if args.random is None and args.size != 10:
        raise DGraphError("dgraph chain: --size applies to --random")
    if args.random is not None and args.random > MAX_FACTORS:
        raise InputError(f"--random: at most {MAX_FACTORS} factors, got {args.random}")
    if args.size > MAX_RANDOM_SIZE:
        raise InputError(f"--size: at most {MAX_RANDOM_SIZE}, got {args.size}")
    if args.hessian:
        if args.write:
            raise DGraphError("dgraph chain --hessian: --write does not apply")
        return run_hessian(args)
    write = output_path(args.write) if args.write else None
    extra: dict[str, Any] = {}
    if args.graph is not None:
        problem, extra = _graph_problem(args)
    elif args.random is not None:
        problem = random_problem(args.random, args.size, args.seed)
    else:
        problem = read_problem(args.problem)
    check_size(problem)
    if write is not None:
        write_atomic(write, problem.to_text())
    if args.json:
        print(json.dumps({**result(problem, args.memory), **extra}))
        return 0
    print(report(problem, args.memory, args.table))
    if extra:
        print(f"stages of {extra['graph'] or 'the graph'} ({extra['copies']} copies):")
        for i, cut in enumerate(extra["cuts"]):
            print(f"  cut {i}: {', '.join(cut)}")
        for row in extra["methods"]:
            verified = "verified" if row["verified"] else "NOT verified"
            print(
                f"elimination {row['method']}: {row['mults']} mults "
                f"({row['mults_effective']} effective), {verified}"
            )
    return 0
