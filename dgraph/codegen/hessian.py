"""Generated Hessians: ``make_function(source, "hessian" | "hvp" |
"value_gradient_hessian")`` and :func:`hessian`.

The Hessian is the Jacobian of the adjoint computation, so it is generated as the
Jacobian of the gradient graph (:func:`dgraph.frontends.jax_hessian.gradient_graph`, the
graph of JAX's gradient read at the array level): the same accumulation, the same value
check (the gradient graph's reference is JAX's ``jvp`` of its gradient, which is
forward-over-reverse, at the user's point and a random one), the same sparse code. A
function written with NumPy, or a tensor graph not read from JAX, is its array-level
graph evaluated with ``jax.numpy`` (:func:`~dgraph.codegen.tensor.primal.jax_primal`) and
read the same way; a graph of scalars gets Dixon's Hessian graph
(:func:`scalar_hessian_graph`).

- ``hessian``: ``H(x)``; for a vector ``f`` the Hessian of the Lagrangian ``vᵀf``,
  ``H(x, v)`` (``scipy.optimize``'s ``hess(x, v)``).
- ``hvp``: ``hvp(x, t)`` (vector ``f``: ``hvp(x, v, t)``), ``H·t`` by the tangent sweep
  of the gradient graph, never forming H.
- ``value_gradient_hessian``: ``(f, ∇f, H)`` at ``x`` (vector ``f``: of ``vᵀf``).

One differentiated array ``x`` gives one matrix: dense, H of shape ``x.shape + x.shape``
(as :func:`jax.hessian`); sparse, a SciPy CSR array (``python``, ``c``) or a JAX BCOO
(``jax``) of shape ``(x.size, x.size)``, its pattern exact for the graph. Its values are
symmetric by construction: only the entries on and below the diagonal are computed (the
products and sums that feed only entries above it are not in the generated program,
:mod:`~dgraph.codegen.tensor.triangle`), and each entry above the diagonal is a copy of
its mirror image below, made inside the generated function. With ``tril`` only the
lower triangle is returned (what IPOPT reads). A NumPy module's CSR arrays share their
pattern, checked once and read-only (each call's matrix and values its own). Several
differentiated arrays give the blocks :func:`jax.hessian` nests (``argnums=(0, 1, …)``).
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse
import sympy

from ..blocks.array_extra import NOT_IN_JAX
from ..blocks.arrays import rule_parts
from ..core.cancellation import cancelled_entries
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph, vertex_symbol
from ..core.hessian_graph import hessian_graph, weight_parameters
from ..core.parse import vertex_names
from ..core.untaken import guarded
from ..errors import DGraphError, InputError, ResultTooLarge
from ..frontends import from_function, from_jax, told_by_jax
from ..frontends.array_tracer import check_shape
from ..frontends.fixed_parameters import marked_closed
from ..frontends.functions import uses_jax
from ..frontends.integer_casts import check_wrapped_in_range
from ..frontends.jax_hessian import gradient_graph, has_select, jax_source, real_array
from ..frontends.jaxpr_arrays import jax_module, x64
from .points import one_point
from .tensor import function as tensor_function
from .tensor.primal import check_primal, jax_primal
from .tensor.triangle import mirror_positions

__all__ = [
    "C_MIRROR_CSR",
    "HESSIAN_MODES",
    "MIRROR_ROW",
    "Symmetric",
    "c_scalar_hessian",
    "checked_source",
    "hessian_limits",
    "hessian_rows",
    "hessian_source",
    "hvp_function",
    "make_hessian",
    "scalar_hessian_graph",
    "scalar_pattern",
    "sparse_of",
    "with_value",
]

HESSIAN_MODES = ("hessian", "hvp", "value_gradient_hessian")
_INNER = {"hessian": "jacobian", "hvp": "jvp", "value_gradient_hessian": "value_and_jacobian"}


@dataclass
class HessianSource:
    """The graph whose Jacobian is the Hessian (with ``value``, its first output is the
    value), its number of differentiated inputs, and whether it takes weights last."""

    graph: DGraph
    inputs: int
    weighted: bool
    scalar: bool = False  # a graph of scalars (Dixon's Hessian graph)


def hessian_source(
    source: DGraph | ExpressionSet | Callable[..., Any],
    *,
    weights: Any = None,
    params: Sequence[str] = (),
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    point: Sequence[Any] | None = None,
    value: bool = False,
) -> HessianSource:
    """The gradient graph of ``source``: a function (``point`` its example arguments, or
    ``sizes`` their shapes; read from its jaxpr where its code uses JAX,
    :func:`~dgraph.frontends.functions.uses_jax`, else traced as NumPy at the array
    level), a graph read from JAX at the array level (its function read again), another
    tensor graph (its primal evaluated with ``jax.numpy``), or a scalar graph
    (:func:`scalar_hessian_graph`; ``value``: with the value as its first output).

    Raises
    ------
    DGraphError
        One line: no example arguments, an expression set, a vector ``f`` without
        weights, JAX not installed (and what the tracer or the gradient graph refuses).
    """
    found = _gradient_source(source, weights, params, sizes, point, value)
    if isinstance(source, DGraph) and source.fixed_parameters:  # read closed over: say so
        found.graph.fixed_parameters = dict(source.fixed_parameters)
    marked_closed(found.graph, source)  # make_function's closure of such a function
    return found


def _gradient_source(
    source: DGraph | ExpressionSet | Callable[..., Any],
    weights: Any,
    params: Sequence[str],
    sizes: Sequence[int | tuple[int, ...]] | None,
    point: Sequence[Any] | None,
    value: bool,
) -> HessianSource:
    """:func:`hessian_source`, the gradient graph not yet told what ``source`` was read
    at."""
    if isinstance(source, ExpressionSet):
        raise DGraphError("the Hessian is made from a function or a graph, not an expression set")
    if isinstance(source, DGraph):
        if params or sizes is not None or point is not None:
            raise DGraphError(
                "params=, sizes= and point= are for a Python function; a graph has its own"
            )
        found = jax_source(source)
        if found is not None:
            f, args, fixed = found
            graph = gradient_graph(f, *args, weights=weights, params=fixed, value=value)
        elif source.is_tensor and _not_in_jax(source):  # JAX evaluates no array level
            return _scalar_source(_elements_without_jax(source), weights, value)
        elif source.is_tensor:
            graph = _array_gradient_graph(source, None, weights, value)
        else:
            return _scalar_source(source, weights, value)
    elif callable(source):
        args = _example_args(sizes, point)
        if uses_jax(source):
            try:
                graph, traced = _guarded_gradient(source, args, weights, params, value)
                if graph is None:
                    graph = gradient_graph(
                        source, *args, weights=weights, params=params, value=value, traced=traced
                    )
            except InputError as jax_failure:  # it names jnp, for a constant only: NumPy's
                try:
                    traced = traced_array_graph(source, args, params, point)
                except InputError:
                    raise jax_failure from None
                graph = _array_gradient_graph(
                    traced, _inputs_then_params(source, args, params), weights, value
                )
        else:  # NumPy: the array tracer's graph, its primal evaluated with jax.numpy
            try:
                traced = traced_array_graph(source, args, params, point)
            except InputError as numpy_failure:  # JAX may read what uses_jax did not see
                try:
                    graph = gradient_graph(
                        source, *args, weights=weights, params=params, value=value
                    )
                    if not _read_as_run(source, args):
                        raise DGraphError("JAX's arrays read another function")
                except DGraphError as jax_failure:
                    elements = _element_graph(source, args, params, point)
                    if elements is None and told_by_jax(numpy_failure, jax_failure):
                        raise jax_failure from None
                    if elements is None:
                        raise numpy_failure from None
                    return _scalar_source(elements, weights, value)
            else:
                if _not_in_jax(traced):  # JAX evaluates no array level with them
                    elements = _element_graph(source, args, params, point)
                    if elements is None:
                        _elements_without_jax(traced)  # one vector, or refused
                    return _scalar_source(elements, weights, value)
                graph = _array_gradient_graph(
                    traced, _inputs_then_params(source, args, params), weights, value
                )
    else:
        raise DGraphError(f"cannot make a Hessian of a {type(source).__name__}")
    return HessianSource(graph, len(graph.inputs), weights is not None)


NATIVE_AGREEMENT = 1e-6  # of the largest |value|: JAX's reading against NumPy's own run


def _read_as_run(f: Callable[..., Any], args: Sequence[np.ndarray]) -> bool:
    """Whether ``f``, a NumPy function the array tracer refused and JAX read, gives with
    JAX's arrays the values it gives when NumPy runs it at ``args``: JAX's arrays do not
    see NumPy's in-place writes (``t = y[1:]; t += x`` changes ``y`` in NumPy, rebinds
    ``t`` in JAX), so JAX's reading would be another function, its Hessian silently
    wrong. Where NumPy cannot run ``f`` (it needs JAX's arrays) there is nothing to
    compare: True; where NumPy's values are not finite anywhere, nothing agrees: False
    (a masked mean that keeps no entry: JAX's Hessian 0 of a function NaN everywhere)."""
    import jax
    import jax.numpy as jnp

    with x64(jax), warnings.catch_warnings():  # a NaN's warning is a value here, not a failure
        warnings.simplefilter("ignore")
        try:
            native = _flat(jax, f(*[np.array(a, dtype=float) for a in args]))
        except Exception:  # any failure: f is not NumPy's to run
            return True
        try:
            jaxed = _flat(jax, f(*[jnp.asarray(a, dtype=float) for a in args]))
        except Exception:  # read by JAX, not run by it: nothing says the two agree
            return False
    if native.size and not np.isfinite(native).any():  # NaN agreeing with NaN says nothing
        return False
    scale = max(1.0, float(np.max(np.abs(native), initial=0.0)))
    return native.shape == jaxed.shape and np.allclose(
        jaxed, native, rtol=NATIVE_AGREEMENT, atol=NATIVE_AGREEMENT * scale, equal_nan=True
    )


def _flat(jax: Any, value: Any) -> np.ndarray:
    leaves = jax.tree_util.tree_leaves(value)
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in leaves] or [[]])


