"""``dgraph render``: draw a graph in one of its views, or an accumulation step by step.

Imports only argparse at module level: the parser is built for every dgraph command.
"""

from __future__ import annotations

import argparse
import json

from ..cliargs import budget, graph_args

__all__ = ["add_arguments", "run"]

_VIEWS = ("graph", "line", "levels", "pages")


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help="file to write: .svg .pdf .png .dot .tex (TikZ); with --steps also .html",
    )
    p.add_argument("--view", choices=_VIEWS, default="graph", help="what to draw (default graph)")
    p.add_argument(
        "--direction",
        choices=("dataflow", "dependence"),
        default=None,
        help="dataflow (inputs at the bottom; default for graph and line) or dependence "
        "(roots on top; default for levels and pages)",
    )
    p.add_argument(
        "--highlight",
        help="regions to mark: chains, blocks, umbrellas, closed-umbrellas, factors, pages "
        "(comma-separated)",
    )
    p.add_argument("--style", default="paper", help="paper (default), screen or plain")
    p.add_argument("--font", choices=("serif", "sans"), help="font family")
    p.add_argument("--title", help="a title above the drawing")
    p.add_argument("--no-labels", action="store_true", help="no edge labels")
    p.add_argument(
        "--standalone", action="store_true", help=".tex: a whole LaTeX document, not a picture"
    )
    p.add_argument("--variant", default="backward", help="pages view: zhou's factorization")
    p.add_argument(
        "--steps",
        action="store_true",
        help="one frame per step of --method: FILE-00.svg, FILE-01.svg, ... (or one .html)",
    )
    p.add_argument("--method", "-m", default="markowitz", help="the method drawn by --steps")
    p.add_argument("--budget", type=budget, help="seconds for exact searches beyond their limit")
    p.add_argument("--strategy", default="auto", help="zhou with --steps: use global")


def run(args: argparse.Namespace) -> int:
    from ..core.builders import load
    from .drawing import draw

    graph = load(args.graph, args.granularity)
    if args.steps:
        from ..errors import DGraphError
        from .stepviews import steps
        from .styles import get_style

        if args.view != "graph":
            raise DGraphError(
                "--steps draws the graph (the line graph for face eliminations); drop --view"
            )
        viewer = steps(
            graph,
            args.method,
            direction=args.direction or "dataflow",
            style=get_style(args.style, args.font),
            budget=args.budget,
            strategy=args.strategy,
        )
        paths = viewer.save(args.output)
        summary = {
            "file": str(paths[0]),
            "files": [str(p) for p in paths],
            "frames": len(viewer),
            "method": viewer.expression_set.method,
            "mults": viewer.expression_set.mults,
        }
    else:
        drawing = draw(
            graph,
            args.view,
            direction=args.direction,
            highlight=args.highlight,
            style=args.style,
            font=args.font,
            labels=not args.no_labels,
            title=args.title,
            variant=args.variant,
        )
        path = drawing.save(args.output, standalone=args.standalone)
        summary = {"file": str(path), "files": [str(path)], "view": args.view}
    if args.json:
        print(json.dumps(summary))
    else:
        files = summary["files"]
        print(
            f"wrote {files[0]}"
            + (f" ... {files[-1]} ({len(files)} frames)" if len(files) > 1 else "")
        )
    return 0
