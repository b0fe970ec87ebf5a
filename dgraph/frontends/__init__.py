"""Builders: every way into a :class:`~dgraph.core.graph.DGraph`."""

from __future__ import annotations

import importlib.util
import inspect
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from ..core.expand import DEFAULT_EDGE_LIMIT, EDGE_LIMIT, NoElementLevel
from ..core.files import check_file, read_text
from ..core.graph import DGraph
from ..core.numeric import vertex_values
from ..errors import DGraphError, GraphError, InputError
from .array_tracer import MAX_AXES, CallsJax, check_shape
from .fixed_parameters import Fixed, read_fixing
from .functions import (
    LEVELS,
    at_point,
    from_function,
    from_sympy,
    keep_parameter_values,
    load_function,
    sizes_of,
    uses_jax,
)
from .integer_casts import check_wrapped_in_range
from .jaxpr import NotJax, from_jax
from .json_format import from_dict, from_json
from .linear import from_linear_system
from .point_values import check_point_values, refuse_unread_roots
from .pytrees import flat_arguments
from .trace import Granularity, from_trace

__all__ = [
    "LEVELS",
    "bundled",
    "from_dict",
    "from_function",
    "from_jax",
    "from_json",
    "from_linear_system",
    "from_python",
    "from_sympy",
    "from_trace",
    "load",
    "told_by_jax",
]


def load(
    spec: str | Path,
    granularity: Granularity = "elemental",
    inputs: str | None = None,
    params: list[str] | tuple[str, ...] = (),
    solve: list[str] | tuple[str, ...] = (),
    level: str | None = None,
    at: Sequence[float] | None = None,
    values: Mapping[str, int | bool] | None = None,
) -> DGraph:
    """Load a graph from ``file.json``, ``file.trace`` or ``path/to/file.py:function``.

    Only a regular file of bounded size is read, and a graph without edges is refused (no
    output depends on an input: there is no Jacobian to accumulate). A function that uses
    JAX (decided per function, :func:`uses_jax`) is read from its jaxpr
    (:func:`from_jax`), falling back to the NumPy tracer where JAX cannot trace it; others
    are traced (:func:`from_function`: sympy, NumPy's ufuncs, :mod:`math`); the graph's
    ``traced_with`` says which.

    Parameters
    ----------
    spec
        The file, or ``path/to/file.py:function``.
    granularity
        For a trace: ``"elemental"``, ``"binary"`` or ``"statement"`` (:func:`from_trace`).
    inputs
        A function's parameters' shapes: ``"x:3,y"``, ``"u:100x100"``.
    params
        What is not differentiated: parameters of the function, or names a trace's
        statements or a JSON file's expressions use.
    solve
        Parameters the outputs are solved for (:meth:`DGraph.solve_for`: the outputs are a
        linear system's residuals).
    level
        ``"element"`` or ``"array"``, as :func:`from_function` takes it. By default
        ``"array"`` where an input has several axes or the inputs have over
        :data:`ELEMENT_DEFAULT_LIMIT` entries, so that a large array never expands unasked,
        or where the element level would have over
        :data:`~dgraph.core.expand.DEFAULT_EDGE_LIMIT` scalar edges (:func:`from_python`'s
        ``level=None``); the element level asked for is the array graph expanded, refused
        in one line above :data:`~dgraph.core.expand.EDGE_LIMIT` scalar edges.
    at
        The graph's :attr:`~dgraph.core.graph.DGraph.point`, where values are checked
        first: one number per input entry, the inputs in order, arrays flattened. Without
        it, a JSON file's ``point`` where it has one; a function none (the example
        arguments the loader traces a JAX function with are not the user's).
    values
        A function's ``params`` given one integer (or boolean) each (``--params n=5``):
        read with them, and closed over at them where one fixes the structure (a trip
        count ``range(n)``, a shape) so that reading it as a number fails
        (:mod:`.fixed_parameters`; the graph's ``fixed_parameters`` and a note say so).

    Returns
    -------
    DGraph

    Raises
    ------
    InputError
        A missing, oversized or unreadable file, a graph without edges, or whatever its
        reader refuses; one line.
    """
    spec = str(spec)
    if values and ".py:" not in spec:
        name = next(iter(values))
        raise InputError(
            f"--params {name}={values[name]}: a value is for a Python function's parameter"
            f" (file.py:function), not a {Path(spec).suffix or 'graph'} file's"
        )
    if ".py:" in spec:
        graph = _function_graph(spec, granularity, inputs, params, level, values)
        graph.set_point(None)  # the example arguments traced with are not the user's
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
    if at is not None:
        graph.set_point(graph.point_from(at, "--at"))
        refuse_unread_roots(graph, graph.name)
    return graph


