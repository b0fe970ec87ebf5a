"""Arguments shared by every ``dgraph`` command, including the method families' own, and
their checks: each bad value is one line naming the option, and every list of valid
values in a message comes from the same tuple as the option's ``--help``.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np

from ..core.files import output_path, write_atomic
from ..core.graph import DGraph
from ..errors import InputError
from ..faces.sequence import parse_faces
from ..frontends import LEVELS, load
from ..frontends.trace import GRANULARITIES
from ..methods import METHODS
from ..second_order import HESSIAN_METHODS

__all__ = [
    "BUDGET_HELP",
    "MAX_BUDGET",
    "budget",
    "choice_list",
    "cut_list",
    "edge_sequence",
    "graph_args",
    "load_graph",
    "method_argument",
    "method_options",
    "numbers",
    "output_path",
    "parameters",
    "vertex_list",
    "write_atomic",
]


MAX_BUDGET = 1e6  # seconds (11 days); timers refuse much larger timeouts


def graph_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("graph", help="file.json, file.trace or path/to/file.py:function")
    p.add_argument(
        "--granularity",
        choices=GRANULARITIES,
        default="elemental",
        help="vertices per operation (default), per two-operand operation as a tape records"
        " them (binary), or per assignment of a trace (statement)",
    )
    input_options(p)
    p.add_argument(
        "--solve",
        metavar="NAME,...",
        help="parameters the outputs are solved for, one per output: the outputs are the"
        " residuals F - M s of a linear system M s = F, affine in these s; generated code"
        " returns s and ds/dx (declare them with --params or in the file)",
    )
    p.add_argument(
        "--at",
        metavar="NUMBERS",
        help="the inputs' values, comma-separated, one per input entry in the inputs' order"
        " (arrays flattened, last axis fastest): where a tensor graph's values are checked"
        " first, before random points (a program finite only near it is checked there)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def input_options(p: Any) -> None:
    """``--inputs``, ``--level`` and ``--params``: how a Python function is read."""
    p.add_argument(
        "--inputs",
        metavar="NAME[:SHAPE],...",
        action="append",
        help="shapes of a Python function's parameters, comma-separated or repeated: x:3,y"
        " (x a vector of 3, y a scalar; default: every parameter a scalar); a shape with"
        " several axes, u:100x100, traces the function at the array level",
    )
    p.add_argument(
        "--level",
        choices=LEVELS,
        help="a Python function's vertices: one per scalar operation (element; the default"
        " unless an input has several axes) or one per array operation (array)",
    )
    p.add_argument(
        "--params",
        metavar="NAME,...",
        help="names that are not differentiated (masses, lengths, g): a Python function's"
        " parameters or names a trace or JSON labels use; generated code takes them as its"
        " last argument p. NAME=INTEGER (n=5, or True/False for a flag) gives a function's"
        " parameter that fixes its structure (range(n), a loop bound, a shape, if flag:) its"
        " value: the function is read closed over at it where reading it as a number fails",
    )


def method_argument(p: argparse.ArgumentParser, what: str, extra: Sequence[str] = ()) -> None:
    """``--method/-m M``: one of :data:`dgraph.methods.METHODS` (and ``extra``), listed in
    the help."""
    p.add_argument(
        "--method",
        "-m",
        choices=(*METHODS, *extra),
        default="markowitz",
        metavar="M",
        help=f"{what}: {', '.join(METHODS)}"
        + (f"; with --hessian also {', '.join(extra)}" if extra else ""),
    )


def hessian_options(p: argparse.ArgumentParser) -> None:
    """``--hessian`` (the graph's Hessian graph instead of the graph) and ``--weights``."""
    p.add_argument(
        "--hessian",
        action="store_true",
        help="work on the Hessian graph (Dixon's symmetric graph of the gradient) of a graph"
        " of scalars: the Hessian of its output, or of the Lagrangian with --weights",
    )
    p.add_argument(
        "--weights",
        metavar="NUMBERS",
        help="--hessian of several outputs: the Lagrangian's weights, one per output"
        " (comma-separated)",
    )


def output_weights(text: str, graph: DGraph) -> np.ndarray:
    """``--weights``: one number for every output entry, or one per entry (a graph of
    scalars: per output, and only where it has several; a tensor graph's several outputs:
    their entries in order)."""
    values = np.array(numbers(text, "--weights"))
    if not graph.is_tensor:
        count = len(graph.outputs)
        if count == 1:
            raise InputError(
                "--weights are for the Lagrangian of several outputs; the graph has one output"
            )
        if values.size not in (1, count):
            raise InputError(f"--weights: {values.size} numbers for the {count} outputs")
        return np.broadcast_to(values, (count,)).copy()
    shapes = [graph.shape(y) for y in graph.outputs]
    # several outputs (a list of scalars, several arrays): one vector of their entries
    shape = shapes[0] if len(shapes) == 1 else (sum(int(np.prod(s)) for s in shapes),)
    if values.size == 1:
        return np.full(shape, values[0])
    if values.size != int(np.prod(shape)):
        what = "an output" if len(shapes) == 1 else f"{len(shapes)} outputs"
        size = int(np.prod(shape))
        entries = "1 entry" if size == 1 else f"{size} entries"
        raise InputError(f"--weights: {values.size} numbers for {what} of {entries}")
    return values.reshape(shape)


def hessian_method(args: argparse.Namespace) -> None:
    """``--method``'s default, ``symmetric`` with ``--hessian`` and ``markowitz`` without;
    a Hessian method, and ``--weights``, only with ``--hessian``."""
    args.method = args.method or ("symmetric" if args.hessian else "markowitz")
    if args.method in HESSIAN_METHODS and not args.hessian:
        raise InputError(f"--method {args.method} accumulates a Hessian: give --hessian")
    if args.weights is not None and not args.hessian:
        raise InputError("--weights is for --hessian")


def hessian_weights(args: argparse.Namespace, graph: DGraph) -> dict[str, float] | None:
    """``--weights`` as the outputs' weights (:func:`output_weights`, as ``codegen --mode
    hessian`` reads them); one clear line otherwise, and for a tensor graph, whose Hessian
    is ``codegen --mode hessian``'s."""
    if graph.is_tensor:
        raise InputError(
            "--hessian draws and accumulates the Hessian graph of a graph of scalars: read"
            " the function at the element level (--level element); an array function's"
            " Hessian is codegen --mode hessian's"
        )
    if args.weights is None:
        return None
    values = output_weights(args.weights, graph)
    return dict(zip(graph.outputs, map(float, values), strict=True))


def load_graph(args: argparse.Namespace, refuse=None) -> DGraph:
    """The command's graph (``args.graph`` at ``args.granularity``); what the builder did
    silently (passive vertices folded) is said on stderr, one ``dgraph: note:`` a line,
    after ``refuse(graph)`` (a command's own refusal: its one line comes alone). What a
    user's ``file.py`` prints goes to stderr (:func:`user_code`)."""
    params, values = parameters(getattr(args, "params", None))
    with user_code():
        graph = load(
            args.graph,
            args.granularity,
            ",".join(getattr(args, "inputs", None) or ()) or None,
            params,
            names(getattr(args, "solve", None), "--solve"),
            getattr(args, "level", None),
            None if getattr(args, "at", None) is None else numbers(args.at, "--at"),
            values=values,
        )
    if refuse is not None:
        refuse(graph)
    for note in graph.notes:
        print(f"dgraph: note: {note}", file=sys.stderr)
    return graph


def user_code() -> contextlib.AbstractContextManager:
    """Where a user's ``file.py`` runs (imported, traced, read again for its gradient):
    what it prints goes to stderr, since stdout is the command's answer (``--json``: one
    JSON object)."""
    return contextlib.redirect_stdout(sys.stderr)


MAX_FIXED = 10**6  # largest magnitude of a value --params gives (a trip count, a shape)


def parameters(text: str | None) -> tuple[list[str], dict[str, int | bool]]:
    """``--params g,l,n=5``: the names, and the values given (an integer, or True/False
    for a flag: what fixes a function's structure, :mod:`dgraph.frontends.fixed_parameters`);
    one clear line otherwise."""
    items = [t.strip() for t in (text or "").split(",") if t.strip()]
    values: dict[str, int | bool] = {}
    for item in items:
        name, equals, value = (part.strip() for part in item.partition("="))
        if not equals:
            continue
        if value in ("True", "False"):
            values[name] = value == "True"
        elif re.fullmatch(r"[+-]?\d{1,7}", value) and abs(int(value)) <= MAX_FIXED:
            values[name] = int(value)
        else:
            raise InputError(
                f"--params: {_short(item)}: a value given here is one integer from"
                f" -{MAX_FIXED:,} to {MAX_FIXED:,}, or True/False (what fixes a function's"
                " structure: a trip count, a shape, a flag); other parameters have no value"
            )
    given = names(",".join(item.partition("=")[0] for item in items), "--params")
    return given, values


def names(text: str | None, option: str) -> list[str]:
    """``a,b,c`` as a list of identifiers, each once; one clear line otherwise."""
    items = [t.strip() for t in (text or "").split(",") if t.strip()]
    for item in items:
        if not item.isidentifier():
            raise InputError(f"{option}: {_short(item)} is not a name")
    _no_repeats(items, option)
    return items


BUDGET_HELP = (
    "seconds of work (counted, not timed: the same result on every machine, however"
    " loaded; a ceiling of 3x the budget + 5 s of CPU time, not wall clock, stops a far"
    " slower machine, and the output says so)"
)


def budget(text: str) -> float:
    """Seconds for ``--budget``: a finite number >= 0 (``nan`` or ``inf`` would never end
    a search); argparse puts the option's name before the message. The searches spend it
    as counted work (:mod:`dgraph.search.best`, :data:`BUDGET_HELP`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs seconds, got {_short(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"needs a finite number of seconds, got {_short(text)}")
    if not 0 <= value <= MAX_BUDGET:
        raise argparse.ArgumentTypeError(
            f"must be in [0, {MAX_BUDGET:.0e}] seconds, got {_short(text)}"
        )
    return value


def numbers(text: str, option: str) -> list[float]:
    """Comma-separated finite numbers, or a one-line error naming the option."""
    values = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        try:
            value = float(item)
        except ValueError:
            raise InputError(
                f"{option} needs comma-separated numbers, got {_short(item)}"
            ) from None
        if not math.isfinite(value):
            raise InputError(f"{option} needs finite numbers, got {_short(item)}")
        values.append(value)
    return values


def choice_list(text: str, choices: Sequence[str], option: str, what: str = "value") -> list[str]:
    """A comma-separated list of values from ``choices``, each once (``what`` names one in
    messages)."""
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise InputError(f"{option}: an empty {what} in {_short(text)}; use {', '.join(choices)}")
    for item in items:
        if item not in choices:
            raise InputError(f"{option}: unknown {what} {_short(item)}; use {', '.join(choices)}")
    _no_repeats(items, option)
    return items


def vertex_list(
    graph: DGraph, text: str, option: str, allowed: Iterable[str], what: str
) -> list[str]:
    """A comma-separated list of vertices of ``graph``, each once and each in ``allowed``
    (described by ``what``, e.g. "an intermediate")."""
    items = [t.strip() for t in text.split(",")]
    if not any(items):
        raise InputError(f"{option}: no vertices given")
    if not all(items):
        raise InputError(f"{option}: empty vertex name in {_short(text)}")
    permitted = set(allowed)
    for v in items:
        _known(graph, v, option)
        if v not in permitted:
            raise InputError(f"{option}: {v!r} is {_role(graph, v)}, not {what}")
    _no_repeats(items, option)
    return items


_ELIMINATIONS = {"f": "forward", "b": "backward", "forward": "forward", "backward": "backward"}


def edge_sequence(graph: DGraph, text: str, option: str = "--order") -> list[tuple[str, Any]]:
    """Edge eliminations ``f:i>j,b:k>l`` between vertices of ``graph``, and vertex
    eliminations ``v:k`` among them (whether an edge or vertex is still there when its
    turn comes is checked as the sequence is replayed)."""
    sequence: list[tuple[str, Any]] = []
    for item in (t.strip() for t in text.split(",")):
        kind, _, edge = item.partition(":")
        if kind.strip() == "v":
            vertex = edge.strip()
            _known(graph, vertex, option)
            if graph.role(vertex) != "intermediate":
                raise InputError(
                    f"{option} item {_short(item)}: {vertex!r} is {_role(graph, vertex)},"
                    " not an intermediate"
                )
            sequence.append(("vertex", vertex))
            continue
        source, _, target = (s.strip() for s in edge.partition(">"))
        if kind.strip() not in _ELIMINATIONS or not source or not target:
            raise InputError(
                f"{option} item {_short(item)}: expected f:SOURCE>TARGET, b:SOURCE>TARGET"
                " or v:VERTEX"
            )
        for v in (source, target):
            _known(graph, v, option)
        direction = _ELIMINATIONS[kind.strip()]
        inner = source if direction == "forward" else target  # stays an intermediate
        if graph.role(inner) != "intermediate":
            raise InputError(
                f"{option} item {_short(item)}: {direction} elimination needs an intermediate"
                f" {'source' if direction == 'forward' else 'target'}; {inner!r} is"
                f" {_role(graph, inner)}"
            )
        if source == target or not nx.has_path(graph.nx, source, target):  # fill-in needs a path
            raise InputError(f"{option} item {_short(item)}: no edge {source} -> {target}")
        sequence.append((direction, (source, target)))
    return sequence


def method_options(graph: DGraph, method: str, order: str | None) -> dict[str, Any]:
    """The ``--order`` of methods ``vertex`` (intermediates ``v1,v2``), ``edges``
    (``f:i>j,b:k>l``) and ``faces`` (``[i->j, j->k], ...``) as their keyword options,
    checked against ``graph`` (faces when replayed: their names depend on the faces
    before them)."""
    if order is None:
        return {}
    if method == "vertex":
        intermediates = graph.intermediates
        items = [t.strip() for t in order.split(",") if t.strip()]
        if items and all(t.isdigit() for t in items):
            order = ",".join(by_equation(graph, [int(t) for t in items]))
        return {"order": vertex_list(graph, order, "--order", intermediates, "an intermediate")}
    if method == "edges":
        return {"sequence": edge_sequence(graph, order)}
    if method == "faces":
        return {"faces": parse_faces(order)}
    raise InputError(f"--order applies to methods vertex, edges and faces, not {method!r}")


def by_equation(graph: DGraph, indices: list[int]) -> list[str]:
    """The intermediates of equations ``indices`` of a graph read from a jaxpr (named
    ``v<k>``, or ``v<k>_<i>`` per element; another letter where inputs take ``v``), in
    that order: an elimination order published over jaxpr equations, replayed."""
    found: dict[int, list[str]] = {}
    for v in graph.intermediates:
        m = re.fullmatch(r"[A-Za-z]+(\d+)(?:_\d+)*", v)
        if m:
            found.setdefault(int(m.group(1)), []).append(v)
    out = []
    for k in indices:
        if k not in found:
            raise InputError(
                f"--order: equation {k} has no intermediate vertex (folded, dropped, an"
                " output, or not a graph read from a jaxpr)"
            )
        out += found[k]
    return out


def cut_list(graph: DGraph, text: str, option: str = "--cuts") -> list[list[str]]:
    """Cuts ``a,b;c,d`` of intermediates of ``graph``, from the outputs down, none empty
    and no vertex in two of them."""
    cuts = [
        vertex_list(graph, cut, f"{option} (cut {k})", graph.intermediates, "an intermediate")
        for k, cut in enumerate(text.split(";"), start=1)
    ]
    _no_repeats([v for cut in cuts for v in cut], option)
    return cuts


def _known(graph: DGraph, v: str, option: str) -> None:
    if v not in graph:
        raise InputError(f"{option}: unknown vertex {_short(v)}")


def _role(graph: DGraph, v: str) -> str:
    return {"input": "an input", "output": "an output"}.get(graph.role(v), "an intermediate")


def _no_repeats(items: list[str], option: str) -> None:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise InputError(f"{option}: {item!r} is listed twice")
        seen.add(item)


def _short(text: str, limit: int = 60) -> str:
    """``text`` quoted, cut to ``limit`` characters: messages stay one short line."""
    return repr(text if len(text) <= limit else text[:limit] + "...")
