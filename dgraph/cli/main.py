"""The ``dgraph`` command line (docs/interface.md has the contract).

Every command takes ``--json`` and then prints one JSON object; bad input exits 2 with a
one-line error on stderr, never a traceback (set ``DGRAPH_DEBUG=1`` to see one for an
internal error). Running out of memory (an input too large for the machine) is exit 2 too.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gc
import importlib
import json
import os
import re
import sys
import textwrap
import traceback
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..bench.suite import SUITES
from ..chain.partition import vertex_cuts
from ..codegen.selection import choice_seconds, codegen_choice
from ..core.budget import Deadline, now
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.progress import method_progress
from ..errors import DGraphError, InputError
from ..faces.optimal import FACE_LIMIT
from ..methods import COMPARED, accumulate, compare, methods
from ..methods.compare import IN_PROCESS_EDGES, Comparison, compare_ceiling
from ..methods.hessian import COMPARED_HESSIAN, accumulate_hessian, compare_hessian
from ..methods.structure import structure
from ..render.drawing import FORMATS
from ..render.text import comparison_text, cost_line, counted, graph_summary, selection_text
from ..search.timebox import Background, ChildDied, timeboxed
from ..second_order import HESSIAN_METHODS
from ..version import __version__
from ..zhou.factorize import STRATEGIES, VARIANTS
from .args import (
    BUDGET_HELP,
    choice_list,
    cut_list,
    hessian_method,
    hessian_options,
    hessian_weights,
    load_graph,
    method_argument,
    method_options,
    output_path,
)
from .args import budget as _budget
from .args import graph_args as _graph_args

__all__ = ["main"]

# ``dgraph compare`` keeps its ceiling (:func:`~dgraph.methods.compare.compare_ceiling`)
# for the whole command, from the process's start: this many seconds of it for printing
# the answer and the process's exit (freeing a large graph's expressions)
EXIT_SECONDS = 0.3
# ... and makes codegen's choice while its predicted seconds
# (:func:`~dgraph.codegen.selection.choice_seconds`, a count) are at most this share of it
CHOICE_SHARE = 1 / 3
# ... beside the comparison, in a child process, on a machine of this many cores or more
# (the comparison's own child and best's use two; on fewer cores the choice beside it
# slows best's in-process phases past its ceiling: benchmarks/RESULTS.md, issue 52)
BESIDE_CORES = 4
# the most seconds before the command's start counted as the process's start (Python's
# start and dgraph's import)
STARTUP_SECONDS = 10.0

# Methods ``compare`` can run on their own: every one but those that
# replay a given order.
_COMPARABLE = tuple(methods(needs=()))


class _Formatter(argparse.HelpFormatter):
    """Help lines wrapped between words only: a method name such as ``vertex-optimal``
    stays whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