def _function_graph(
    spec: str,
    granularity: Granularity,
    inputs: str | None,
    params,
    level: str | None,
    values: Mapping[str, int | bool] | None = None,
) -> DGraph:
    """:func:`load` of ``path/to/file.py:function``."""
    check_file(spec.rpartition(":")[0])
    f = load_function(spec)
    name = spec.rpartition(":")[2]
    unknown = [n for n in values or () if n not in params]
    if unknown:  # --params gives names and values together: not reached from the CLI
        raise InputError(f"{unknown[0]}: a value is for a parameter named in params")
    shapes = input_shapes(inputs, f, params)
    wide = next((s for s in shapes if len(s) > 1), None)
    entries = sum(math.prod(s) for s in shapes)
    asked = level
    level = level or ("array" if wide or entries > ELEMENT_DEFAULT_LIMIT else "element")
    if level not in LEVELS:
        raise InputError(f"--level {level}: use {' or '.join(LEVELS)}")
    if level == "array" or wide:  # or the array graph, expanded
        return from_python(f, name=name, sizes=shapes, params=params, level=level,
                           parameter_values=values)  # fmt: skip
    sizes = [s[0] if s else 0 for s in shapes]
    if any(n > 10_000 for n in sizes):
        raise InputError(
            f"--inputs: a vector of {max(sizes)} needs a size from 1 to 10000 at the element"
            " level (or --level array)"
        )
    binary = granularity == "binary"  # a traced function has no statements
    level = level if asked else None  # unasked: the array level where there is no element one
    return from_python(f, name=name, binary=binary, sizes=sizes, params=params, level=level,
                       parameter_values=values)  # fmt: skip


def from_python(
    f,
    *,
    name: str = "",
    n_inputs: int | None = None,
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    params: Sequence[str] = (),
    level: str | None = "element",
    point: Sequence[object] | None = None,
    binary: bool = False,
    parameter_values: Mapping[str, object] | None = None,
    fix: bool = True,
) -> DGraph:
    """A Python function's graph, by the reader its code asks for: from its jaxpr where it
    uses JAX (:func:`uses_jax`, :func:`from_jax`), falling back to the NumPy tracer where
    JAX cannot trace it (a note says so); else traced (:func:`from_function`). The
    arguments as :func:`from_function` takes them; ``point`` becomes the graph's point
    (without it a JAX function's graph has none: the arguments it was read at, ones, are
    not the user's). ``level=None`` (what :func:`~dgraph.make_function` of a function
    reads): the element level where the function has one within
    :data:`~dgraph.core.expand.DEFAULT_EDGE_LIMIT` scalar edges
    (:class:`~dgraph.core.expand.NoElementLevel`: no loop or branch, few enough edges),
    else the array level, with a note; ``level="element"`` reads up to
    :data:`~dgraph.core.expand.EDGE_LIMIT`. ``parameter_values``: the ``params``'
    values at the point (by name), read with it and kept as the graph's
    :attr:`~dgraph.core.graph.DGraph.parameter_point` (where the check evaluates at the
    user's point); without them the parameters are ones. A parameter given one integer
    there that fixes the structure (``range(n)``), where reading it as a number fails, is
    closed over at that value unless ``fix`` is false (:mod:`.fixed_parameters`: the
    graph's :attr:`~dgraph.core.graph.DGraph.fixed_parameters` and a note say so).

    >>> import jax.numpy as jnp
    >>> g = from_python(lambda x: jnp.sin(x) * x[0], sizes=[2])
    >>> g.inputs, g.traced_with
    (['x0', 'x1'], 'jax')
    """
    if fix and parameter_values and params:  # as numbers first, else closed over

        def read(fixed: Fixed | None) -> DGraph:
            if fixed is None:
                return from_python(f, name=name, n_inputs=n_inputs, sizes=sizes, params=params,
                                   level=level, point=point, binary=binary,
                                   parameter_values=parameter_values, fix=False)  # fmt: skip
            return from_python(fixed.f, name=name, n_inputs=n_inputs, sizes=fixed.drop(sizes),
                               params=fixed.kept(params), level=level, point=point,
                               binary=binary, parameter_values=fixed.rest(parameter_values),
                               fix=False)  # fmt: skip

        values = {p: v for p, v in parameter_values.items() if p in params}
        graph, fixed = read_fixing(read, f, values)
        return graph if fixed is None else fixed.mark(graph)
    trees = None
    if not params:  # pytree arguments: the function of their leaves
        f, point, _, trees = flat_arguments(f, point, params, sizes)
    graph = _read_python(f, name, n_inputs, sizes, params, level, point, binary, parameter_values)
    if trees is not None:
        trees.add_note(graph)
    if parameter_values:
        keep_parameter_values(graph, f, params, parameter_values)
        if graph.is_tensor and getattr(graph, "traced_with", "") == "numpy":
            check_wrapped_in_range(graph, name or getattr(f, "__name__", "function"))
    return graph