def _scalar_source(source: DGraph, weights: Any, value: bool) -> HessianSource:
    """The Hessian of a graph of scalars (:func:`scalar_hessian_graph`), which takes its
    inputs as one vector, its parameters as another."""
    graph = scalar_hessian_graph(source, weights, value)
    own = len(source.parameters)
    return HessianSource(graph, 1, len(graph.parameters) > own, scalar=True)


def _not_in_jax(graph: DGraph) -> str | None:
    """The first operation of ``graph`` JAX has no function for, or none with a
    derivative (``j0``, ``k1e``, ``spence``, …: :data:`~dgraph.blocks.array_extra.
    NOT_IN_JAX`), else None."""
    for v in graph.order():
        op = graph.op(v)
        if op is not None and op.primitive in NOT_IN_JAX:
            return op.primitive
    return None


def _elements_without_jax(graph: DGraph) -> DGraph:
    """The element level of a tensor graph of one input (a vector or a scalar) that calls
    a function JAX lacks; a DGraphError in one line for more inputs (the scalar Hessian
    takes its inputs as one vector, which a function of several arrays is not called
    with)."""
    lacking = _not_in_jax(graph)
    if len(graph.inputs) != 1 or len(graph.shape(graph.inputs[0])) > 1:
        raise DGraphError(
            f"the Hessian of scipy.special.{lacking} (JAX has no such function, or none with"
            " a derivative) is made at the element level: of a function of one vector"
        )
    return graph.elements()


