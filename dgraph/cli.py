"""The ``dgraph`` command line (see INTERFACE.md for the contract).

Every command takes ``--json`` and then prints one JSON object; bad input exits 2 with a
one-line error on stderr, never a traceback (set ``DGRAPH_DEBUG=1`` to see one for an
internal error).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from . import __version__
from .cliargs import budget as _budget
from .cliargs import graph_args as _graph_args
from .core.builders import load
from .core.graph import DGraph
from .core.paths import count_paths, naive_cost, path_length
from .errors import DGraphError
from .methods import COMPARED, METHODS, accumulate, compare
from .render.notebook import COLUMNS, bound_text, comparison_cells

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2 like every other bad input."""

    def error(self, message: str):  # type: ignore[override]
        raise DGraphError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dgraph", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"dgraph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("accumulate", help="accumulate the Jacobian by one method")
    _graph_args(p)
    p.add_argument("--method", "-m", default="markowitz", help=f"one of: {', '.join(METHODS)}")
    p.add_argument("--budget", type=_budget, help="seconds for exact searches beyond their limit")
    p.add_argument("--order", help="vertex order 'v1,v2' (method vertex) or 'f:i>j,b:k>l' (edges)")
    p.add_argument(
        "--metagraph",
        choices=("full", "forward", "backward", "vertex"),
        default="full",
        help="edge-optimal: search M, M_F, M_B or M_V",
    )
    p.add_argument("--strategy", default="auto", help="zhou: global, pages, pairs or auto")
    p.add_argument("--variant", default="best", help="zhou: backward, forward or best")
    p.add_argument("--cuts", help="layers: vertex sets from the roots down, 'a,b;c,d'")
    p.add_argument("--pair", action="append", help="zhou: only the entry OUTPUT,INPUT (repeatable)")
    p.add_argument("--latex", action="store_true", help="print the expression set as LaTeX")
    p.add_argument("--graph-out", help="zhou/layers: also draw the expressions as a graph")

    p = sub.add_parser("compare", help="every method side by side")
    _graph_args(p)
    p.add_argument("--methods", help=f"comma-separated (default: {','.join(COMPARED)})")
    p.add_argument("--budget", type=_budget, help="seconds for exact searches beyond their limit")

    p = sub.add_parser("structure", help="inputs, outputs, paths, depth levels")
    _graph_args(p)

    p = sub.add_parser("render", help="draw the graph (.svg .pdf .png .dot .tex), views, steps")
    importlib.import_module("dgraph.render.command").add_arguments(p)

    p = sub.add_parser("bench", help="the benchmark suite, with baselines from the same run")
    p.add_argument("--suite", default="quick", help="quick (default) or full")
    p.add_argument("--budget", type=_budget, help="seconds for exact searches beyond their limit")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("demo", help="the main job on a bundled example")
    p.add_argument("-o", "--output", default="dgraph-demo", help="directory for the files")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    for name, (module, summary) in FAMILY_COMMANDS.items():
        p = sub.add_parser(name, help=summary)
        importlib.import_module(module).add_arguments(p)
    return parser


# Commands of one method family live beside it: the module defines
# ``add_arguments(parser)`` and ``run(args) -> int`` (JSON on ``--json``, DGraphError for
# bad input).
FAMILY_COMMANDS: dict[str, tuple[str, str]] = {
    "faces": ("dgraph.faces.command", "face elimination: is an expression set realizable?"),
    "chain": ("dgraph.chain.command", "Jacobian chain products under a tape-memory bound"),
    "inverse": ("dgraph.inverse.command", "J^-1 v and J^-T v without forming J"),
    "codegen": ("dgraph.codegen.command", "generate Jacobian code (Python, C)"),
}


# -- commands -----------------------------------------------------------------------------