def _read_python(
    f, name, n_inputs, sizes, params, level, point, binary, parameter_values, limit=EDGE_LIMIT
):
    """:func:`from_python`'s reading, the parameters' values left to it; ``limit``: the
    element level's most scalar edges."""
    for k, value in enumerate(point or ()):
        try:  # a ragged tuple of arrays: a ValueError out of iscomplexobj too
            complex_ = np.iscomplexobj(value)
            if not complex_:
                np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InputError(
                f"point= entry {k} is a {type(value).__name__}, not an array or a number"
                " (a dict or list of arrays, a pytree, is read where JAX is installed and"
                " point= gives every argument; else pass each array, or flatten them)"
            ) from None
        if complex_:  # was a ComplexWarning, the imaginary part dropped
            raise InputError(
                f"point= entry {k} is complex: the derivatives are of real arguments (give"
                " its real and imaginary parts as arrays of their own)"
            )
    if sizes is None and point is not None and n_inputs is None:
        sizes = sizes_of(point)  # the example arguments
    if level is None:  # the element level within DEFAULT_EDGE_LIMIT, else the array level
        try:
            graph = _read_python(
                f, name, n_inputs, sizes, params, "element", point, binary, parameter_values,
                limit=DEFAULT_EDGE_LIMIT,
            )  # fmt: skip
            if not _nan_inside(graph):
                return graph
            array = _read_python(
                f, name, n_inputs, sizes, params, "array", point, False, parameter_values
            )
            array.notes.append(
                "read at the array level: a vertex is NaN at the point, and the element"
                " level's products do not keep a where's zeros structural (0 · NaN)"
            )
            return array
        except NoElementLevel as exc:
            if exc.array is not None and not uses_jax(f):  # traced already: the same
                label = name or getattr(f, "__name__", "function")
                graph = exc.array if point is None else at_point(exc.array, f, point, label)
            else:
                graph = _read_python(
                    f, name, n_inputs, sizes, params, "array", point, False, parameter_values
                )
            why = str(exc)
            if exc.edges is not None:  # over the default's limit, maybe not over the limit
                why = (
                    f"the element level would have {exc.edges:,} scalar edges, over the"
                    f" {DEFAULT_EDGE_LIMIT:,} read when no level is named"
                    + (
                        ' (level="element", on the command line --level element, reads it)'
                        if exc.edges <= EDGE_LIMIT
                        else f" and the limit of {EDGE_LIMIT:,}"
                    )
                )
            graph.notes.append(f"read at the array level: {why}")
            return graph
    label = name or getattr(f, "__name__", "function")
    if not uses_jax(f):
        try:
            return from_function(f, name, n_inputs, binary, sizes, params, level, point, limit)
        except NoElementLevel:
            raise
        except InputError as numpy_failure:  # JAX may read what uses_jax did not see (x.at[])
            if importlib.util.find_spec("jax") is None:
                raise
            try:
                args = _jax_arguments(f, label, n_inputs, sizes, params, point, parameter_values)
            except DGraphError:
                raise numpy_failure from None
            try:
                graph = from_jax(f, *args, name=name, level=level, limit=limit, params=params)
            except NoElementLevel:  # JAX reads it, at the array level
                raise
            except DGraphError as jax_failure:
                raise (
                    jax_failure if told_by_jax(numpy_failure, jax_failure) else numpy_failure
                ) from None
            if graph.n_edges == 0:  # JAX's constant (np.std's nan at ddof=N) answers nothing
                raise numpy_failure from None
            return _with_point(graph, point, f, label)
    args = _jax_arguments(f, label, n_inputs, sizes, params, point, parameter_values)
    try:
        graph = from_jax(f, *args, name=name, level=level, limit=limit, params=params)
    except NotJax as exc:
        jax_failure = exc
        try:
            graph = from_function(f, name, n_inputs, binary, sizes, params, level, point, limit)
        except InputError as numpy_failure:
            why = str(numpy_failure).removeprefix(f"{label}: ")
            why = why if len(why) <= 160 else why[:159] + "…"
            raise InputError(f"{jax_failure}; as NumPy: {why}") from None
        reason = str(jax_failure).rpartition("tracing it with JAX failed: ")[2].partition(":")[0]
        graph.notes.append(f"{label}: JAX could not trace it ({reason}); traced as NumPy")
        return graph
    return _with_point(graph, point, f, label)