def _element_graph(
    f: Callable[..., Any],
    args: Sequence[np.ndarray],
    params: Sequence[str],
    point: Sequence[Any] | None,
) -> DGraph | None:
    """The element level of a function of one vector (or scalar) that neither the array
    tracer nor JAX reads, by :func:`~dgraph.frontends.from_function`'s other route (the
    function run on sympy symbols: code that calls ``np.asarray`` inside a library, as
    ``scipy.optimize.rosen`` does); None where it has more arguments or that route
    refuses it too."""
    if params or len(args) != 1 or np.ndim(args[0]) > 1:
        return None
    try:
        return from_function(f, sizes=[np.size(args[0]) if np.ndim(args[0]) else 0], point=point)
    except InputError:
        return None


def traced_array_graph(
    f: Callable[..., Any],
    args: Sequence[np.ndarray],
    params: Sequence[str] = (),
    point: Sequence[Any] | None = None,
) -> DGraph:
    """The array-level graph of a NumPy-style function (:func:`~dgraph.frontends.
    from_function`, ``level="array"``), its arguments shaped as ``args``; where the user
    gave ``point`` (and no parameters), its values there compared with ``f``'s own
    (:func:`~dgraph.frontends.point_values.check_point_values`)."""
    shapes = [tuple(np.shape(a)) for a in args]
    at = point if point is not None and not params else None
    graph = from_function(f, sizes=shapes, params=list(params), level="array", point=at)
    names = list(inspect.signature(f).parameters)[: len(args)]
    if params and len(names) == len(args):  # index data NumPy refuses there: refused
        renamed = vertex_names(names)
        given = {
            renamed[n]: np.asarray(a, dtype=float)
            for n, a in zip(names, args, strict=True)
            if n in params
        }
        check_wrapped_in_range(graph, getattr(f, "__name__", "f"), given)
    return graph


def _array_gradient_graph(
    graph: DGraph, args: Sequence[np.ndarray] | None, weights: Any, value: bool
) -> DGraph:
    """The gradient graph of a tensor graph not read from JAX: its primal evaluated with
    ``jax.numpy`` (:func:`~dgraph.codegen.tensor.primal.jax_primal`, checked against the
    graph's own values at the example arguments) read as a JAX function's. ``args``: the
    inputs', then the array parameters' values (None: the graph's point, else entries
    drawn from [0.5, 1.5), seed 0)."""
    primal = jax_primal(graph)
    names = [*graph.inputs, *graph.parameter_shapes]
    if args is None:
        rng = np.random.default_rng(0)
        given = {**(graph.point or {}), **graph.parameter_point}
        shapes = {**{x: graph.shape(x) for x in graph.inputs}, **graph.parameter_shapes}
        args = [
            np.asarray(given[x], dtype=float).reshape(shapes[x])
            if x in given
            else rng.uniform(0.5, 1.5, shapes[x])
            for x in names
        ]
    args = [np.asarray(a, dtype=float) for a in args]
    traced = check_primal(graph, primal, args)  # the trace of one output is the gradient's
    fixed = list(inspect.signature(primal).parameters)[len(graph.inputs) :]
    traced = traced if len(graph.outputs) == 1 else None
    primal = _one_output(primal, len(graph.outputs))
    return gradient_graph(primal, *args, weights=weights, params=fixed, value=value, traced=traced)


def _guarded_gradient(
    f: Callable[..., Any],
    args: Sequence[np.ndarray],
    weights: Any,
    params: Sequence[str],
    value: bool,
) -> tuple[DGraph | None, Any]:
    """The gradient graph of a JAX function whose ``where`` has an untaken branch the
    reader guards (:mod:`~dgraph.core.untaken`), taken of the guarded graph's primal:
    JAX's own gradient multiplies that branch's NaN partials by the mask's zeros, so its
    gradient (and Hessian) is NaN where the function is locally constant. None where no
    select's predicate depends on the inputs, nothing is guarded, or JAX cannot evaluate
    the graph (JAX's gradient is read then, as before); with ``f``'s trace at ``args``
    (``make_jaxpr(f, return_shape=True)``'s pair, for
    :func:`~dgraph.frontends.jax_hessian.gradient_graph`; None where JAX failed)."""
    jax = jax_module()
    try:  # in float64 as every trace of f: JAX keeps a NumPy constant it converted once
        with x64(jax):  # (a float32 copy traced here was read into later float64 traces)
            traced = jax.make_jaxpr(f, return_shape=True)(*args)
    except Exception:  # JAX's own failure: gradient_graph reports it next
        return None, None
    if not has_select(traced[0].jaxpr):
        return None, traced
    try:
        graph = from_jax(f, *args, level="array", params=params)
        if not guarded(graph) or _custom_rules(graph):
            return None, traced
        made = _array_gradient_graph(graph, _inputs_then_params(f, args, params), weights, value)
        return made, traced
    except Exception:  # this route's failure, whatever it is: JAX's own gradient read instead
        return None, traced


