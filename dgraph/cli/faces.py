"""``dgraph faces GRAPH --method M``: can face elimination realize a method's expressions?

``--order '[i->j, j->k], ...'`` replays a face sequence (method ``faces``; the order this
command prints, or one :func:`dgraph.explore` exports), ``--order`` with ``--method vertex``
or ``edges`` their orders."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import InputError, SearchTooLarge
from ..faces.optimal import FACE_LIMIT
from ..faces.realize import FaceCheck, check_faces
from ..faces.relations import conflicting_pairs, multiplication_relations
from ..methods import COMPARED, accumulate, methods
from .args import budget, choice_list, graph_args, load_graph, method_options

__all__ = ["add_arguments", "run"]

# Every method that needs no order of its own (vertex, edges and faces replay a given one).
_RUNNABLE = tuple(methods(needs=()))
_ORDERED = tuple(m for m in methods() if m not in _RUNNABLE)


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument(
        "--method",
        "-m",
        help=f"one of {', '.join(_RUNNABLE)}; several comma-separated, or 'all'"
        f" ({', '.join(COMPARED)}); default markowitz, or faces with --order",
    )
    p.add_argument(
        "--order",
        help="replay an order: faces '[i->j, j->k], [j->k, k->l]' (as this command prints"
        " them; the default with --order), or with --method vertex 'v1,v2' or edges"
        " 'f:i>j,b:k>l'",
    )
    p.add_argument(
        "--budget",
        type=budget,
        help=f"seconds for exact searches beyond their limit (face-optimal: {FACE_LIMIT}"
        " intermediate faces)",
    )


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
    if args.order is not None:
        return _run_order(args)
    method = args.method or "markowitz"
    names = COMPARED if method == "all" else choice_list(method, _RUNNABLE, "--method", "method")
    graph = load_graph(args)
    several = len(names) > 1
    checks: list[FaceCheck | tuple[str, str]] = []
    for m in names:
        try:
            checks.append(check_faces(accumulate(graph, m, budget=args.budget)))
        except SearchTooLarge as exc:
            if not several:
                raise
            checks.append((m, str(exc)))  # one of several: listed as skipped, the rest go on
    if args.json:
        rows = [
            {"method": c[0], "skipped": c[1]} if isinstance(c, tuple) else _summary(c)
            for c in checks
        ]
        print(json.dumps({"methods": rows} if several else rows[0]))
    else:
        print(
            "\n".join(
                f"{c[0]}: skipped: {c[1]}" if isinstance(c, tuple) else c.to_text() for c in checks
            )
        )
    return 0


def _run_order(args: argparse.Namespace) -> int:
    """The face check of one given order (``--method`` faces, vertex or edges)."""
    method = args.method or "faces"
    if method not in _ORDERED:
        raise InputError(f"--order replays methods {', '.join(_ORDERED)}, not {method!r}")
    graph = load_graph(args)
    es = accumulate(graph, method, **method_options(graph, method, args.order))
    check = check_faces(es)
    print(json.dumps(_summary(check)) if args.json else check.to_text())
    return 0
