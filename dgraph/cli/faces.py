"""``dgraph faces GRAPH --method M``: can face elimination realize a method's expressions?"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..faces.realize import FaceCheck, check_faces
from ..faces.relations import conflicting_pairs, multiplication_relations
from ..methods import COMPARED, accumulate, methods
from .args import budget, choice_list, graph_args, load_graph

__all__ = ["add_arguments", "run"]

# Every method that needs no order of its own (vertex and edges replay a given one).
_RUNNABLE = tuple(methods(needs=()))


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument(
        "--method",
        "-m",
        default="markowitz",
        help=f"one of {', '.join(_RUNNABLE)}; several comma-separated, or 'all'"
        f" ({', '.join(COMPARED)})",
    )
    p.add_argument("--budget", type=budget, help="seconds for exact searches beyond their limit")


def _summary(check: FaceCheck) -> dict[str, Any]:
    out = check.to_dict()
    relations = multiplication_relations(check.expression_set)
    out["relations"] = {
        "direct": sum(r.kind == "direct" for r in relations),
        "indirect": sum(r.kind == "indirect" for r in relations),
        "conflicting": sorted(map(list, conflicting_pairs(relations))),
    }
    out["verified"] = check.expression_set.verified
    return out


def run(args: argparse.Namespace) -> int:
    names = (
        COMPARED
        if args.method == "all"
        else choice_list(args.method, _RUNNABLE, "--method", "method")
    )
    graph = load_graph(args)
    checks = [check_faces(accumulate(graph, m, budget=args.budget)) for m in names]
    if args.json:
        if len(checks) == 1:
            print(json.dumps(_summary(checks[0])))
        else:
            print(json.dumps({"methods": [_summary(c) for c in checks]}))
    else:
        print("\n".join(c.to_text() for c in checks))
    return 0