def _custom_rules(graph: DGraph) -> bool:
    """Whether a vertex of ``graph`` is a custom rule's output (:func:`~dgraph.blocks.
    arrays.rule_parts`): its tangent map's coefficients are frozen at the primal
    (``σ(stop_gradient(v))·v`` for softplus), so a gradient of the graph's primal would
    lose the rule's own derivative, the Hessian's term ``σ'(v)``; JAX's gradient keeps
    it."""
    return any(
        rule_parts(graph.op(v)) is not None for v in graph.order() if graph.op(v) is not None
    )


def _one_output(primal: Callable[..., Any], outputs: int) -> Callable[..., Any]:
    """``primal`` whose several outputs (a list of scalars a NumPy or sympy function
    returns, or several arrays) are one vector, their entries in order, as its Jacobian
    stacks them: the Lagrangian's weights are one per entry. One output: ``primal``."""
    if outputs == 1:
        return primal
    import jax.numpy as jnp

    def stacked(*args: Any) -> Any:
        return jnp.concatenate([jnp.ravel(y) for y in primal(*args)])

    stacked.__name__ = primal.__name__
    stacked.__signature__ = inspect.signature(primal)  # type: ignore[attr-defined]
    return stacked


def scalar_hessian_graph(graph: DGraph, weights: Any = None, value: bool = False) -> DGraph:
    """Dixon's Hessian graph of a graph of scalars (sympy, traces, JSON, the element
    level), :func:`dgraph.core.hessian_graph.hessian_graph`, whose Jacobian is the
    Hessian; several outputs' weights are its parameters, taken last (``H(x, v)``).
    ``value``: with the value ``λᵀy`` as its first output (:func:`with_value`)."""
    if weights is not None and not isinstance(weights, Mapping):
        _example_weights(graph, weights)
        weights = None  # numbers given as an example: the weights stay parameters
    H = hessian_graph(graph, weights)
    return with_value(graph, H, weights) if value else H


def _example_weights(graph: DGraph, weights: Any) -> None:
    """Numbers given as a graph of scalars' weights (an example, as for an array
    function): finite, one per output, and only where there are several outputs (one
    output's Hessian has no weights: ``[5.0]`` there was ignored, H not scaled by 5).

    Raises
    ------
    InputError
        One line for each.
    """
    count = len(graph.outputs)
    if count == 1:
        raise InputError(
            "weights= are for the Lagrangian of several outputs; the graph has one output"
            " (its Hessian takes no weights; a mapping {output: weight} scales it)"
        )
    v = real_array(weights, "weights")
    if v.ndim > 1 or v.size != count:
        raise InputError(f"weights: {v.size} numbers for the {count} outputs, one per output")
    if not np.isfinite(v).all():
        raise InputError(f"weights: {v.tolist()!r:.80} are not all finite numbers")


def with_value(g: DGraph, H: DGraph, weights: Mapping[str, float] | None = None) -> DGraph:
    """``H = hessian_graph(g, weights)`` with one more output, first: the value
    ``λᵀy`` of ``g`` (the weights ``weights`` gives, else ``H``'s weight parameters, else
    1 for one output), computed from the forward vertices of ``g`` it reads (added where
    ``H`` has none). Its outputs are then ``(λᵀy, ∇(λᵀy))``: the value and gradient of
    ``value_gradient_hessian``, its Jacobian's rows after the first the Hessian."""
    taken = set(g.vertices) | set(H.vertices) | set(H.parameters)
    name = next(n for n in ("value", *(f"value{k}" for k in range(2, len(taken) + 3)))
                if n not in taken)  # fmt: skip
    multipliers = weight_parameters(g, H)
    if weights is not None:
        seeds = {y: sympy.sympify(float(weights[y])) for y in g.outputs}
    elif multipliers:
        seeds = {y: vertex_symbol(multipliers[y]) for y in g.outputs}
    else:
        seeds = {y: sympy.S.One for y in g.outputs}
    needed = set(g.outputs)
    for v in reversed(g.order()):
        if v in needed:
            needed.update(g.predecessors(v))
    forward = [v for v in g.order() if v in needed or v in H]
    K = DGraph(H.name)
    for p in H.parameters:
        K.add_parameter(p)
    for v in forward:
        K.add_vertex(v, "input" if g.role(v) == "input" else "intermediate", g.expr(v))
    adjoints = [v for v in H.order() if v not in g]
    for v in adjoints:
        if H.role(v) == "intermediate":
            K.add_vertex(v, "intermediate", H.expr(v))
    K.add_vertex(name, "output", sympy.Add(*(seeds[y] * vertex_symbol(y) for y in g.outputs)))
    for v in H.outputs:
        K.add_vertex(v, "output", H.expr(v))
    for v in forward:
        for u in g.predecessors(v):
            K.add_edge(u, v, g.given_partial(u, v))
    for v in adjoints:
        for u in H.predecessors(v):
            K.add_edge(u, v, H.given_partial(u, v))
    for y in g.outputs:
        K.add_edge(y, name)
    if H.point is not None:
        K.set_point(H.point)
    return K.validate()


def checked_source(
    source: Any,
    mode: str,
    *,
    sparse: bool,
    tril: bool,
    weights: Any,
    params: Sequence[str],
    sizes: Any,
    point: Any,
) -> HessianSource:
    """:func:`hessian_source` for ``mode`` after the checks every target makes: the mode
    known, no ``sparse``/``tril`` with ``hvp``, ``tril`` only for one array argument.

    Raises
    ------
    DGraphError
        One line for each, and what :func:`hessian_source` refuses.
    """
    if mode not in HESSIAN_MODES:
        raise DGraphError(f"unknown Hessian mode {mode!r}: use {', '.join(HESSIAN_MODES)}")
    if mode == "hvp" and (sparse or tril):
        raise DGraphError("hvp returns H·t, an array: sparse= and tril= are for the Hessian")
    src = hessian_source(
        source,
        weights=weights,
        params=params,
        sizes=sizes,
        point=point,
        value=mode == "value_gradient_hessian",
    )
    if tril and src.inputs != 1:
        raise DGraphError("tril= is for the Hessian of one array argument, not several")
    if mode != "hvp" and not sparse:
        _refuse_dense_hessian(src.graph)
    return src


