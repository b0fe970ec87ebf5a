"""The dgraph/1 JSON interchange format (data-flow direction; docs/interface.md).

Expressions and labels are read by the restricted parser of :mod:`dgraph.core.parse`
(nothing in the file is evaluated); labels given beside their target's expression must
agree with it (:mod:`dgraph.core.labels`); vertices no output depends on are dropped as
dead code, and vertices no input reaches are folded as constants, each with a note
(:mod:`dgraph.core.activity`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..blocks.array_json import op_from_json, shape_from_json
from ..blocks.arrays import evaluate
from ..core.activity import drop_dead, fold_passive
from ..core.constant_entries import known_entries
from ..core.graph import DGraph
from ..core.labels import check_labels
from ..core.parse import parse_expression
from ..errors import GraphError, InputError
from .elemental import gc_paused

__all__ = ["FORMAT", "from_dict", "from_json"]

FORMAT = "dgraph/1"


def _no_constant(name: str) -> None:
    """A bare ``NaN``/``Infinity`` anywhere in the file (a label, a point, a constant:
    Python's ``json`` reads them, JSON has none)."""
    raise InputError(
        f"{name} is not a number dgraph accepts (labels and points must be finite; a tensor"
        ' constant writes "inf", "-inf" or "nan" as a string)'
    )


def from_json(text: str, source: str = "<json>", params: Iterable[str] = ()) -> DGraph:
    """Build a graph from dgraph/1 JSON text.

    Parameters
    ----------
    text
        The JSON text.
    source
        Named in error messages.
    params
        Names the expressions use that are parameters (not differentiated), added to the
        file's own ``parameters``.

    Returns
    -------
    DGraph

    Raises
    ------
    InputError
        Text that is not JSON, or an object :func:`from_dict` refuses.

    Examples
    --------
    >>> g = from_json('{"format": "dgraph/1", "inputs": ["x"], "outputs": ["y"],'
    ...               ' "edges": [{"source": "x", "target": "y", "label": "2*x"}]}')
    >>> g.partial("x", "y")
    2*x
    """
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    except ValueError:  # an integer beyond Python's digit limit
        raise InputError(f"{source}: a number in the JSON has too many digits") from None
    except RecursionError:
        raise InputError(f"{source}: the JSON is nested too deeply") from None
    params = list(params)
    if params and isinstance(data, dict):
        given = data.get("parameters", [])
        data["parameters"] = [*given, *params] if isinstance(given, list) else given
    return from_dict(data, source)


def _list_of(data: dict, key: str, kind: type, source: str, required: bool = True) -> list:
    if key not in data:
        if required:
            raise InputError(f"{source}: missing key {key!r}")
        return []
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        what = {str: "names (strings)", dict: "objects"}[kind]
        raise InputError(f"{source}: {key!r} must be a list of {what}")
    return value


def _label_text(label: Any, where: str) -> str:
    """A label as text for the parser: a string, or a finite number (not a boolean)."""
    if isinstance(label, str):
        return label
    if isinstance(label, bool) or not isinstance(label, (int, float)):
        raise InputError(f"{where}: 'label' must be a string or a number")
    if isinstance(label, float) and not math.isfinite(label):
        raise InputError(f"{where}: the label {label} is not finite")
    return repr(label)


def from_dict(data: Any, source: str = "<json>") -> DGraph:
    """Build a graph from a parsed dgraph/1 object (the dict :func:`json.loads` gives).

    Parameters
    ----------
    data
        The object: ``format``, ``inputs``, ``outputs``, ``edges`` and optional vertex
        expressions, parameters and point.
    source
        Named in error messages.

    Returns
    -------
    DGraph

    Raises
    ------
    InputError
        A malformed object, an unknown name, an expression outside the restricted
        grammar (labels are parsed, never evaluated); one line naming the place.
    """
    with gc_paused():
        graph = _from_dict(data, source)
    if isinstance(data, dict) and "point" in data:
        values = _point(data["point"], graph, source)
        graph.set_point({x: values[x] for x in graph.inputs})
        wanted = _point_parameters(graph)
        if wanted and all(p in values for p in wanted):
            graph.set_parameter_point(values)
    if not graph.is_tensor:
        check_labels(graph, source)  # at the user's point first, where the file gives one
    return graph


def _point_parameters(graph: DGraph) -> list[str]:
    """The parameters a point may give: a tensor graph's arrays, a scalar graph's free
    parameters (not the ones it solves for)."""
    if graph.is_tensor:
        return list(graph.parameter_shapes)
    return [p for p in graph.parameters if p not in graph.solved]


def _point(given: Any, graph: DGraph, source: str) -> dict[str, np.ndarray]:
    """The optional ``point``: each input's value (a number, or nested lists of its
    shape; a tensor graph's array parameters' and a scalar graph's parameters' too,
    optionally), finite: where values are checked first."""
    where = f"{source}: 'point'"
    inputs, arrays = set(graph.inputs), set(_point_parameters(graph))
    if not isinstance(given, dict) or not inputs <= set(given) <= inputs | arrays:
        raise InputError(f"{where} must be an object with one value for each input")
    out = {}
    for x in [*graph.inputs, *(p for p in _point_parameters(graph) if p in given)]:
        value = given[x]
        try:
            array = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{where}: the value of {x[:40]!r} is not numbers") from None
        except OverflowError:  # an integer past the doubles
            raise InputError(f"{where}: the value of {x[:40]!r} is not finite") from None
        if any(isinstance(v, (bool, str)) for v in np.asarray(value, dtype=object).reshape(-1)):
            raise InputError(f"{where}: the value of {x[:40]!r} is not numbers")
        shape = graph.shape(x) if graph.is_tensor and x in graph.inputs else ()
        shape = graph.parameter_shapes.get(x, shape)
        if array.shape != shape:
            raise InputError(f"{where}: {x[:40]!r} has the shape {array.shape}, not {shape}")
        if not np.isfinite(array).all():
            raise InputError(f"{where}: the value of {x[:40]!r} is not finite")
        out[x] = array
    return out


def _from_dict(data: Any, source: str) -> DGraph:
    if not isinstance(data, dict):
        raise InputError(f"{source}: the top level must be a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise InputError(f"{source}: format {str(data['format'])[:40]!r} is not {FORMAT!r}")
    inputs = _list_of(data, "inputs", str, source)
    outputs = _list_of(data, "outputs", str, source)
    vertices = _list_of(data, "vertices", dict, source, required=False)
    edges = _list_of(data, "edges", dict, source)
    parameters = _list_of(data, "parameters", str, source, required=False)
    solved = _list_of(data, "solved", str, source, required=False)
    if not isinstance(data.get("name", ""), str):
        raise InputError(f"{source}: 'name' must be a string")
    if not inputs:
        raise GraphError(f"{source}: graph has no inputs")
    if not outputs:
        raise GraphError(f"{source}: graph has no outputs")
    for key, names in (("inputs", inputs), ("outputs", outputs)):
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise GraphError(f"{source}: {twice[:40]!r} is listed twice in {key!r}")
    both = set(inputs) & set(outputs)
    if both:
        raise GraphError(f"{source}: {sorted(both)[0]!r} is both an input and an output")

    for k, e in enumerate(edges):
        for end in ("source", "target"):
            if not isinstance(e.get(end), str):
                raise InputError(f"{source}: edge {k} has no string {end!r}")
    if any("shape" in v or "op" in v for v in vertices):
        return _tensor_graph(data, inputs, outputs, vertices, edges, source)
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

    # Vertex order: inputs, listed vertices, vertices first seen in edges, outputs.
    order = list(
        dict.fromkeys([*inputs, *exprs, *(v for e in edges for v in (e["source"], e["target"]))])
    )
    order = [v for v in order if v not in outputs] + list(outputs)
    names = set(order) | set(parameters)
    graph = DGraph(str(data.get("name", "")))
    try:
        for p in parameters:
            graph.add_parameter(p)
        for v in order:
            role = "input" if v in inputs else "output" if v in outputs else "intermediate"
            text = exprs.get(v)
            expr = parse_expression(text, names, f"{source}: vertex {v!r}") if text else None
            graph.add_vertex(v, role, expr)
        for e in edges:
            u, v, label = e["source"], e["target"], e.get("label")
            where = f"{source}: edge {u} -> {v}"
            partial = None
            if label is not None:
                partial = parse_expression(_label_text(label, where), names, where)
            graph.add_edge(u, v, partial)
        graph = fold_passive(drop_dead(graph, source)).validate()
        if solved:
            graph.solve_for(solved)
    except GraphError as exc:
        raise GraphError(f"{source}: {exc}") from None
    return graph


def _tensor_graph(data: dict, inputs, outputs, vertices, edges, source: str) -> DGraph:
    """A tensor graph: every vertex listed in evaluation order with its ``shape``, each
    but the inputs with its ``op``; the edges must be those the ops give."""
    if data.get("solved"):
        raise InputError(f"{source}: a tensor graph has no 'solved'")
    graph = DGraph(str(data.get("name", "")))
    shapes = data.get("parameter_shapes", {})
    if not isinstance(shapes, dict) or set(shapes) != set(data.get("parameters") or ()):
        raise InputError(
            f"{source}: a tensor graph's 'parameter_shapes' must give each of its"
            " 'parameters' a shape"
        )
    for p in data.get("parameters") or ():
        try:
            graph.add_parameter(p, shape_from_json(shapes[p], f"{source}: parameter {p[:40]!r}"))
        except GraphError as exc:
            raise GraphError(f"{source}: {exc}") from None
    listed = set()
    for k, v in enumerate(vertices):
        name = v.get("id")
        if not isinstance(name, str):
            raise InputError(f"{source}: vertex {k} has no string 'id'")
        where = f"{source}: vertex {name[:40]!r}"
        if name in listed:
            raise GraphError(f"{where} is listed twice")
        listed.add(name)
        unknown = set(v) - {"id", "shape", "op"}
        if unknown:
            raise InputError(f"{where}: unknown key {sorted(unknown)[0][:40]!r} in a tensor graph")
        shape = shape_from_json(v.get("shape"), where)
        role = "input" if name in inputs else "output" if name in outputs else "intermediate"
        if (role == "input") != ("op" not in v):
            raise InputError(
                f"{where}: {'an input has no' if role == 'input' else 'needs an'} 'op'"
            )
        op = None if role == "input" else op_from_json(v["op"], shape, where)
        try:
            graph.add_array_vertex(name, role, shape, op)
        except GraphError as exc:
            raise GraphError(f"{source}: {exc}") from None
        except _MISFITS as exc:  # params the primitive does not take: found by its edges
            raise InputError(f"{where}: {_misfit(exc)}") from None
        _check_op(graph, name, where)
    missing = [n for n in [*inputs, *outputs] if n not in listed]
    if missing:
        raise GraphError(f"{source}: {missing[0][:40]!r} is not among the vertices")
    graph = known_entries(graph)  # the blocks a constant mask narrows, as when traced
    given = {(e["source"], e["target"]) for e in edges}
    made = set(graph.edges())
    if given != made:
        u, v = sorted(given ^ made)[0]
        how = "is not" if (u, v) in given else "is missing from"
        raise GraphError(f"{source}: edge {u} -> {v} {how} what the vertices' ops read")
    for e in edges:  # a block type, where given, is what the op gives
        stated = e.get("block")
        if stated is not None and stated != graph.block(e["source"], e["target"]).type_name:
            found = graph.block(e["source"], e["target"]).type_name
            raise GraphError(
                f"{source}: edge {e['source']} -> {e['target']}: the block is {found},"
                f" not {str(stated)[:40]!r}"
            )
    try:
        return graph.validate()
    except GraphError as exc:
        raise GraphError(f"{source}: {exc}") from None


def _check_op(graph: DGraph, name: str, where: str) -> None:
    """The vertex's op on its operands' shapes: its value has the vertex's shape, and each
    operand's block exists (bad params, mismatched shapes: one error line)."""
    op = graph.op(name)
    if op is None:
        return
    values = {u: np.ones(graph.shape(u)) for u in op.vertices()}
    try:
        with np.errstate(all="ignore"):
            evaluate(op, values)
        for u in graph.predecessors(name):
            graph.block(u, name)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    except _MISFITS as exc:
        raise InputError(f"{where}: {_misfit(exc)}") from None


_MISFITS = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError)


def _misfit(exc: Exception) -> str:
    """What an op whose params or operands do not fit its primitive raised, as text."""
    if isinstance(exc, KeyError):
        detail = f"missing key {str(exc.args[0])[:40]!r}" if exc.args else "KeyError"
    else:
        detail = str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__
    return f"its op does not fit its operands ({detail})"
