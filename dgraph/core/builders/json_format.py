"""The dgraph/1 JSON interchange format (data-flow direction; see INTERFACE.md)."""

from __future__ import annotations

import json
from typing import Any

from ...errors import GraphError, InputError
from ..graph import DGraph
from .trace import parse_sympy

__all__ = ["FORMAT", "from_dict", "from_json"]

FORMAT = "dgraph/1"


def from_json(text: str, source: str = "<json>") -> DGraph:
    """Build a graph from dgraph/1 JSON text.

    >>> g = from_json('{"format": "dgraph/1", "inputs": ["x"], "outputs": ["y"],'
    ...               ' "edges": [{"source": "x", "target": "y", "label": "2*x"}]}')
    >>> g.partial("x", "y")
    2*x
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    return from_dict(data, source)


def _list_of(data: dict, key: str, kind: type, source: str, required: bool = True) -> list:
    if key not in data:
        if required:
            raise InputError(f"{source}: missing key {key!r}")
        return []
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise InputError(f"{source}: {key!r} must be a list of {kind.__name__}s")
    return value


def from_dict(data: Any, source: str = "<json>") -> DGraph:
    """Build a graph from the parsed dgraph/1 object."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the top level must be a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise InputError(f"{source}: format {data['format']!r} is not {FORMAT!r}")
    inputs = _list_of(data, "inputs", str, source)
    outputs = _list_of(data, "outputs", str, source)
    vertices = _list_of(data, "vertices", dict, source, required=False)
    edges = _list_of(data, "edges", dict, source)
    if not inputs:
        raise GraphError(f"{source}: graph has no inputs")
    if not outputs:
        raise GraphError(f"{source}: graph has no outputs")
    both = set(inputs) & set(outputs)
    if both:
        raise GraphError(f"{source}: {sorted(both)[0]!r} is both an input and an output")

    exprs: dict[str, str | None] = {}
    for k, v in enumerate(vertices):
        if not isinstance(v.get("id"), str):
            raise InputError(f"{source}: vertex {k} has no string 'id'")
        if v["id"] in exprs:
            raise GraphError(f"{source}: vertex {v['id']!r} is listed twice")
        expr = v.get("expr")
        if expr is not None and not isinstance(expr, str):
            raise InputError(f"{source}: vertex {v['id']!r}: 'expr' must be a string")
        exprs[v["id"]] = expr
    for k, e in enumerate(edges):
        for end in ("source", "target"):
            if not isinstance(e.get(end), str):
                raise InputError(f"{source}: edge {k} has no string {end!r}")
        if e.get("label") is not None and not isinstance(e["label"], (str, int, float)):
            raise InputError(f"{source}: edge {e['source']} -> {e['target']}: bad 'label'")

    # Vertex order: inputs, listed vertices, vertices first seen in edges, outputs.
    order = list(
        dict.fromkeys([*inputs, *exprs, *(v for e in edges for v in (e["source"], e["target"]))])
    )
    order = [v for v in order if v not in outputs] + list(outputs)
    names = set(order)
    graph = DGraph(str(data.get("name", "")))
    try:
        for v in order:
            role = "input" if v in inputs else "output" if v in outputs else "intermediate"
            text = exprs.get(v)
            expr = parse_sympy(text, names, f"{source}: vertex {v!r}") if text else None
            graph.add_vertex(v, role, expr)
        for e in edges:
            u, v, label = e["source"], e["target"], e.get("label")
            where = f"{source}: edge {u} -> {v}"
            partial = parse_sympy(str(label), names, where) if label is not None else None
            graph.add_edge(u, v, partial)
        graph.validate()
    except GraphError as exc:
        raise GraphError(f"{source}: {exc}") from None
    return graph