def _parse_order(method: str, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    items = [t.strip() for t in text.split(",") if t.strip()]
    if method == "vertex":
        return {"order": items}
    if method == "edges":
        sequence = []
        for item in items:
            kind, _, edge = item.partition(":")
            source, _, target = edge.partition(">")
            ops = {"f": "forward", "b": "backward", "forward": "forward", "backward": "backward"}
            if kind not in ops or not source or not target:
                raise DGraphError(
                    f"--order item {item!r}: expected f:SOURCE>TARGET or b:SOURCE>TARGET"
                )
            sequence.append((ops[kind], (source, target)))
        return {"sequence": sequence}
    raise DGraphError(f"--order applies to methods vertex and edges, not {method!r}")


def _pair(text: str) -> tuple[str, str]:
    output, _, input_ = text.partition(",")
    if not output.strip() or not input_.strip():
        raise DGraphError(f"--pair {text!r}: expected OUTPUT,INPUT")
    return output.strip(), input_.strip()


def _graph_summary(graph: DGraph) -> str:
    return (
        f"{graph.name or 'graph'}: {len(graph.inputs)} inputs, {len(graph.intermediates)} "
        f"intermediates, {len(graph.outputs)} outputs, {graph.n_edges} edges; "
        f"{count_paths(graph)} paths (naive cost L - N = {naive_cost(graph)})"
    )


def cmd_accumulate(args: argparse.Namespace) -> int:
    graph = load(args.graph, args.granularity)
    options = _parse_order(args.method, args.order)
    if args.pair:
        options["pairs"] = [_pair(text) for text in args.pair]
    if args.cuts:
        options["cuts"] = [
            [v.strip() for v in cut.split(",") if v.strip()] for cut in args.cuts.split(";")
        ]
    es = accumulate(
        graph,
        args.method,
        budget=args.budget,
        metagraph=args.metagraph,
        strategy=args.strategy,
        variant=args.variant,
        **options,
    )
    if args.graph_out:
        from .render.dot import render
        from .zhou.convert import expression_graph

        laid_out = expression_graph(es)
        render(laid_out.graph, args.graph_out, "dependence", edge_labels=laid_out.label)
    if args.json:
        print(json.dumps(es.to_dict()))
    else:
        print(_graph_summary(graph))
        print(_cost_line(es))
        print("steps: " + ", ".join(map(str, es.steps)))
        print(es.to_latex() if args.latex else es.to_text())
    return 0 if es.verified else 1


def _cost_line(es) -> str:
    check = es.verification
    status = (
        f"verified ({check.mode}: {check.detail})"
        if es.verified
        else f"NOT verified: {check.detail}"
    )
    extra = ""
    if "optimal" in es.info:
        extra = (
            " — proven optimal"
            if es.info["optimal"]
            else f" — best found; lower bound {es.info['lower_bound']}"
        )
    if "budget_note" in es.info:
        extra += f" — {es.info['budget_note']}"
    return (
        f"{es.method}: {es.mults} mults ({es.mults_effective} effective), {es.adds} adds, "
        f"{status}{extra}"
    )


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=False))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def compare_report(comparison) -> str:
    rows = [list(COLUMNS)]
    rows += [comparison_cells(row) for row in comparison.rows() if "skipped" not in row]
    text = _table(rows)
    for method, why in comparison.skipped.items():
        text += f"\n{method}: skipped — {why}"
    text += f"\nbest: {comparison.best}"
    bound = bound_text(comparison)
    return text + (f"; {bound}" if bound else "")


def cmd_compare(args: argparse.Namespace) -> int:
    graph = load(args.graph, args.granularity)
    methods = [m.strip() for m in args.methods.split(",")] if args.methods else None
    for m in methods or []:
        if m not in METHODS or m in ("vertex", "edges"):
            raise DGraphError(f"compare: unknown method {m!r}")
    comparison = compare(graph, methods, args.budget)
    if args.json:
        print(json.dumps(comparison.to_dict()))
    else:
        print(_graph_summary(graph))
        print(compare_report(comparison))
    return 0 if all(es.verified for es in comparison.results.values()) else 1


def structure(graph: DGraph) -> dict[str, Any]:
    from .dominance.umbrellas import closed_umbrellas, umbrellas
    from .zhou.structure import zhou_structure

    return {
        "inputs": graph.inputs,
        "outputs": graph.outputs,
        "intermediates": graph.intermediates,
        "edges": [list(e) for e in graph.edges()],
        "paths": count_paths(graph),
        "path_length": path_length(graph),
        **zhou_structure(graph),
        "closed_umbrellas": [c.to_dict() for c in closed_umbrellas(graph)],
        "umbrellas": [u.to_dict() for u in umbrellas(graph)],
    }


def cmd_structure(args: argparse.Namespace) -> int:
    graph = load(args.graph, args.granularity)
    data = structure(graph)
    if args.json:
        print(json.dumps(data))
        return 0
    print(_graph_summary(graph))
    for key in ("inputs", "outputs", "intermediates"):
        print(f"{key}: {', '.join(data[key])}")
    print(f"paths N = {data['paths']}, total length L = {data['path_length']}")
    for k, level in enumerate(data["levels"], start=1):
        print(f"level {k}: {', '.join(level)}")
    for c in data["chains"]:
        print(f"{c['kind']} chain {c['source']} -> {c['sink']} through {', '.join(c['inner'])}")
    for b in data["blocks"]:
        print(f"{b['kind']} block {b['source']} -> {b['sink']} around {', '.join(b['inner'])}")
    for c in data["closed_umbrellas"]:
        print(f"closed umbrella {c['input']} -> {c['output']}: {', '.join(c['vertices'])}")
    for u in data["umbrellas"]:
        copies = (
            f" (copying {', '.join(f'{a}->{b}' for a, b in u['copies'])})" if u["copies"] else ""
        )
        print(f"umbrella into {u['output']}: {', '.join(u['vertices'])}{copies}")
    if data["cross_level_edges"]:
        spans = (f"{u} -> {v} ({n} levels)" for u, v, n in data["cross_level_edges"])
        print("cross-level edges: " + ", ".join(spans))
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    return importlib.import_module("dgraph.render.command").run(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench.run import bench, markdown

    result = bench(args.suite, budget=args.budget)
    if args.json:
        print(json.dumps(result))
    else:
        print(markdown(result))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import demo

    return demo(Path(args.output), as_json=args.json)


COMMANDS = {
    "accumulate": cmd_accumulate,
    "compare": cmd_compare,
    "structure": cmd_structure,
    "render": cmd_render,
    "bench": cmd_bench,
    "demo": cmd_demo,
}


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.command in FAMILY_COMMANDS:
            return importlib.import_module(FAMILY_COMMANDS[args.command][0]).run(args)
        return COMMANDS[args.command](args)
    except DGraphError as exc:
        print(f"dgraph: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dgraph: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # an internal error: one line unless debugging
        if os.environ.get("DGRAPH_DEBUG"):
            traceback.print_exc()
        print(f"dgraph: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
