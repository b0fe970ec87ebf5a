"""Graphs from JAX functions at either level, from one jaxpr reader.

``jax.make_jaxpr``'s equations are read once, as array operations
(:mod:`dgraph.frontends.jaxpr_arrays`: one tensor vertex per equation). The element
level is that graph expanded (:func:`dgraph.core.expand.expand`): each element of an
equation's result is a scalar vertex whose elemental function is the primitive written in
sympy over its operands' elements, so its local partials are the primitive's
derivatives. Literals fold, equations on constants are evaluated, equations no output
uses are dropped, calls are inlined, and moves that only rearrange elements
(``reshape``, ``slice``, ``broadcast_in_dim``, ``concatenate``, dtype conversions) make
no scalar vertex.

Intermediates are named after their equation's place in the inlined equation list,
``v<k>`` (``v<k>_<i>`` for element ``i`` of an array), so that published elimination
orders over jaxpr equations can be replayed; inputs after the function's parameters
(``x``, or ``x0, x1, ...`` for the elements of an array ``x``), outputs after the
returned structure (``y``; ``y0, y1, ...``; a dict's keys).

References: the reinforcement-learning work on vertex elimination orders builds its
graphs from jaxprs in the same way (Lohoff and Neftci, "Optimizing automatic
differentiation with deep reinforcement learning", 2024).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.expand import EDGE_LIMIT, expand
from ..core.graph import DGraph
from ..core.parse import vertex_names
from ..errors import InputError
from .fixed_parameters import marked_closed
from .integer_arguments import integer_arguments
from .jaxpr_arrays import (
    JaxJvp,
    NotJax,
    from_jax_arrays,
    output_keys,
    parameter_names,
)
from .pytrees import flat_arguments

__all__ = ["JaxJvp", "NotJax", "from_jax", "output_keys", "parameter_names"]


def from_jax(
    f: Callable[..., Any],
    *example_args: Any,
    name: str = "",
    every_equation: bool = False,
    level: str = "element",
    limit: int | None = EDGE_LIMIT,
    params: Sequence[str] = (),
) -> DGraph:
    """The differentiation graph of a JAX function at arguments shaped like
    ``example_args``.

    Parameters
    ----------
    f
        The function; its parameters name the inputs.
    example_args
        Arrays or numbers whose shapes make the inputs (and the graph's
        :attr:`~dgraph.core.graph.DGraph.point`), or pytrees of them (a dict of
        parameters: the leaves are the inputs, :mod:`~dgraph.frontends.pytrees`).
    level
        ``"array"``: one tensor vertex per equation, its edges Jacobian blocks. The
        default ``"element"``: that graph expanded element by element.
    every_equation
        At the element level, keep every elementwise operation and reduction on values
        that depend on the inputs as a vertex with an edge from each such operand,
        whatever it simplifies to (``x * 1``; the edge of ``1 ** x`` has partial 0): the
        graph of the jaxpr as written, on which AlphaGrad (Lohoff and Neftci 2024) counts.
    limit
        Most scalar edges the element level makes (None: no limit).
    params
        Parameters of ``f`` that are not differentiated (a data batch, masses): the
        Jacobian has no column for them and generated code takes their values last
        (``J(x, p)``); at the element level their entries stay symbols in the partials,
        at the array level they are the graph's array parameters (their example
        arguments the values at its point). An argument given as an integer array (a
        mesh's triangles) is one, read cast to integers (index data:
        :func:`~.integer_arguments.integer_arguments`).

    Returns
    -------
    DGraph
        ``traced_with`` ``"jax"``; its point the example arguments.

    Raises
    ------
    InputError
        JAX cannot trace ``f`` (:class:`NotJax` where it turns JAX values into NumPy or
        Python ones), an operation has no array form, or the element level would exceed
        ``limit`` (the line names ``level="array"``).

    >>> import jax.numpy as jnp
    >>> g = from_jax(lambda x, y: jnp.sin(x) * y + x, 1.0, 2.0)
    >>> g.inputs, g.intermediates, g.outputs
    (['x', 'y'], ['v1', 'v2'], ['f'])
    """
    if level not in ("element", "array"):
        raise InputError(f"level {str(level)[:20]!r} is not one of 'element', 'array'")
    given = f
    f, leaves, params, trees = flat_arguments(f, example_args, params, None)  # their leaves
    example_args = tuple(leaves)
    f, params = integer_arguments(f, example_args, params, name)  # index data: parameters
    if level == "array":
        graph = from_jax_arrays(f, *example_args, name=name, params=params)
    else:
        array = from_jax_arrays(f, *example_args, name=name, prefix="v", held=params)
        renamed = vertex_names(parameter_names(f, len(example_args)))
        params = [renamed.get(p, p) for p in params]  # a parameter E: vertex E_
        graph = expand(array, limit, every_operation=every_equation, parameters=params)
        graph.traced_with = "jax"
    if trees is not None:
        trees.add_note(graph)
    return marked_closed(graph, given)  # closed over at values that fix its structure: said