def told_by_jax(numpy_failure: DGraphError, jax_failure: DGraphError) -> bool:
    """Whether of a function that neither the NumPy tracer nor JAX's reader read the
    latter's failure is the one to show: the NumPy tracer found that it calls JAX (a
    library's function, jaxopt's, where :func:`uses_jax` does not look), and JAX traced
    it, its reader refusing the jaxpr, or JAX's own tracing failed other than by a
    conversion to NumPy."""
    return (
        isinstance(numpy_failure, CallsJax)
        and isinstance(jax_failure, InputError)
        and not isinstance(jax_failure, NotJax)
    )


def _nan_inside(graph: DGraph) -> bool:
    """Whether an element-level graph has a NaN vertex at the user's (finite) point:
    ``np.nansum(np.where(x > 0.5, x, np.nan) ** 2)``, whose array level keeps the where's
    zeros structural (JAX's ``select`` of tangents) where the element level multiplies
    them by NaN."""
    point = graph.point
    if point is None or graph.parameters or graph.is_tensor:
        return False
    x = np.concatenate([np.ravel(point[v]) for v in graph.inputs]) if graph.inputs else None
    if x is None or not np.isfinite(x).all():
        return False
    with np.errstate(all="ignore"):
        values = vertex_values(graph, x)
    return any(np.isnan(value).any() for value in values.values())


def _with_point(graph: DGraph, point: Sequence[object] | None, f=None, label="") -> DGraph:
    """``graph`` with the user's ``point`` (None where the user gave none); an element
    level read from JAX is compared there with ``f`` itself (:func:`check_point_values`:
    the expansion into sympy is a reading of its own, which JAX's ``jvp`` checks only
    where the graph is finite)."""
    if point is None:
        graph.set_point(None)
    else:
        values = [np.asarray(v, dtype=float).reshape(-1) for v in point]
        graph.set_point(graph.point_from(np.concatenate(values) if values else [], "point="))
        if f is not None and not graph.is_tensor:
            check_point_values(graph, f, point, label)
        refuse_unread_roots(graph, label or graph.name)
    return graph


def _shape(size: int | tuple[int, ...]) -> tuple[int, ...]:
    """A ``sizes=`` entry as a shape: an int a vector's length, 0 a scalar."""
    if isinstance(size, (int, np.integer)):
        return (int(size),) if size else ()
    return tuple(int(n) for n in size)


def _jax_arguments(
    f, label: str, n_inputs, sizes, params: Sequence[str], point, values=None
) -> list:
    """The arguments ``f`` is read with by JAX: the user's ``point`` for the
    differentiated ones where given, the parameters' ``values`` (by name) where given,
    else ones of the shapes ``sizes`` says (an int a vector's length, 0 a scalar; every
    argument when ``params`` are named)."""
    if n_inputs is not None:
        return [np.ones(n_inputs)]
    try:
        signature = inspect.signature(f).parameters
    except (TypeError, ValueError):
        raise InputError(f"{label}: cannot read the function's parameters") from None
    keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)
    names = [n for n, p in signature.items() if p.kind not in keyword]  # JAX MD's R, **kw
    given = len(sizes) if sizes is not None else len(point) if point is not None else None
    if given is not None and (not params or sizes is not None) and given < len(names):
        defaulted = [  # a default, or *args given nothing (jax_md.quantity.force's)
            signature[p].default is not inspect.Parameter.empty
            or signature[p].kind == inspect.Parameter.VAR_POSITIONAL
            for p in names[given:]
        ]
        names = names[:given] if all(defaulted) else names  # the rest keep their defaults
    free = [k for k, p in enumerate(names) if p not in params]
    if sizes is None:
        shapes = [np.shape(v) for v in point] if point is not None else [()] * len(free)
        if params or len(shapes) != len(names):
            raise InputError(f"{label}: give sizes= (or point=) for its {len(names)} arguments")
    else:
        shapes = [_shape(s) for s in sizes]
        if len(shapes) != len(names):
            raise InputError(
                f"{label}: {'sizes=' if point is None else 'point='} gives {len(shapes)}"
                f" shapes for {len(names)} arguments"
            )
    args = [np.ones(shape) for shape in shapes]
    for k, value in zip(free, point or (), strict=False):
        args[k] = np.asarray(value, dtype=float)
    for k, p in enumerate(names):
        if values and p in params and p in values and np.shape(values[p]) == shapes[k]:
            args[k] = np.asarray(values[p], dtype=float)
    return args


