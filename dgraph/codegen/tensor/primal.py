"""A tensor graph's primal as a JAX function: its array operations evaluated with
``jax.numpy``, so that JAX can differentiate a graph that was not read from JAX (the
NumPy-style array tracer's, a dgraph/1 tensor file's).

Each vertex's :class:`~dgraph.blocks.arrays.ArrayOp` becomes the node of
:mod:`dgraph.codegen.ir` the JAX module prints for it
(:func:`~dgraph.codegen.tensor.module.forward_node`), and the nodes are evaluated with
``jax.numpy`` (:class:`~dgraph.codegen.evaluate.ArrayEvaluator`, the evaluator constant
folding uses), never by running printed text. The Hessian of such a graph is then read
as for a JAX function: the graph of ``jax.grad`` of this primal
(:func:`dgraph.frontends.jax_hessian.gradient_graph`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.block_values import program_order, vertex_values
from ...core.graph import DGraph
from ...errors import DGraphError, VerificationError
from ...frontends.jaxpr_arrays import (
    REFERENCE_COMPILE,
    REFERENCE_JIT_MOST,
    equation_count,
    numpy_cheaper,
    quick_jit,
    run_eagerly,
)
from ..evaluate import ArrayEvaluator
from ..ir import Name
from .dialect import DIALECTS
from .module import Writer, argument_name, forward_node, read_input

__all__ = ["check_primal", "jax_primal"]


def jax_primal(graph: DGraph) -> Callable[..., Any]:
    """``f(*inputs, *parameters)``: the outputs of the tensor graph ``graph`` (one array,
    or a tuple over the outputs) computed with ``jax.numpy``; its signature names the
    graph's inputs, then its array parameters (as identifiers).

    Raises
    ------
    DGraphError
        A graph of scalars, a parameter without a shape, or JAX not installed (one line).
    """
    if not graph.is_tensor:
        raise DGraphError("jax_primal reads a tensor graph (the array level)")
    missing = [p for p in graph.parameters if p not in graph.parameter_shapes]
    if missing:
        raise DGraphError(f"the tensor graph's parameter {missing[0]!r} has no shape")
    try:
        import jax.numpy as jnp
        import jax.scipy.special as jsp
    except ImportError:
        raise DGraphError("the Hessian of a NumPy function is read with JAX: install jax") from None
    w = Writer(DIALECTS["jax"], keep_arrays=True)
    w.rule_values = False  # differentiated again: a custom rule's derivative is the rule's
    shapes = {v: graph.shape(v) for v in graph.nx} | graph.parameter_shapes
    taken = [*graph.inputs, *graph.parameter_shapes]
    arguments = {x: w.name(argument_name(x)) for x in taken}
    nodes = {x: Name(w.name(f"{arguments[x]}_")) for x in taken}
    for x in taken:
        w.statements.append(read_input(w.d, nodes[x].id, arguments[x], shapes[x]))
    for v in program_order(graph):
        if graph.op(v) is not None:
            nodes[v] = w.emit(forward_node(w, graph.op(v), nodes, shapes, top=True), f"v_{v}")
    statements, constants = w.statements, dict(w.constants.arrays)
    outputs = [nodes[y].id for y in graph.outputs]
    evaluator = ArrayEvaluator(jnp, jsp)

    def primal(*args: Any) -> Any:
        env = {**constants, **dict(zip(arguments.values(), args, strict=True))}
        env = evaluator.run(statements, env)
        found = [env[y] for y in outputs]
        return found[0] if len(found) == 1 else tuple(found)

    primal.__name__ = graph.name if graph.name.isidentifier() else "f"
    primal.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in arguments.values()]
    )
    return primal


def _evaluated(
    jax: Any, graph: DGraph, primal: Callable[..., Any], args: list, traced: list | None = None
) -> Any:
    """``primal(*args)`` traced and, where NumPy takes every equation
    (:func:`~dgraph.frontends.jaxpr_arrays.numpy_cheaper`, as for a ``J·v`` reference),
    run by :func:`~dgraph.frontends.jaxpr_arrays.run_eagerly` (nothing compiled); else
    compiled as one program (:func:`~dgraph.frontends.jaxpr_arrays.
    quick_jit`, a reference's quick options), where run operation by operation each
    operation compiles a program of its own (tests/test_numpy_einsum.py's seven checks:
    6.7 -> 0.8 CPU-s; benchmarks/RESULTS.md, suite19). A graph of more than
    :data:`~dgraph.frontends.jaxpr_arrays.REFERENCE_JIT_MOST` operations (one program's
    compile grows faster than its operations'), or a primal JAX does not trace as one
    program, runs operation by operation: traced once (``make_jaxpr``) and its equations
    run by :func:`~dgraph.frontends.jaxpr_arrays.run_eagerly` (the elementwise and moving
    ones of host arrays by NumPy, with JAX's semantics), where each ``jax.numpy`` call
    dispatched on its own compiled a kernel per primitive and shape (a binomial tree's
    levels each meet new shapes); where JAX does not trace it, ``primal`` itself (its own
    error, if any). ``traced``: a list the trace (``make_jaxpr``'s jaxpr and output shape)
    is appended to."""
    try:
        closed, shape = jax.make_jaxpr(primal, return_shape=True)(*args)
    except Exception:  # run by jax.numpy: its own error, as before, if any
        return primal(*args)
    if traced is not None:
        traced.append((closed, shape))
    operations = sum(1 for v in graph.nx if graph.op(v) is not None)
    if operations <= REFERENCE_JIT_MOST and not numpy_cheaper(
        closed, args, equation_count(closed.jaxpr)
    ):
        try:
            return quick_jit(jax, primal, REFERENCE_COMPILE)(*args)
        except Exception:  # run operation by operation: its own error, as before, if any
            pass
    values = run_eagerly(closed.jaxpr, closed.consts, args)
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shape), values)


ROUNDING_SAFETY = 1024.0
"""How many times float64's share of the float32 evaluation's error a difference may be
(:func:`check_primal`): that error is one sample of the rounding, not a bound (a beam's
compliance, 10 elements: 1.9e-5 and 2.3e-4 relative at two sets of rigidities), while a
mistranslation errs by far more than 2⁻¹⁹ of float32's error."""


def check_primal(graph: DGraph, primal: Callable[..., Any], args: list[np.ndarray]) -> Any:
    """Raise :class:`~dgraph.errors.VerificationError` unless ``primal`` (of
    :func:`jax_primal`) gives the graph's own values (NumPy's,
    :func:`~dgraph.core.block_values.vertex_values`) at ``args`` (inputs, then array
    parameters): to 1e-12 relative, or, where the two differ by more, by no more than
    their rounding explains. That is estimated as in mixed-precision error analysis
    (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §2.8): the same
    primal evaluated in float32 errs by about cond·2⁻²⁴, so float64 by that times 2⁻²⁹;
    a difference within :data:`ROUNDING_SAFETY` times it is rounding (an ill-conditioned
    solve's), more is a mistranslation. Where float32 gives no correct digit, the
    function is too ill-conditioned at ``args`` to tell the two apart, and that is said.
    Returns ``primal``'s trace at ``args`` (``jax.make_jaxpr(primal, return_shape=True)``'s
    pair, in float64: the gradient graph's, :func:`~dgraph.frontends.jax_hessian.
    gradient_graph`), None where JAX did not trace it."""
    import jax

    names = [*graph.inputs, *graph.parameter_shapes]
    values = vertex_values(graph, dict(zip(names, args, strict=True)))
    traced: list = []
    with jax.enable_x64(True):
        got = _evaluated(jax, graph, primal, args, traced)
    got = [got] if len(graph.outputs) == 1 else list(got)
    singles = None
    for i, (y, value) in enumerate(zip(graph.outputs, got, strict=True)):
        expected = values[y]
        value = np.asarray(value, dtype=float)
        if value.shape != expected.shape:
            raise VerificationError(
                f"the graph's primal evaluated with JAX has shape {value.shape} at {y!r},"
                f" its own values {expected.shape}: a bug, please report it"
            )
        scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
        if np.allclose(value, expected, rtol=1e-12, atol=1e-12 * scale, equal_nan=True):
            continue
        if singles is None:
            singles = _in_float32(jax, graph, args)
        _check_rounding(y, value, expected, scale, None if singles is None else singles[i])
    return traced[0] if traced else None


def _in_float32(jax: Any, graph: DGraph, args: list) -> list | None:
    """The graph's primal evaluated in float32, its constants too (:func:`jax_primal` made
    again with float64 off: the checked one's are float64 arrays); None where that fails."""
    try:
        with jax.enable_x64(False):
            again = jax_primal(graph)
            low = _evaluated(jax, graph, again, [np.asarray(a, np.float32) for a in args])
    except Exception:  # no estimate: the difference is reported as it is
        return None
    low = [low] if len(graph.outputs) == 1 else list(low)
    return [np.asarray(v, dtype=float) for v in low]


def _check_rounding(
    y: str, value: np.ndarray, expected: np.ndarray, scale: float, single: np.ndarray | None
) -> None:
    """:func:`check_primal`'s second tier at output ``y``: the difference against float64's
    rounding estimated from ``single``, the float32 evaluation."""
    difference = np.abs(value - expected)
    both_nan = np.isnan(value) & np.isnan(expected)
    worst = float(np.max(np.where(both_nan, 0.0, difference), initial=0.0))
    relative = worst / scale
    where = f"the graph's primal evaluated with JAX differs from its own values at {y!r}"
    if single is None or single.shape != expected.shape:
        raise VerificationError(f"{where} by {relative:.1e} relative: a bug, please report it")
    low = float(np.max(np.where(both_nan, 0.0, np.abs(single - expected)), initial=0.0)) / scale
    if not np.isfinite(low) or low >= 0.5:
        raise VerificationError(
            f"{where} by {relative:.1e} relative, and in float32 it has no correct digit:"
            " the function is too ill-conditioned at this point to tell rounding from a bug;"
            " try a better-conditioned point"
        )
    bound = max(1e-12, ROUNDING_SAFETY * low * 2.0**-29)
    if not relative <= bound:  # NaN against a number included
        raise VerificationError(
            f"{where} by {relative:.1e} relative, more than its rounding explains"
            f" ({bound:.1e}, estimated from float32): a bug, please report it"
        )