def _refuse_dense_hessian(graph: DGraph) -> None:
    """One line where the dense Hessian of the gradient graph ``graph`` (n × n, n its
    differentiated inputs' entries) would have more than :data:`~.tensor.function.
    DENSE_LIMIT` entries: before its Jacobian is accumulated, in every language (C's
    dense H is its sparse values spread into n² doubles per call)."""
    n = sum(math.prod(graph.shape(x)) if graph.is_tensor else 1 for x in graph.inputs)
    entries, limit = n * n, tensor_function.DENSE_LIMIT
    if entries > limit:
        raise hessian_too_large(ResultTooLarge("", entries=entries, limit=limit, sparse=False))


def hessian_too_large(error: ResultTooLarge) -> DGraphError:
    """The one line for a Hessian too large to form (the Jacobian of the gradient graph
    refused by :mod:`~.tensor.function`), naming what computes H·t without forming it."""
    count, limit = error.entries, error.limit
    hvp = 'mode "hvp" (make_function(f, "hvp"): H·t, H never formed)'
    if error.sparse:
        return DGraphError(
            f"a sparse Hessian of {count:,} nonzeros (at least {16 * count / 2**30:.1f} GiB a"
            f" call, 16 bytes each), more than {limit:,}: its pattern is too dense; use {hvp}"
        )
    return DGraphError(
        f"a dense Hessian of {count:,} entries ({8 * count / 2**30:.1f} GiB a call), more"
        f" than {limit:,}: give sparse=True (--sparse), or use {hvp}"
    )


def hessian_rows(graph: DGraph, mode: str) -> list[str] | None:
    """The gradient graph's outputs whose Jacobian rows are the Hessian's, that the size
    limits count: ``value_gradient_hessian``'s all but the value (its first output, a
    gradient row beside H); None (all) in the other modes."""
    return list(graph.outputs[1:]) if mode == "value_gradient_hessian" else None


@contextmanager
def hessian_limits() -> Iterator[None]:
    """A Hessian's Jacobian refused as too large (:class:`~dgraph.errors.ResultTooLarge`)
    reported as the Hessian's (:func:`hessian_too_large`)."""
    try:
        yield
    except ResultTooLarge as error:
        raise hessian_too_large(error) from None


def make_hessian(
    source: DGraph | ExpressionSet | Callable[..., Any],
    mode: str,
    lang: str,
    make: Callable[..., Any],
    *,
    method: str | None = None,
    budget: float | None = None,
    sparse: bool = False,
    tril: bool = False,
    weights: Any = None,
    params: Sequence[str] = (),
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    point: Sequence[Any] | None = None,
    prepared: HessianSource | None = None,
) -> tuple[Any, Callable[..., Any]]:
    """``(inner, function)``: the generated function ``make`` (``make_function``'s
    builder: ``make(graph, mode, lang, method, budget, sparse)``) gave for the gradient
    graph, checked against JAX's forward-over-reverse, and the ``mode`` function on it
    (module docstring). ``prepared``: :func:`checked_source`'s result for these
    arguments, where the caller made it already (not made again).

    Raises
    ------
    DGraphError
        One line for an unknown mode, ``sparse`` or ``tril`` with ``hvp``, ``tril`` with
        several differentiated arrays, and what :func:`hessian_source` refuses.
    """
    if prepared is None:
        prepared = checked_source(
            source, mode, sparse=sparse, tril=tril, weights=weights, params=params,
            sizes=sizes, point=point,
        )  # fmt: skip
    src = prepared
    graph = src.graph
    # a graph of scalars: its sparse H is gathered from the dense one's structural entries
    flags = sparse and not src.scalar
    # one array's sparse H in NumPy or JAX: computed on and below the diagonal, mirrored
    lower = mode == "hessian" and sparse and src.inputs == 1 and graph.is_tensor
    lower = lower and len(graph.outputs) == 1
    counted = hessian_rows(graph, mode)
    with hessian_limits():
        if lower and lang in ("python", "jax"):
            inner = make(graph, _INNER[mode], lang, method, budget, flags, symmetric=True,
                         counted=counted)  # fmt: skip
        else:
            inner = make(graph, _INNER[mode], lang, method, budget, flags, counted=counted,
                         mirrored=True)  # fmt: skip
    triangle = getattr(inner.generated, "tril", None)
    scalar_sparse = sparse and src.scalar and mode == "hessian"
    base = _scalar_sparse(inner, lang) if scalar_sparse else inner
    n_args = len(graph.inputs) + len(graph.parameters)  # what H takes: x…, p…, v
    if not graph.is_tensor:
        n_args = 1 + bool(graph.parameters)  # x, then p (the weights among them)
    if mode == "hvp":
        return inner, hvp_function(inner, src.inputs, n_args)
    if mode == "hessian":
        hess = base
        if src.scalar and not sparse:  # (n, n), or batched (B, n, n)
            hess = _stacked_mirror(base, tril)
        elif triangle is not None:  # the module mirrors (and has the lower triangle)
            hess = _named(triangle if tril else inner)
        elif src.inputs == 1:
            hess = _mirrored(base, tril)
        hess.__doc__ = _doc(mode, src, sparse, tril)
        return inner, hess
    if src.scalar:
        return inner, _scalar_value_gradient_hessian(inner, lang, sparse, tril, src)
    mirror = _mirrored(lambda h: h, tril) if src.inputs == 1 else None

    def value_gradient_hessian(*a: Any) -> tuple[Any, Any, Any]:
        values, blocks = inner(*a)
        if mirror is not None:
            return values[0], values[1], mirror(blocks[1])
        return values[0], tuple(values[1:]), tuple(blocks[1:])

    value_gradient_hessian.__doc__ = _doc(mode, src, sparse, tril)
    return inner, value_gradient_hessian


