"""``dgraph render``: draw a graph in one of its views, or an accumulation step by step.

The output path is checked before any drawing is made, and files are written whole or
not at all (:func:`dgraph.core.files.staged`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..core.files import staged
from ..errors import InputError
from ..render.drawing import FORMATS, VIEWS, Drawing
from ..render.regions import REGION_KINDS
from ..render.styles import STYLES
from ..second_order import HESSIAN_METHODS
from ..zhou.factorize import STRATEGIES, VARIANTS
from .args import (
    budget,
    choice_list,
    graph_args,
    hessian_method,
    hessian_options,
    hessian_weights,
    load_graph,
    method_argument,
    method_options,
    output_path,
)

__all__ = ["add_arguments", "run", "save_drawing"]

_HESSIAN_REFUSED = ("highlight", "order", "strategy", "standalone")

_STEP_FORMATS = (*FORMATS, ".html")


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help=f"file to write: {' '.join(FORMATS)} (.tex: TikZ); with --steps also .html",
    )
    p.add_argument("--view", choices=VIEWS, default="graph", help="what to draw (default graph)")
    p.add_argument(
        "--direction",
        choices=("dataflow", "dependence"),
        default=None,
        help="dataflow (inputs at the bottom; default for graph and line) or dependence "
        "(roots on top; default for levels and pages)",
    )
    p.add_argument(
        "--highlight",
        help=f"regions to mark: {', '.join(REGION_KINDS)} (comma-separated)",
    )
    p.add_argument("--style", choices=tuple(STYLES), default="paper", help="default paper")
    p.add_argument("--font", choices=("serif", "sans"), help="font family")
    p.add_argument("--title", help="a title above the drawing")
    p.add_argument("--no-labels", action="store_true", help="no edge labels")
    p.add_argument(
        "--force",
        action="store_true",
        help="draw a graph of more than 1,000 vertices anyway (not legible; slow layout),"
        " or --steps PNG frames of more than 10⁹ pixels in all (slow)",
    )
    p.add_argument(
        "--standalone", action="store_true", help=".tex: a whole LaTeX document, not a picture"
    )
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        default="backward",
        help="pages view: zhou's factorization",
    )
    p.add_argument(
        "--steps",
        action="store_true",
        help="one frame per step of --method: FILE-00.svg, FILE-01.svg, ... (or one .html)",
    )
    method_argument(
        p,
        "the method drawn by --steps (default markowitz; with --hessian symmetric)",
        tuple(HESSIAN_METHODS),
    )
    p.set_defaults(method=None)
    hessian_options(p)
    p.add_argument(
        "--order",
        help="--steps with method vertex 'v1,v2', edges 'f:i>j,b:k>l' or faces"
        " '[i->j, j->k], [j->k, k->l]'",
    )
    p.add_argument("--budget", type=budget, help="seconds for exact searches beyond their limit")
    p.add_argument(
        "--strategy",
        choices=("auto", *STRATEGIES),
        help="zhou with --steps (default auto: the cheapest)",
    )


def save_drawing(drawing: Drawing, path: Path, standalone: bool = False) -> Path:
    """Save ``drawing`` to a checked ``path`` (see :func:`output_path`) whole or not at all."""
    with staged(path.parent) as temporary:
        drawing.save(temporary / path.name, standalone=standalone)
    return path


def run(args: argparse.Namespace) -> int:
    from ..render.drawing import draw

    out = output_path(args.output, _STEP_FORMATS if args.steps else FORMATS)
    if not args.steps and out.suffix.lower() == ".html":
        raise InputError(f"{out}: .html needs --steps")
    if args.highlight is not None:
        choice_list(args.highlight, tuple(REGION_KINDS), "--highlight", "highlight")
    if args.steps and args.view != "graph":
        raise InputError(
            "--steps draws the graph (the line graph for face eliminations); drop --view"
        )
    if not args.steps and args.order is not None:
        raise InputError("--order applies to --steps")
    hessian_method(args)
    if args.hessian:
        given = [f"--{k}" for k in _HESSIAN_REFUSED if getattr(args, k, None)]
        given += ["--view"] * (args.view != "graph") + ["--direction"] * bool(args.direction)
        if given:
            raise InputError(
                f"{given[0]} does not apply to --hessian (the symmetric graph's own layout)"
            )
    graph = load_graph(args)
    if args.steps:
        viewer = _hessian_steps(args, graph) if args.hessian else _steps(args, graph)
        with staged(out.parent) as temporary:
            saved = viewer.save(temporary / out.name, force=args.force)
        paths = [out.parent / p.name for p in saved]
        summary = {
            "file": str(paths[0]),
            "files": [str(p) for p in paths],
            "frames": len(viewer),
            "method": viewer.expression_set.method,
            "mults": viewer.expression_set.mults,
        }
        if viewer.expression_set.graph.is_tensor:  # each step's price in its blocks' mults
            summary["step_mults"] = [frame.price for frame in viewer.frames[1:]]
    elif args.hessian:
        from ..render.hessian import draw_hessian

        drawing = draw_hessian(
            graph, hessian_weights(args, graph), style=args.style, font=args.font,
            labels=not args.no_labels, title=args.title, force=args.force,
        )  # fmt: skip
        path = save_drawing(drawing, out)
        summary = {"file": str(path), "files": [str(path)], "view": "hessian"}
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
            force=args.force,
        )
        path = save_drawing(drawing, out, standalone=args.standalone)
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


def _steps(args: argparse.Namespace, graph):
    """``--steps``: the frames of ``--method`` on the graph."""
    from ..render.stepviews import steps
    from ..render.styles import get_style

    options = method_options(graph, args.method, args.order)
    if args.strategy is not None:  # given: the method refuses it unless it is zhou
        options["strategy"] = args.strategy
    return steps(
        graph,
        args.method,
        direction=args.direction or "dataflow",
        style=get_style(args.style, args.font),
        budget=args.budget,
        force=args.force,
        **options,
    )


def _hessian_steps(args: argparse.Namespace, graph):
    """``--hessian --steps``: a Hessian method's frames on the Hessian graph, drawn on
    Dixon's mirror layout (:func:`~dgraph.render.hessian.hessian_layout`)."""
    from ..methods.hessian import accumulate_hessian
    from ..render.hessian import hessian_layout
    from ..render.stepviews import steps
    from ..render.styles import get_style

    es = accumulate_hessian(graph, args.method, hessian_weights(args, graph), budget=args.budget)
    style = get_style(args.style, args.font)
    layout = hessian_layout(graph, es.graph, style, labels="symbol")
    return steps(es, style=style, force=args.force, layout=layout)
