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


def _evaluated(jax: Any, graph: DGraph, primal: Callable[..., Any], args: list) -> Any:
    """``primal(*args)`` compiled as one program (:func:`~dgraph.frontends.jaxpr_arrays.
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
    error, if any)."""
    operations = sum(1 for v in graph.nx if graph.op(v) is not None)
    if operations <= REFERENCE_JIT_MOST:
        try:
            return quick_jit(jax, primal, REFERENCE_COMPILE)(*args)
        except Exception:  # run operation by operation: its own error, as before, if any
            pass
    try:
        closed, shape = jax.make_jaxpr(primal, return_shape=True)(*args)
    except Exception:  # run by jax.numpy: its own error, as before, if any
        return primal(*args)
    values = run_eagerly(closed.jaxpr, closed.consts, args)
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shape), values)


def check_primal(graph: DGraph, primal: Callable[..., Any], args: list[np.ndarray]) -> None:
    """Raise :class:`~dgraph.errors.VerificationError` unless ``primal`` (of
    :func:`jax_primal`) gives the graph's own values (NumPy's,
    :func:`~dgraph.core.block_values.vertex_values`) at ``args`` (inputs, then array
    parameters) to 1e-12 relative."""
    import jax

    names = [*graph.inputs, *graph.parameter_shapes]
    values = vertex_values(graph, dict(zip(names, args, strict=True)))
    with jax.enable_x64(True):
        got = _evaluated(jax, graph, primal, args)
    got = [got] if len(graph.outputs) == 1 else list(got)
    for y, value in zip(graph.outputs, got, strict=True):
        expected = values[y]
        value = np.asarray(value, dtype=float)
        scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
        if value.shape != expected.shape or not np.allclose(
            value, expected, rtol=1e-12, atol=1e-12 * scale, equal_nan=True
        ):
            raise VerificationError(
                f"the graph's primal evaluated with JAX differs from its own values at {y!r}:"
                " a bug, please report it"
            )