def _named(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` under a wrapper of its own (that the Hessian's docstring goes on)."""

    def hessian(*a: Any) -> Any:
        return function(*a)

    return hessian


def _scalar_sparse(inner: Any, lang: str) -> Callable[..., Any]:
    """A graph of scalars' Hessian as a sparse matrix of its program's pattern (the
    entries its expression set spells, whatever their values at a point): SciPy CSR, or
    a JAX BCOO for ``lang="jax"``."""
    rows, cols = scalar_pattern(inner, "jacobian")
    return lambda *a: sparse_of(inner(*a), rows, cols, lang)


def scalar_pattern(
    inner: Any, mode: str, first: int | None = None, symmetric: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The rows and columns of the entries of a graph of scalars' Jacobian that the
    ``mode`` program of ``inner`` (a generated function) computes, from row ``first`` on
    (renumbered from 0): its structural pattern. ``jacobian``'s results are keyed ``(i,
    j)``; ``value_and_jacobian``'s flat, the m values first, then the (m, n) Jacobian
    row-major. ``first`` defaults to a Hessian's: 0 for ``jacobian``, 1 for
    ``value_and_jacobian`` (its graph's outputs are the value, then the gradient, so
    the Jacobian's first row is the value's gradient and the rest are H's). Entries
    proven zero for every input are left out (with their mirrors where ``symmetric``)."""
    keys = [k for k, _ in inner.generated.programs[mode].results]
    graph = inner.generated.expression_set.graph
    if first is None:
        first = 0 if mode == "jacobian" else 1
    if mode == "jacobian":
        rows = np.array([k[0] for k in keys], dtype=np.int64) - first
        cols = np.array([k[1] for k in keys], dtype=np.int64)
        keep = rows >= 0
        return _uncancelled(graph, rows[keep], cols[keep], first, symmetric)
    m, n = len(graph.outputs), len(graph.inputs)
    flat = np.array([k[0] for k in keys], dtype=np.int64) - m
    flat = flat[flat >= first * n]  # past the values (and the rows before ``first``)
    return _uncancelled(graph, flat // n - first, flat % n, first, symmetric)


def _uncancelled(
    graph: DGraph, rows: np.ndarray, cols: np.ndarray, first: int, symmetric: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` without the entries proven zero for every input
    (:func:`~dgraph.core.cancellation.cancelled_entries` of the graph whose output
    ``first + i`` is row ``i``) and, for a Hessian (``symmetric``), their mirrors (H is
    symmetric: the mirrored upper triangle rests on it;
    :func:`~dgraph.core.hessian_graph.hessian_pattern`)."""
    zero = cancelled_entries(graph)
    if not zero:
        return rows, cols
    outs, ins = graph.outputs[first:], graph.inputs
    proven = {(i, j) for i, y in enumerate(outs) for j, x in enumerate(ins) if (y, x) in zero}
    if symmetric:
        proven |= {(j, i) for i, j in proven}
    keep = np.array([(i, j) not in proven for i, j in zip(rows, cols, strict=True)], dtype=bool)
    return rows[keep], cols[keep]


def sparse_of(h: Any, rows: np.ndarray, cols: np.ndarray, lang: str, what: str = "Hessian") -> Any:
    """The entries ``(rows, cols)`` of the dense (m, n) ``h`` (a graph of scalars'
    Jacobian or Hessian at one point) as a SciPy CSR array, or a JAX BCOO for
    ``lang="jax"``: the one conversion of the element level's sparse results, the
    pattern kept whatever the values (a structural zero stays stored). ``what`` names
    the result in the one-line refusal of a batch of points."""
    if np.ndim(h) != 2:
        raise one_point(what)
    shape = tuple(int(d) for d in h.shape)
    if lang == "jax":
        from jax.experimental import sparse as jsparse

        coords = _jnp().asarray(np.stack([rows, cols], axis=1))
        return jsparse.BCOO((h[rows, cols], coords), shape=shape)
    values = np.asarray(h)[rows, cols]
    return scipy.sparse.csr_array((values, (rows, cols)), shape=shape)


def _stacked_mirror(inner: Callable[..., Any], tril: bool) -> Callable[..., Any]:
    """``inner`` (a graph of scalars' dense H: (n, n), or (B, n, n) for a batch of
    points) with each entry above the diagonal its mirror's (``tril``: zero)."""

    def hessian(*a: Any) -> Any:
        h = inner(*a)
        xp = np if isinstance(h, np.ndarray) else _jnp()
        lower = xp.tril(h)
        return lower if tril else lower + xp.swapaxes(xp.tril(h, -1), -1, -2)

    return hessian


def _scalar_value_gradient_hessian(
    inner: Any, lang: str, sparse: bool, tril: bool, src: HessianSource
) -> Callable[..., Any]:
    """``(f, ∇f, H)`` of a graph of scalars from its value graph's
    ``value_and_jacobian`` (:func:`with_value`: outputs the value, then the gradient; the
    Jacobian's rows after the first are H), H mirrored (:class:`Symmetric`) and, with
    ``sparse``, of its structural pattern."""
    pattern = scalar_pattern(inner, "value_and_jacobian") if sparse else None
    mirror = _mirrored(lambda h: h, tril) if sparse else _stacked_mirror(lambda h: h, tril)

    def value_gradient_hessian(*a: Any) -> tuple[Any, Any, Any]:
        values, J = inner(*a)
        h = J[..., 1:, :]
        if pattern is not None:
            h = sparse_of(h, *pattern, lang)
        return values[..., 0], values[..., 1:], mirror(h)

    value_gradient_hessian.__doc__ = _doc("value_gradient_hessian", src, sparse, tril)
    return value_gradient_hessian


def _mirrored(inner: Callable[..., Any], tril: bool) -> Callable[..., Any]:
    """``inner`` (which returns a Hessian of one array) made symmetric by construction
    (:class:`Symmetric`), its pattern read from the first value it returns (not from a
    call made here, in a precision the caller may not use)."""
    made: list[Symmetric] = []

    def hessian(*a: Any) -> Any:
        h = inner(*a)
        if not made:
            made.append(Symmetric.of(h, tril))
        return made[0](h)

    return hessian


@dataclass
class Symmetric:
    """A Hessian of one array made symmetric by construction: each entry above the
    diagonal replaced by its mirror image below (``tril``: dropped). Sparse: ``take``
    indexes the stored values of the fixed pattern (the lower ones, then each upper one's
    mirror), ``indices``/``indptr`` (CSR) or ``coords`` (BCOO) the pattern returned."""

    kind: str  # "csr", "bcoo", "dense"
    tril: bool
    n: int
    take: Any = None
    indices: Any = None
    indptr: Any = None
    coords: Any = None
    shape: tuple[int, ...] = ()
    gather: Callable[[Any], Any] | None = None  # JAX's: the jitted values[take]
    upper: Any = None  # CSR: the positions above the diagonal (``take`` then their mirrors')

    @classmethod
    def of(cls, h: Any, tril: bool) -> Symmetric:
        """The symmetrizer for Hessians shaped and patterned like ``h`` (one value of
        the generated function, at the graph's point)."""
        if isinstance(h, scipy.sparse.sparray | scipy.sparse.spmatrix):
            h = scipy.sparse.csr_array(h)
            n = h.shape[0]
            rows = np.repeat(np.arange(n), np.diff(h.indptr))
            take, keep = mirror_positions(rows, h.indices, n, tril)
            if tril:
                counts = np.bincount(rows[keep], minlength=n)
                indptr = np.concatenate([[0], np.cumsum(counts)]).astype(h.indptr.dtype)
                return cls("csr", tril, n, take, h.indices[keep].copy(), indptr)
            upper = np.flatnonzero(~keep)  # in place: only the upper entries are written
            return cls("csr", tril, n, take[upper], h.indices, h.indptr, upper=upper)
        if type(h).__name__ == "BCOO":
            import jax.numpy as jnp  # a BCOO came from JAX: it is installed

            coords = np.asarray(h.indices)
            n = h.shape[0]
            take, keep = mirror_positions(coords[:, 0], coords[:, 1], n, tril)
            kept = jnp.asarray(coords[keep]) if tril else h.indices
            found = cls("bcoo", tril, n, jnp.asarray(take), coords=kept)
            found.gather = _jax().jit(lambda data, take=found.take: data[take])
            return found
        shape = tuple(np.shape(h))
        return cls("dense", tril, math.isqrt(math.prod(shape)), shape=shape)

    def __call__(self, h: Any) -> Any:
        n = self.n
        if self.kind == "csr":
            if not self.tril:  # h is the generated function's own new array
                h.data[self.upper] = h.data[self.take]
                return h
            return scipy.sparse.csr_array(
                (h.data[self.take], self.indices, self.indptr), shape=(n, n)
            )
        if self.kind == "bcoo":
            from jax.experimental import sparse as jsparse

            return jsparse.BCOO(
                (self.gather(h.data), self.coords),
                shape=(n, n),
                indices_sorted=True,
                unique_indices=True,
            )
        xp = np if isinstance(h, np.ndarray) else _jnp()
        square = xp.reshape(h, (n, n))
        lower = xp.tril(square)
        if self.tril:
            return lower
        return xp.reshape(lower + xp.tril(square, -1).T, self.shape)


# one row i of the mirror: each stored (i, j) above the diagonal takes (j, i)'s value, found
# by bisection in row j (the pattern is symmetric); C and CUDA loop over i their own ways
MIRROR_ROW = """        for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) {
            const int64_t j = indices[k];
            if (j <= i) continue;
            int64_t lo = indptr[j], hi = indptr[j + 1];
            while (lo < hi) {  /* (j, i) in row j: the pattern is symmetric */
                const int64_t mid = lo + (hi - lo) / 2;
                if (indices[mid] < i) lo = mid + 1; else hi = mid;
            }
            data[k] = data[lo];
        }
"""

C_MIRROR_CSR = (
    """
/* hessian_mirror(n, indptr, indices, data): the Hessian made symmetric by construction:
 * each stored entry above the diagonal, (i, j) with j > i, takes the value of its mirror
 * image (j, i) below it (the CSR pattern of the index file: indptr[n + 1], indices sorted
 * within each row). Call it on data after jacobian_values. */
void hessian_mirror(long n, const int64_t *indptr, const int64_t *indices, double *data)
{
    for (long i = 0; i < n; ++i) {
"""
    + MIRROR_ROW
    + """    }
}
"""
)


def c_scalar_hessian(
    rows: Sequence[int], cols: Sequence[int], n: int, parameters: bool, sparse: bool
) -> str:
    """C functions appended to a graph of scalars' Hessian module (the C file of its
    Hessian graph's ``jacobian``): ``hessian(x[, p], H)``, the n x n H row-major with
    each entry above the diagonal its mirror's value, and with ``sparse``
    ``hessian_values(x[, p], values)``, the ``jacobian_values`` mirrored the same way
    (``rows``, ``cols``: their pattern, the module's ``jacobian_rows``/``jacobian_cols``)."""
    p, pp = (", p", ", const double *p") if parameters else ("", "")
    lines = [
        "",
        f"/* hessian(x{p}, H): the {n} x {n} Hessian, row-major, symmetric by construction:",
        " * the Jacobian of the gradient graph, each entry above the diagonal its mirror's. */",
        f"void hessian(const double *x{pp}, double *H) {{",
        f"    jacobian(x{p}, H);",
        f"    for (int i = 0; i < {n}; ++i)",
        f"        for (int j = i + 1; j < {n}; ++j) H[i*{n} + j] = H[j*{n} + i];",
        "}",
    ]
    if sparse:
        take, _ = mirror_positions(np.asarray(rows), np.asarray(cols), n, tril=False)
        listed = ", ".join(str(int(k)) for k in take) or "0"
        lines += [
            "",
            "/* hessian_values: jacobian_values, each entry above the diagonal its mirror's. */",
            f"const int hessian_mirror[] = {{{listed}}};",
            f"void hessian_values(const double *x{pp}, double *values) {{",
            f"    jacobian_values(x{p}, values);",
            f"    for (int k = 0; k < {len(take)}; ++k) values[k] = values[hessian_mirror[k]];",
            "}",
        ]
    return "\n".join(lines) + "\n"


def hvp_function(inner: Callable[..., Any], n_inputs: int, n_args: int) -> Callable[..., Any]:
    """``hvp(*x, *p, *t)`` on the gradient graph's ``jvp(*x, *t, *p)``."""

    def hvp(*a: Any) -> Any:
        if len(a) != n_args + n_inputs:
            raise DGraphError(
                f"hvp takes {n_args + n_inputs} arguments (the Hessian's {n_args}, then one"
                f" tangent per input), not {len(a)}"
            )
        xs, ps, ts = a[:n_inputs], a[n_inputs:n_args], a[n_args:]
        return inner(*xs, *ts, *ps)

    hvp.__doc__ = "H·t of the gradient graph's tangent sweep: hvp(*x, *p, *t), H never formed."
    return hvp


def _inputs_then_params(
    f: Callable[..., Any], args: Sequence[np.ndarray], params: Sequence[str]
) -> list[np.ndarray]:
    """``f``'s arguments ``args`` in the order its traced graph takes them: the
    differentiated ones, then ``params``, each in ``f``'s order (a parameter before an
    input was given the input's place: a traceback, or a check at the wrong point)."""
    names = list(inspect.signature(f).parameters)[: len(args)]
    if not params or len(names) != len(args):
        return list(args)
    free = [a for name, a in zip(names, args, strict=True) if name not in params]
    return free + [a for name, a in zip(names, args, strict=True) if name in params]


def _example_args(
    sizes: Sequence[int | tuple[int, ...]] | None, point: Sequence[Any] | None
) -> list[np.ndarray]:
    """Example arguments: ``point``, else arrays of ``sizes``' shapes with entries drawn
    from [0.5, 1.5) (seed 0: reproducible, away from the zeros where a log or a division
    has no value)."""
    if point is not None:
        return [real_array(p, f"point= argument {k + 1}") for k, p in enumerate(point)]
    if sizes is None:
        raise DGraphError("the Hessian of a function: give point= (example arguments) or sizes=")
    rng = np.random.default_rng(0)
    return [rng.uniform(0.5, 1.5, _shape(s)) for s in sizes]


def _shape(size: Any) -> tuple[int, ...]:
    """One entry of ``sizes=``: 0 a scalar, a length, or a shape (a tuple or list of
    positive integers, :func:`~dgraph.frontends.array_tracer.check_shape`'s limits)."""
    if isinstance(size, tuple | list):
        return check_shape(tuple(size), f"sizes= {size!r:.40}")
    if isinstance(size, int) and not isinstance(size, bool) and size == 0:
        return ()
    return check_shape((size,), f"sizes= {size!r:.40}")


def _doc(mode: str, src: HessianSource, sparse: bool, tril: bool) -> str:
    """The made function's docstring; a graph of scalars' takes its inputs as one vector
    ``x`` and its parameters (the Lagrangian's weights among them) as another, ``p``."""
    graph = src.graph
    args = ", ".join([*graph.inputs, *graph.parameters])
    if src.scalar:
        args = f"x = ({', '.join(graph.inputs)})"
        if graph.parameters:
            args = f"x, p; {args}, p = ({', '.join(graph.parameters)})"
    kind = "sparse (CSR/BCOO)" if sparse else "dense"
    part = ", lower triangle" if tril else ""
    if mode == "hessian":
        return f"H({args}): the Hessian, {kind}{part}; symmetric by construction."
    return f"value_gradient_hessian({args}): (f, ∇f, H), H {kind}{part}."


def _jax():
    import jax  # a JAX array came back: JAX is installed

    return jax


def _jnp():
    import jax.numpy as jnp  # a JAX array came back: JAX is installed

    return jnp
