"""Builders: every way into a :class:`~dgraph.core.graph.DGraph`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ...errors import GraphError, InputError
from ..files import check_file, read_text
from ..graph import DGraph
from .functions import from_function, from_sympy, load_function
from .json_format import from_dict, from_json
from .trace import Granularity, from_trace

__all__ = [
    "bundled",
    "from_dict",
    "from_function",
    "from_json",
    "from_sympy",
    "from_trace",
    "load",
]


def load(spec: str | Path, granularity: Granularity = "elemental") -> DGraph:
    """Load a graph from ``file.json``, ``file.trace`` or ``path/to/file.py:function``;
    only a regular file of bounded size is read, and a graph without edges is refused
    (no output depends on an input: there is no Jacobian to accumulate)."""
    spec = str(spec)
    if ".py:" in spec:
        check_file(spec.rpartition(":")[0])
        binary = granularity == "binary"  # a traced function has no statements
        graph = from_function(load_function(spec), name=spec.rpartition(":")[2], binary=binary)
    else:
        path = Path(spec)
        if path.suffix not in (".json", ".trace"):
            raise InputError(f"{path}: unknown graph type (use .json, .trace or file.py:function)")
        text = read_text(path)
        if path.suffix == ".json":
            graph = from_json(text, source=str(path))
        else:
            graph = from_trace(text, granularity, source=str(path), name=path.stem)
    if graph.n_edges == 0:
        raise GraphError(f"{spec}: no output depends on an input (the graph has no edges)")
    return graph


def bundled(name: str) -> DGraph:
    """A graph shipped with dgraph (``dgraph/data``), e.g. ``naumann_sin.trace``.

    >>> bundled("naumann_sin.trace").intermediates
    ['v1', 'v2']
    """
    try:
        text = resources.files("dgraph.data").joinpath(name).read_text()
    except FileNotFoundError:
        raise InputError(f"{name}: no such bundled graph") from None
    if name.endswith(".json"):
        return from_json(text, source=name)
    return from_trace(text, source=name, name=name.rsplit(".", 1)[0])