#: A value that starts with a minus and is not an option: a number or comma-separated
#: numbers (``--at -1,0.5``, ``--weights -2,1``); argparse's own pattern takes only one.
_NUMBER = r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
NEGATIVE_NUMBERS = re.compile(rf"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(,\s*{_NUMBER})*,?$")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2 like every other bad input, and
    a list of numbers that starts with a minus is a value (no option looks like one)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBERS

    def error(self, message: str):  # type: ignore[override]
        raise DGraphError(message)


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, built once a process (10 commands, 130 options: 5 ms,
    as much as a small command's work, each call): parsing reads it, changes nothing."""
    parser = _Parser(prog="dgraph", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"dgraph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("accumulate", help="accumulate the Jacobian by one method")
    _graph_args(p)
    method_argument(
        p, "one of (default markowitz; with --hessian symmetric)", tuple(HESSIAN_METHODS)
    )
    p.set_defaults(method=None)
    hessian_options(p)
    p.add_argument(
        "--budget",
        type=_budget,
        help=f"for exact searches beyond their limit (face-optimal: {FACE_LIMIT} faces): "
        + BUDGET_HELP,
    )
    p.add_argument("--seed", type=int, help="best: seed of its random choices (default 0)")
    p.add_argument(
        "--objective",
        choices=("effective", "structural"),
        help="best: what it minimizes, searches and bounds — effective mults (±1 labels"
        " free, constants folded; the default) or structural mults (every label general:"
        " plain vertex elimination's count, as AlphaGrad's)",
    )
    p.add_argument(
        "--order",
        help="vertex order 'v1,v2' or jaxpr equation indices '5,3,12' (method vertex),"
        " 'f:i>j,b:k>l,v:v3' (edges: front, back and vertex eliminations), or"
        " '[i->j, j->k], [j->k, k->l]' (faces: line-graph faces, as dgraph faces prints them)",
    )
    p.add_argument(
        "--metagraph",
        choices=("full", "forward", "backward", "vertex"),
        help="edge-optimal: search M, M_F, M_B or M_V (default full)",
    )
    p.add_argument(
        "--strategy",
        choices=("auto", *STRATEGIES),
        help="zhou (default auto: the cheapest)",
    )
    p.add_argument(
        "--variant",
        choices=("best", *VARIANTS),
        help="zhou (default best: the cheaper)",
    )
    p.add_argument(
        "--cuts",
        help="layers: vertex sets from the roots down, 'a,b;c,d', or 'auto' (vertex cuts at"
        " the local minima of the live-value count)",
    )
    p.add_argument("--pair", action="append", help="zhou: only the entry OUTPUT,INPUT (repeatable)")
    p.add_argument(
        "--latex",
        action="store_true",
        help="print LaTeX only: the expression set as align*, the report as %% comments",
    )
    p.add_argument("--graph-out", help="zhou/layers: also draw the expressions as a graph")

    p = sub.add_parser("compare", help="every method side by side")
    _graph_args(p)
    p.add_argument(
        "--methods",
        help=f"comma-separated, from: {', '.join(_COMPARABLE)} (default: {','.join(COMPARED)});"
        f" with --hessian also {', '.join(HESSIAN_METHODS)} (default:"
        f" {','.join(COMPARED_HESSIAN)})",
    )
    hessian_options(p)
    p.add_argument(
        "--budget",
        type=_budget,
        help="for the whole comparison, codegen's choice included, 60%% of it shared among"
        " the searches (default: each search its own default): " + BUDGET_HELP,
    )
    p.add_argument("--seed", type=int, default=0, help="best: seed of its random choices")
    p.add_argument(
        "--objective",
        choices=("effective", "structural"),
        default="effective",
        help="what cheapest means, for the marked winner and for best's search: effective"
        " mults, then structural (the default), or structural mults first (AlphaGrad's"
        " count)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")

    p = sub.add_parser("structure", help="inputs, outputs, paths, depth levels")
    _graph_args(p)

    p = sub.add_parser("render", help="draw the graph (.svg .pdf .png .dot .tex), views, steps")
    importlib.import_module("dgraph.cli.render").add_arguments(p)

    p = sub.add_parser("bench", help="the benchmark suite, with baselines from the same run")
    p.add_argument("--suite", choices=SUITES, default="quick", help="default quick")
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


# Commands of one method family have a module here: it defines
# ``add_arguments(parser)`` and ``run(args) -> int`` (JSON on ``--json``, DGraphError for
# bad input).
FAMILY_COMMANDS: dict[str, tuple[str, str]] = {
    "faces": ("dgraph.cli.faces", "face elimination: is an expression set realizable?"),
    "chain": ("dgraph.cli.chain", "Jacobian chain products under a tape-memory bound"),
    "inverse": ("dgraph.cli.inverse", "J^-1 v and J^-T v without forming J"),
    "codegen": ("dgraph.cli.codegen", "generate Jacobian code (Python, C)"),
}


# -- commands -----------------------------------------------------------------------------


def _pairs(graph: DGraph, texts: list[str]) -> list[tuple[str, str]]:
    """``--pair OUTPUT,INPUT`` entries, each an output and an input of ``graph``."""
    pairs = []
    for text in texts:
        names = [t.strip() for t in text.split(",")]
        if len(names) != 2 or not all(names):
            raise InputError(f"--pair {text[:60]!r}: expected OUTPUT,INPUT")
        for name, role in zip(names, ("output", "input"), strict=True):
            if name not in graph or graph.role(name) != role:
                why = f"it is an {graph.role(name)}" if name in graph else "no vertex has that name"
                raise InputError(f"--pair {text[:60]!r}: {name[:60]!r} is not an {role}; {why}")
        pairs.append((names[0], names[1]))
    return pairs


def cmd_accumulate(args: argparse.Namespace) -> int:
    graph_out = output_path(args.graph_out, FORMATS) if args.graph_out else None
    hessian_method(args)
    graph = load_graph(args)
    if args.hessian:
        return _accumulate_hessian(args, graph)
    options = method_options(graph, args.method, args.order)
    if args.pair:
        options["pairs"] = _pairs(graph, args.pair)
    if args.cuts == "auto":
        options["cuts"] = vertex_cuts(graph)
    elif args.cuts:
        options["cuts"] = cut_list(graph, args.cuts)
    # only the options given: the method refuses one it does not take
    given = {k: getattr(args, k) for k in ("seed", "objective", "metagraph", "strategy", "variant")}
    options.update((k, v) for k, v in given.items() if v is not None)
    es = accumulate(graph, args.method, budget=args.budget, **options)
    if graph_out is not None:
        from ..render.drawing import draw
        from ..zhou.convert import expression_graph
        from .render import save_drawing

        laid_out = expression_graph(es)
        drawing = draw(laid_out.graph, direction="dependence", edge_labels=laid_out.label)
        save_drawing(drawing, graph_out)
    _report(args, graph, es)
    return 0 if es.verified else 1


def _accumulate_hessian(args: argparse.Namespace, graph: DGraph) -> int:
    """``accumulate --hessian``: a Hessian method, or a Jacobian one on the Hessian graph
    (:func:`~dgraph.methods.hessian.accumulate_hessian`), reported as ``accumulate`` is."""
    weights = hessian_weights(args, graph)
    extra = {k: getattr(args, k) for k in ("order", "pair", "cuts", "graph_out", "seed")}
    given = [f"--{k.replace('_', '-')}" for k, v in extra.items() if v]
    if given:
        raise InputError(f"{given[0]} is for a Jacobian's accumulation, not --hessian")
    es = accumulate_hessian(graph, args.method, weights, budget=args.budget)
    _report(args, es.graph, es)
    return 0 if es.verified else 1


def _report(args: argparse.Namespace, graph: DGraph, es: ExpressionSet) -> None:
    """``accumulate``'s answer: JSON, or the report and the set as text or LaTeX."""
    if args.json:
        print(json.dumps(es.to_dict()))
        return
    report = [graph_summary(graph), cost_line(es), "steps: " + ", ".join(map(str, es.steps))]
    if args.latex:  # stdout is LaTeX only: the report lines become comments
        print("\n".join(_tex_comment(line) for line in report))
        print(es.to_latex())
    else:
        print("\n".join(report))
        print(es.to_text())


def _tex_comment(line: str) -> str:
    """``line`` as LaTeX comment lines (``% ...``), whatever characters it holds."""
    return "\n".join("% " + part for part in line.splitlines() or [""])


def _progress(quiet: bool) -> contextlib.AbstractContextManager:
    """A progress bar on stderr while methods run, on a terminal and unless ``quiet``."""
    return method_progress(not quiet and sys.stderr.isatty())


def cmd_compare(args: argparse.Namespace) -> int:
    if args.hessian:
        return _compare_hessian(args)
    if args.weights is not None:
        raise InputError("--weights is for --hessian")
    methods = (
        None
        if args.methods is None
        else choice_list(args.methods, _COMPARABLE, "--methods", "method")
    )
    graph = load_graph(args)
    ceiling = compare_ceiling(args.budget)
    started = getattr(args, "started", None)
    spent = 0.0 if started is None else now() - started  # Python's start, dgraph's import
    end = Deadline(ceiling - EXIT_SECONDS - spent)
    choice = _Choice(graph, ceiling, end)
    try:
        with _progress(quiet=args.json or args.quiet) as progress:
            comparison = compare(
                graph,
                methods,
                args.budget,
                args.seed,
                objective=args.objective,
                progress=progress,
                deadline=choice.deadline,
            )
        made, text = choice.made(comparison)
    finally:
        choice.stop()
    if args.json:
        data = comparison.to_dict()
        data["codegen"] = made
        print(json.dumps(data))
    else:
        print(graph_summary(graph))
        print(comparison_text(comparison))
        if text:
            print(text)
        if comparison.cut_by_time:
            print(
                "note: the time ceiling cut this comparison (a machine this slow or loaded):"
                " it may differ from run to run"
            )
        if choice.note:
            print(f"note: {choice.note}")
    return 0 if all(es.verified for es in comparison.results.values()) else 1


def _compare_hessian(args: argparse.Namespace) -> int:
    """``compare --hessian``: the Hessian methods and the Jacobian ones on the Hessian graph
    (:func:`~dgraph.methods.hessian.compare_hessian`), ranked on the lower triangle."""
    names = (*HESSIAN_METHODS, *_COMPARABLE)
    methods = (
        None if args.methods is None else choice_list(args.methods, names, "--methods", "method")
    )
    graph = load_graph(args)
    weights = hessian_weights(args, graph)
    with _progress(quiet=args.json or args.quiet):
        comparison = compare_hessian(
            graph, methods, weights, budget=args.budget, seed=args.seed, objective=args.objective
        )
    if args.json:
        print(json.dumps(comparison.to_dict()))
    else:
        print(graph_summary(comparison.graph))
        print(comparison_text(comparison))
    return 0 if all(es.verified for es in comparison.results.values()) else 1


class _Choice:
    """codegen's choice for ``dgraph compare``, within the command's ceiling ``end`` (a
    :class:`~dgraph.core.budget.Deadline`: CPU time with a wall-clock backstop). Not made
    where its predicted seconds (:func:`~dgraph.codegen.selection.choice_seconds`, a
    count) exceed
    :data:`CHOICE_SHARE` of the ``ceiling``: the same on every run. On a scalar graph of
    more than ``in_process_edges`` edges it runs in a child
    process killed at ``end`` (building a program cannot be stopped otherwise): beside the
    comparison on a machine of :data:`BESIDE_CORES` cores or more, making the candidates'
    sets itself as ``dgraph codegen`` does (the same choice), else after it, the comparison
    ending its predicted seconds early; on a smaller graph in-process after the comparison (about a
    second at most). :attr:`note` says why no choice was made."""

    def __init__(
        self,
        graph: DGraph,
        ceiling: float,
        end: Deadline,
        in_process_edges: int = IN_PROCESS_EDGES,
    ) -> None:
        self.end = end
        self.need = choice_seconds(graph)
        self.affordable = self.need <= CHOICE_SHARE * ceiling
        large = graph.n_edges > in_process_edges
        self.boxed = self.affordable and not graph.is_tensor and large
        self.job: Background | None = None
        if self.boxed and Background.concurrent() and _cores() >= BESIDE_CORES:
            self.job = Background(partial(_choice, graph), end)
        self.deadline = end.earlier(self.need) if self.affordable and self.job is None else end
        self.note = (
            ""
            if self.affordable
            else f"codegen's choice not made: building its programs on {graph.n_edges:,}"
            f" edges takes about {self.need:.1f} s, more than {CHOICE_SHARE:.0%} of this"
            f" comparison's {ceiling:g} s (a larger --budget makes it; `dgraph codegen`"
            " chooses alone)"
        )

    def made(self, comparison: Comparison) -> tuple[dict[str, Any], str]:
        """``compare --json``'s ``codegen`` object and the text shown."""
        if not self.affordable:
            return {"skipped": self.note}, ""
        if not self.boxed:
            return _choice(comparison)
        try:
            if self.job is not None:
                made = self.job.wait(self.end.left())
            else:
                made = timeboxed(partial(_choice, comparison), self.end)
        except ChildDied as exc:
            self.note = f"codegen's choice not made: its process died: {exc}"
            return {"skipped": self.note}, ""
        if made is None:
            self.note = (
                "codegen's choice not made: cut by the time ceiling (a machine this slow or"
                " loaded): it may differ from run to run"
            )
            return {"skipped": self.note, "cut_by_time": True}, ""
        return made

    def stop(self) -> None:
        """The child beside the comparison killed if it still runs."""
        if self.job is not None:
            self.job.stop()


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _choice(source: Comparison | DGraph) -> tuple[dict[str, Any], str]:
    """codegen's choice (:func:`codegen_choice`) after a comparison, or on a graph alone:
    ``compare --json``'s ``codegen`` object and its text (plain data: it may come from a
    child process)."""
    selection, why = codegen_choice(source)
    if selection is not None:
        return selection.to_dict(), selection_text(selection)
    graph = source if isinstance(source, DGraph) else source.graph
    # a tensor graph's code ships one set; otherwise why no code can be made
    return {"tensor" if graph.is_tensor else "error": why}, f"codegen: {why}"


def cmd_structure(args: argparse.Namespace) -> int:
    graph = load_graph(args)
    data = structure(graph)
    data["traced_with"] = graph.traced_with or None  # a Python function's route
    if graph.fixed_parameters:  # its integer parameters closed over, at these values
        data["fixed_parameters"] = dict(graph.fixed_parameters)
    if args.json:
        print(json.dumps(data))
        return 0
    print(graph_summary(graph))
    if graph.traced_with:
        print(f"traced with: {graph.traced_with}")
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
    if data.get("tensor"):
        print("shapes: " + ", ".join(f"{v} {_dims(s)}" for v, s in data["shapes"].items()))
        for b in data["edge_blocks"]:
            (u, v), (out, into) = b["edge"], b["shape"]
            print(
                f"Jacobian block {u} -> {v}: {b['block']}   "
                f"[{_dims(out)} ← {_dims(into)}, {b['type']},"
                f" {counted(b['stored'], 'values')}]"
            )
        counts = ", ".join(f"{t} {n}" for t, n in data["block_counts"].items())
        print(f"Jacobian blocks by type: {counts}")
        for j in data["jacobian_blocks"]:
            (y, x), (rows, cols) = j["entry"], j["shape"]
            low, mean, high = j["per_row"]
            spread = f"{mean:.3g}" if low is None else f"{low} to {high}, mean {mean:.3g}"
            print(
                f"Jacobian d{y}/d{x}: {j['type']}, {rows}×{cols}, {counted(j['nnz'], 'nonzeros')}"
                f" ({spread} per row)"
            )
    return 0


def _dims(shape: list[int]) -> str:
    return "×".join(map(str, shape)) or "1"


def cmd_render(args: argparse.Namespace) -> int:
    return importlib.import_module("dgraph.cli.render").run(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from ..bench.run import bench, markdown

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


def _run(argv: list[str] | None, started: float) -> int:
    args = _parser().parse_args(argv)
    args.started = started
    if args.command in FAMILY_COMMANDS:
        return importlib.import_module(FAMILY_COMMANDS[args.command][0]).run(args)
    return COMMANDS[args.command](args)


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad input is exit 2 with one line on stderr and nothing else (a
    floating-point warning met on the way is no part of the answer, so it stays silent)."""
    started = _started(argv)
    if argv is None:  # the command line: when the process ends, its objects need no
        atexit.register(gc.freeze)  # collecting, which takes seconds on a large graph
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return _run(argv, started)
    except DGraphError as exc:
        print(f"dgraph: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dgraph: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError as exc:  # an input too large for this machine (--inputs x:10^8)
        if os.environ.get("DGRAPH_DEBUG"):
            traceback.print_exc()
        detail = " ".join(str(exc).split())[:120]  # often empty: no "bad input" then
        print(
            f"dgraph: error: out of memory{f' ({detail})' if detail else ''}: the problem is"
            " too large for this machine's memory",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:  # an internal error: one line unless debugging
        if os.environ.get("DGRAPH_DEBUG"):
            traceback.print_exc()
        message = f"{type(exc).__name__}: {_one_line(str(exc))}"
        print(f"dgraph: internal error: {message}", file=sys.stderr)
        return 1


def _started(argv: list[str] | None) -> float:
    """When a command's time ceiling starts, a :func:`dgraph.core.budget.now` time (CPU
    seconds): the process's start for the command line (Python's start and dgraph's
    import are part of the wait; at most :data:`STARTUP_SECONDS` back), the call for
    ``main(argv)`` from Python."""
    spent = now()  # the process's CPU time so far: 0 at its start
    if argv is not None:
        return spent
    return max(0.0, spent - STARTUP_SECONDS)


def _one_line(message: str, limit: int = 500) -> str:
    """``message`` on one line of at most ``limit`` characters."""
    line = " ".join(message.split("\n")).strip() or "bad input"
    return line if len(line) <= limit else line[: limit - 3] + "..."


if __name__ == "__main__":
    sys.exit(main())