ELEMENT_DEFAULT_LIMIT = 10_000  # input entries up to which a function's default level is
# the element level (the array graph expanded)


def input_shapes(spec: str | None, f, params: Sequence[str] = ()) -> list[tuple[int, ...]]:
    """Each parameter's shape from ``"x:3,y,u:100x100"`` (``()``: a scalar), in the
    function's order.

    Without ``spec`` every parameter is a scalar. With it, every parameter must be named
    there or in ``params`` (those not differentiated): one left out would otherwise
    silently become a scalar; the last ones left out that have defaults keep them (and
    have no shape here). One clear line for a parameter left out, a name the
    function does not have, a name given twice or a bad shape
    (:func:`~dgraph.frontends.array_tracer.check_shape`).

    >>> input_shapes("u:4x5,x:3,k", lambda x, u, k: 0)
    [(3,), (4, 5), ()]
    >>> input_shapes("u:8", lambda u, nu=0.1, dx=0.5: 0)
    [(8,)]
    """
    try:
        signature = inspect.signature(f).parameters
    except (TypeError, ValueError):
        raise InputError("cannot read the function's parameters") from None
    keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)
    for name, p in signature.items():  # keyword-only ones keep their defaults
        if p.kind == inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty:
            raise InputError(
                f"the keyword-only parameter {name!r} has no default: give it one, or make"
                " it positional"
            )
    names = [n for n, p in signature.items() if p.kind not in keyword]
    defaults = {n: p.default is not inspect.Parameter.empty for n, p in signature.items()}
    shapes: dict[str, tuple[int, ...]] = dict.fromkeys(names, ())
    given: set[str] = set()
    for item in (t.strip() for t in (spec or "").split(",") if t.strip()):
        name, colon, text = item.partition(":")
        name = name.strip()
        if name not in shapes:
            raise InputError(
                f"--inputs: the function has no parameter {name!r} ({', '.join(names)})"
            )
        if name in given:
            raise InputError(f"--inputs: {name!r} is given twice")
        given.add(name)
        if not colon:
            continue
        parts = text.strip().split("x")
        if len(parts) > MAX_AXES:
            raise InputError(f"--inputs: {item!r} has {len(parts)} axes, more than {MAX_AXES}")
        if not all(p.strip().isdigit() and int(p) > 0 for p in parts):
            if len(parts) == 1:
                raise InputError(f"--inputs: {item!r} needs a size from 1 to 10000")
            raise InputError(
                f"--inputs: {item!r}: the shape's lengths must be positive integers (u:100x100)"
            )
        shapes[name] = check_shape([int(p) for p in parts], f"--inputs: {item!r}")
    missing = [n for n in names if n not in given and n not in params]
    while spec and spec.strip() and missing and missing[-1] == names[-1] and defaults[names[-1]]:
        del shapes[names.pop()], missing[-1]  # a last parameter left out keeps its default
    if spec and spec.strip() and missing:
        raise InputError(
            f"--inputs: the function's parameter {missing[0]!r} is not given: name it with"
            f" its shape ({missing[0]}:3, or {missing[0]} for a scalar) or in --params"
        )
    return list(shapes.values())


def bundled(name: str) -> DGraph:
    """A graph shipped with dgraph (``dgraph/data``): the papers' examples and the
    benchmark functions.

    Parameters
    ----------
    name
        The file's name in ``dgraph/data``, e.g. ``naumann_sin.trace``.

    Returns
    -------
    DGraph
        The graph, read as :func:`load` reads a file.

    Raises
    ------
    InputError
        No such bundled file.

    Examples
    --------
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
