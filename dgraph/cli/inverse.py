"""``dgraph inverse``: J⁻¹v or J⁻ᵀv at a point by inverse accumulation, without forming J."""

from __future__ import annotations

import argparse
import json

from ..errors import DGraphError
from ..inverse.lumps import ORDERS
from ..inverse.sweeps import InverseProduct, inverse_product
from ..inverse.width import check_square
from .args import graph_args, load_graph, numbers, vertex_list

__all__ = ["add_arguments", "report", "run"]

SHOWN_LUMPS = 10


def add_arguments(p: argparse.ArgumentParser) -> None:
    """GRAPH, --at, --vector, --transpose, --order and --json (statement granularity by default)."""
    graph_args(p)
    p.set_defaults(granularity="statement")  # the paper's steps are statements
    # --at (graph_args): the point, one number per input in declared order (default: all 1)
    p.add_argument(
        "--vector",
        required=True,
        help="v: one number per output (J^-1 v), or per input with --transpose (J^-T v)",
    )
    p.add_argument(
        "--transpose",
        action="store_true",
        help="compute J^-T v (forward-inverse mode, no tape) instead of J^-1 v (reverse-inverse)",
    )
    p.add_argument(
        "--order",
        default="greedy",
        help=f"topological order to lump: {', '.join(ORDERS)} or a list 'v1,v2,...'",
    )


def _check_length(values: list[float], names: list[str], option: str, what: str) -> None:
    """A one-line error unless there is one number per name."""
    if len(values) != len(names):
        raise DGraphError(
            f"{option} has {len(values)} number{'s' * (len(values) != 1)}; it needs"
            f" {len(names)}, one per {what}"
            + (f" ({', '.join(names)})" if len(names) <= 10 else "")
        )


def report(name: str, product: InverseProduct, point: list[float]) -> str:
    """The readable report: lumps, result by name, multiplications and residual."""
    lin = product.linearization
    graph = lin.graph
    what = (
        "J^-T v (forward-inverse), per output,"
        if product.transpose
        else "J^-1 v (reverse-inverse), per input,"
    )
    names = graph.outputs if product.transpose else graph.inputs
    at = ", ".join(f"{x} = {v:g}" for x, v in zip(graph.inputs, point, strict=True))
    big = [lump for lump in lin.lumps if len(lump.vertices) > 1]
    lines = [
        f"{name}: n = {lin.n}, {len(lin.order)} steps in {len(lin.steps)} lumps"
        f" (largest l = {lin.max_l}); width {' '.join(map(str, lin.width))}",
        f"{what} at {at}:",
        *(f"  {v}: {r:.12g}" for v, r in zip(names, product.result, strict=True)),
        f"mults {lin.mults} per product (setup {lin.setup_mults} at this point);"
        f" residual {product.residual:.3g}",
    ]
    lines += [
        f"lump {', '.join(lump.vertices)}: l = {lump.l}, k = {lump.k}"
        f" ({', '.join(lump.consumed)} -> {', '.join(lump.produced)})"
        for lump in big[:SHOWN_LUMPS]
    ]
    if len(big) > SHOWN_LUMPS:
        lines.append(f"... and {len(big) - SHOWN_LUMPS} more lumps of several steps (--json)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Load the graph, compute J⁻¹v or J⁻ᵀv, print the report or one JSON object."""
    graph = load_graph(args)
    check_square(graph)
    point = [1.0] * len(graph.inputs) if args.at is None else numbers(args.at, "--at")
    _check_length(point, graph.inputs, "--at", "input")
    vector = numbers(args.vector, "--vector")
    if args.transpose:
        _check_length(vector, graph.inputs, "--vector", "input (with --transpose)")
    else:
        _check_length(vector, graph.outputs, "--vector", "output")
    order = args.order
    if order not in ORDERS:
        if "," not in order and order.strip() not in graph:
            raise DGraphError(
                f"--order: {order[:60]!r} is neither an order ({', '.join(ORDERS)}) nor a vertex"
            )
        computed = [v for v in graph if graph.role(v) != "input"]
        order = vertex_list(graph, order, "--order", computed, "a computed vertex")
    product = inverse_product(graph, point, vector, args.transpose, order)
    if args.json:
        print(json.dumps({"graph": graph.name, "at": point, "vector": vector, **product.to_dict()}))
    else:
        print(report(graph.name or str(args.graph), product, point))
    return 0
