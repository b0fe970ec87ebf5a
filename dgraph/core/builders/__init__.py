"""Builders: every way into a :class:`~dgraph.core.graph.DGraph`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import GraphError, InputError
from ..files import check_file, read_text
from ..graph import DGraph
from .functions import from_function, from_sympy, load_function, uses_jax
from .jaxpr import NotJax, from_jax
from .json_format import from_dict, from_json
from .linear import from_linear_system
from .trace import Granularity, from_trace

__all__ = [
    "bundled",
    "from_dict",
    "from_function",
    "from_jax",
    "from_json",
    "from_linear_system",
    "from_sympy",
    "from_trace",
    "load",
]


def load(
    spec: str | Path,
    granularity: Granularity = "elemental",
    inputs: str | None = None,
    params: list[str] | tuple[str, ...] = (),
    solve: list[str] | tuple[str, ...] = (),
) -> DGraph:
    """Load a graph from ``file.json``, ``file.trace`` or ``path/to/file.py:function``;
    only a regular file of bounded size is read, and a graph without edges is refused
    (no output depends on an input: there is no Jacobian to accumulate). A function that
    uses JAX (decided per function, :func:`uses_jax`) is read from its jaxpr
    (:func:`from_jax`), falling back to the NumPy tracer where JAX cannot trace it; others
    are traced (:func:`from_function`: sympy, NumPy's ufuncs, :mod:`math`); the graph's
    ``traced_with`` says which. ``inputs`` (``"x:3,y"``)
    gives its parameters' sizes. ``params`` names what is not differentiated: parameters of
    the function, or names a trace's statements or a JSON file's expressions use; ``solve``
    names parameters the outputs are solved for (:meth:`DGraph.solve_for`: the outputs are
    a linear system's residuals)."""
    spec = str(spec)
    if ".py:" in spec:
        check_file(spec.rpartition(":")[0])
        f = load_function(spec)
        name = spec.rpartition(":")[2]
        sizes = input_sizes(inputs, f)
        binary = granularity == "binary"  # a traced function has no statements
        if uses_jax(f):
            if params:
                raise InputError(
                    f"{spec}: --params is not supported for JAX functions yet; pass the values"
                    " inside the function, or write it with NumPy"
                )
            graph = _jax_or_numpy(f, name, sizes, binary)
        else:
            graph = from_function(f, name=name, binary=binary, sizes=sizes, params=params)
    else:
        path = Path(spec)
        if path.suffix not in (".json", ".trace"):
            raise InputError(f"{path}: unknown graph type (use .json, .trace or file.py:function)")
        text = read_text(path)
        if path.suffix == ".json":
            graph = from_json(text, source=str(path), params=params)
        else:
            graph = from_trace(text, granularity, str(path), path.stem, params)
    if graph.n_edges == 0:
        raise GraphError(f"{spec}: no output depends on an input (the graph has no edges)")
    if solve:
        missing = [s for s in solve if s not in graph.parameters]
        if missing:
            raise InputError(
                f"--solve: {missing[0]!r} is not a parameter (declare it with --params)"
            )
        graph.solve_for(solve)
    return graph


def _jax_or_numpy(f, name: str, sizes: list[int], binary: bool) -> DGraph:
    """``f`` read from its jaxpr; where JAX cannot trace it because it turns JAX values
    into NumPy or Python ones (:class:`~dgraph.core.builders.jaxpr.NotJax`: a NumPy
    function that :func:`uses_jax` took for a JAX one), traced as NumPy, with a note."""
    try:
        return from_jax(f, *(np.ones(n) if n else 1.0 for n in sizes), name=name)
    except NotJax as exc:
        jax_failure = exc
        try:
            graph = from_function(f, name=name, binary=binary, sizes=sizes)
        except InputError as numpy_failure:
            why = str(numpy_failure).removeprefix(f"{name}: ")
            why = why if len(why) <= 160 else why[:159] + "…"
            raise InputError(f"{jax_failure}; as NumPy: {why}") from None
    reason = str(jax_failure).rpartition("tracing it with JAX failed: ")[2].partition(":")[0]
    graph.notes.append(f"{name}: JAX could not trace it ({reason}); traced as NumPy")
    return graph


def input_sizes(spec: str | None, f) -> list[int]:
    """Each parameter's size from ``"x:3,y"`` (0: a scalar), in the function's order;
    one clear line for a name the function does not have or a bad size."""
    import inspect

    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        raise InputError("cannot read the function's parameters") from None
    sizes = dict.fromkeys(params, 0)
    for item in (t.strip() for t in (spec or "").split(",") if t.strip()):
        name, _, size = item.partition(":")
        if name not in sizes:
            raise InputError(
                f"--inputs: the function has no parameter {name!r} ({', '.join(params)})"
            )
        if size and not (size.isdigit() and 0 < int(size) <= 10_000):
            raise InputError(f"--inputs: {item!r} needs a size from 1 to 10000")
        sizes[name] = int(size) if size else 0
    return list(sizes.values())


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
