"""Dixon's Hessian graph: the graph of the adjoint computation, whose Jacobian is the Hessian.

For a scalar graph ``g`` with outputs ``y`` and weights ``λ`` (``λ = 1`` for one output;
the Lagrangian ``λᵀy`` for several, as ``scipy.optimize``'s ``hess(x, v)`` takes it), the
reverse sweep computes the adjoints ``ȳ = λ`` and, in reverse evaluation order,
``ū = Σ_{w ∈ succ(u)} c_wu · w̄``, where ``c_wu = ∂φ_w/∂u`` is the edge label of
``u -> w``. Written as a graph of its own, :func:`hessian_graph`, this computation has

* the **forward** part of ``g`` that the adjoints read (its vertices and edges, labels
  ``c_wu``),
* the **mirror** part: an edge ``w̄ -> ū`` for every edge ``u -> w``, labelled ``c_wu``
  again (the adjoint is linear in ``w̄``),
* **nonlinear** edges ``v -> ū`` labelled ``Σ_w w̄ · ∂²φ_w/∂u∂v``: the second partials,
  present only where one is structurally nonzero (a sum or a linear map has none; a
  product ``a·b`` gives ``b -> ā`` and ``a -> b̄``, no ``a -> ā``).

Its inputs are ``g``'s inputs ``x`` and its outputs the adjoints ``x̄ = ∇(λᵀy)``, so its
Jacobian is the Hessian ``∇²(λᵀy)`` with rows ``x̄_i`` and columns ``x_j``: every Jacobian
method, the verification and the code generators apply to it unchanged (Dixon 1991). The
graph is symmetric: the map ``u ↔ ū`` sends each edge to one with an equal label
(:func:`mirror`), which the Hessian methods of :mod:`dgraph.second_order` exploit.

Edge symbols follow :func:`dgraph.core.graph.edge_symbol`: the mirror edge ``w̄ -> ū``
prints as ``d_u_bar_w_bar`` (not ``d_w_u``, which names the forward edge), since every
symbol names one edge.

References
----------
L. C. W. Dixon, Use of automatic differentiation for calculating Hessians and Newton
steps, in *Automatic Differentiation of Algorithms* (Griewank and Corliss, eds.), SIAM,
1991, pp. 114-125.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import sympy

from ..errors import GraphError
from .cancellation import cancelled_entries
from .graph import DGraph, vertex_symbol
from .paths import path_counts

__all__ = [
    "SUFFIX",
    "adjoint_names",
    "hessian_graph",
    "hessian_pattern",
    "mirror",
    "weight_parameters",
]

SUFFIX = "_bar"  # the adjoint of ``x`` is ``x_bar`` (``x_bar2``, ... where that is taken)
_TRIES = 20


def adjoint_names(g: DGraph, suffix: str = SUFFIX) -> dict[str, str]:
    """The name of every vertex's adjoint: ``v + suffix``, where no vertex of ``g`` ends in
    ``suffix`` and no adjoint name is a parameter's; else the suffix with the first number
    2, 3, ... for which that holds (one suffix for the whole graph, so that the names read
    alike and a vertex of the Hessian graph is an adjoint exactly when its name ends in it)."""
    taken = set(g.vertices) | set(g.parameters)
    for k in range(1, _TRIES + 1):
        tail = suffix if k == 1 else f"{suffix}{k}"
        names = {v: v + tail for v in g.vertices}
        if not taken.intersection(names.values()) and not any(v.endswith(tail) for v in g):
            return names
    raise GraphError(f"no free adjoint names: every suffix {suffix}, {suffix}2, ... is taken")


def weight_parameters(g: DGraph, H: DGraph) -> dict[str, str]:
    """The parameter of ``H = hessian_graph(g)`` that holds each output's weight, by output
    in the order of ``g.outputs`` (the order in which ``H(x, v)`` takes ``v``): the
    output's adjoint name (``y_bar``), after ``g``'s own parameters; empty where the
    weights are numbers."""
    own = len(g.parameters)
    if len(H.parameters) != own + len(g.outputs):
        return {}
    return dict(zip(g.outputs, H.parameters[own:], strict=True))


def _weights(
    g: DGraph, weights: Mapping[str, float] | None, names: dict[str, str]
) -> dict[str, sympy.Expr]:
    """Each output's seed ``ȳ``: the number given, 1 for a single output, else a parameter
    of the output's adjoint name."""
    if weights is None:
        if len(g.outputs) == 1:
            return {g.outputs[0]: sympy.S.One}
        return {y: vertex_symbol(names[y]) for y in g.outputs}
    if not isinstance(weights, Mapping):
        raise GraphError("weights must map each output's name to a number")
    unknown = sorted(set(weights) - set(g.outputs), key=str)
    if unknown:
        raise GraphError(f"weights: {unknown[0]!r} is not an output (outputs: {g.outputs})")
    missing = [y for y in g.outputs if y not in weights]
    if missing:
        raise GraphError(f"weights: no weight for the output {missing[0]!r}")
    seeds = {}
    for y in g.outputs:
        w = weights[y]
        if (
            isinstance(w, bool)
            or not isinstance(w, numbers.Real)
            or w != w
            or abs(w) == float("inf")
        ):
            raise GraphError(f"weights: the weight of {y!r} is {w!r}, not a finite number")
        seeds[y] = sympy.Integer(int(w)) if float(w).is_integer() else sympy.Float(float(w))
    return seeds


def _active(g: DGraph) -> set[str]:
    """The vertices on a path from an input to an output."""
    reached = set(g.inputs)
    for v in g.order():
        if any(u in reached for u in g.predecessors(v)):
            reached.add(v)
    reaches = set(g.outputs)
    for v in reversed(g.order()):
        if any(w in reaches for w in g.successors(v)):
            reaches.add(v)
    return reached & reaches


def _adjoints(
    g: DGraph, seeds: dict[str, sympy.Expr], names: dict[str, str]
) -> tuple[dict[str, sympy.Expr], dict[str, sympy.Expr]]:
    """The reverse sweep written out: the adjoint vertices' expressions (by adjoint name, in
    the order computed) and the inputs' adjoints. An adjoint that reads no vertex (a
    constant, a weight) is no vertex: it is substituted where it is used."""
    active = _active(g)
    inputs = set(g.inputs)
    value: dict[str, sympy.Expr] = dict(seeds)  # each vertex's adjoint as its users read it
    vertices: dict[str, sympy.Expr] = {}
    parameters = {vertex_symbol(p) for p in g.parameters}
    parameters.update(s for seed in seeds.values() for s in seed.free_symbols)
    for u in reversed(g.order()):
        if u in seeds or (u not in active and u not in inputs):
            continue
        terms = []
        for w in g.successors(u):
            if w not in value or value[w] == 0:
                continue
            c = g.partial(u, w)
            if c is None:
                raise GraphError(
                    f"edge {u} -> {w} has no label and {w!r} no expression: the Hessian graph"
                    " needs every local partial"
                )
            terms.append(c * value[w])
        expr = sympy.Add(*terms)
        if u in inputs or expr.free_symbols - parameters:
            vertices[names[u]] = expr
            value[u] = vertex_symbol(names[u])
        else:
            value[u] = expr
    gradient = {names[x]: vertices.pop(names[x]) for x in g.inputs}
    return vertices, gradient


def _forward_part(g: DGraph, exprs: list[sympy.Expr]) -> list[str]:
    """The vertices of ``g`` that ``exprs`` read, with everything they are computed from,
    in evaluation order."""
    needed = {s.name for e in exprs for s in e.free_symbols} & set(g.vertices)
    for v in reversed(g.order()):
        if v in needed:
            needed.update(g.predecessors(v))
    return [v for v in g.order() if v in needed or g.role(v) == "input"]


def hessian_graph(g: DGraph, weights: Mapping[str, float] | None = None) -> DGraph:
    """Dixon's Hessian graph of the scalar graph ``g``: its Jacobian is ``∇²(λᵀy)``.

    Parameters
    ----------
    g
        A scalar graph whose vertices have expressions (or whose edges have labels).
    weights
        The weight ``λ_y`` of every output, by name. None: 1 for a graph of one output; for
        several, one parameter per output (``y_bar`` for ``y``, after ``g``'s own
        parameters: :func:`weight_parameters`), so that generated code takes the weights
        per call.

    Returns
    -------
    DGraph
        Inputs ``g.inputs``; outputs their adjoints (``x_bar`` for ``x``, see
        :func:`adjoint_names`) in the same order, so entry ``(x̄_i, x_j)`` of its Jacobian
        is ``∂²(λᵀy)/∂x_i∂x_j``; intermediates the forward vertices the adjoints read, then
        the adjoint vertices in the order the reverse sweep computes them. The point of
        ``g``, if any, is kept, and its parameters' values where they are all of ``H``'s.

    Raises
    ------
    GraphError
        For a tensor graph, a graph of solved values, a label that is unknown, or weights
        that do not give one finite number per output.

    Examples
    --------
    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> H = hessian_graph(from_sympy(x * y + sympy.sin(x), [x, y]))
    >>> H.inputs, H.outputs
    (['x', 'y'], ['x_bar', 'y_bar'])
    """
    if g.is_tensor:
        raise GraphError(
            "hessian_graph reads a scalar graph; the Hessian of a tensor graph is the"
            " array-level graph of its gradient"
        )
    if g.solved:
        raise GraphError("hessian_graph: a graph of solved values (a linear system) has none")
    g.validate()
    for k in range(1, _TRIES + 1):
        names = adjoint_names(g, SUFFIX if k == 1 else f"{SUFFIX}{k}")
        seeds = _weights(g, weights, names)
        vertices, gradient = _adjoints(g, seeds, names)
        forward = _forward_part(g, [*vertices.values(), *gradient.values()])
        exprs = {v: g.expr(v) for v in forward if g.role(v) != "input"}
        exprs.update(vertices)
        exprs.update(gradient)
        edges = [(u, v) for v in forward for u in g.predecessors(v)]
        edges += _edges({**vertices, **gradient}, set(forward) | set(vertices))
        symbols = {f"d_{v}_{u}" for u, v in edges}
        if len(symbols) == len(edges):  # distinct names give distinct symbols but for `_`
            break
    else:
        raise GraphError("hessian_graph: no adjoint names whose edge symbols are distinct")
    read = _read_by(edges, list(gradient))
    forward = [v for v in forward if g.role(v) == "input" or v in read]
    vertices = {name: expr for name, expr in vertices.items() if name in read}
    edges = [(u, v) for u, v in edges if v in read]
    H = DGraph(f"hessian({g.name})" if g.name else "hessian")
    for p in g.parameters:
        H.add_parameter(p)
    if weights is None and len(g.outputs) > 1:
        for y in g.outputs:
            H.add_parameter(names[y])
    for v in forward:
        role = "input" if g.role(v) == "input" else "intermediate"
        H.add_vertex(v, role, exprs.get(v))
    for name, expr in vertices.items():
        H.add_vertex(name, "intermediate", expr)
    for name, expr in gradient.items():
        H.add_vertex(name, "output", expr)
    for u, v in edges:
        H.add_edge(u, v, g.given_partial(u, v) if u in g and v in g else None)
    if g.point is not None:
        H.set_point(g.point)
    known = g.parameter_point  # the parameters' values given with it (not the weights')
    if known and all(p in known for p in H.parameters):
        H.set_parameter_point(known)
    return H


def _read_by(edges: list[tuple[str, str]], outputs: list[str]) -> set[str]:
    """The outputs and every vertex with a path to one: an adjoint whose only reader's
    partial is zero (``t̄`` of ``t = Heaviside(x)``) is read by no output and is left out
    (a vertex no output reads is no vertex of a Jacobian's graph)."""
    readers: dict[str, list[str]] = {}
    for u, v in edges:
        readers.setdefault(v, []).append(u)
    found, todo = set(outputs), list(outputs)
    while todo:
        for u in readers.get(todo.pop(), []):
            if u not in found:
                found.add(u)
                todo.append(u)
    return found


def _edges(exprs: dict[str, sympy.Expr | None], known: set[str]) -> list[tuple[str, str]]:
    """An edge from every vertex an expression reads to its vertex, grouped by target."""
    edges = []
    for v, expr in exprs.items():
        if expr is None:
            continue
        reads = sorted(s.name for s in expr.free_symbols if s.name in known)
        edges.extend((u, v) for u in reads)
    return edges


def mirror(H: DGraph) -> tuple[dict[str, str], frozenset[str]]:
    """The mirror map of a Hessian graph ``H`` and its adjoint vertices: ``σ(u) = ū`` and
    ``σ(ū) = u`` for every vertex whose adjoint is also in ``H`` (inputs and their
    adjoints, the outputs, among them). An edge ``a -> b`` of ``H`` between such vertices
    has the mirror ``σ(b) -> σ(a)``, with an equal label.

    Raises
    ------
    GraphError
        Where ``H`` is not a graph :func:`hessian_graph` built (its outputs are not its
        inputs' adjoints, named with one suffix).
    """
    ins, outs = H.inputs, H.outputs
    suffix = outs[0][len(ins[0]) :] if outs and ins and outs[0].startswith(ins[0]) else ""
    paired = len(ins) == len(outs) and all(y == x + suffix for x, y in zip(ins, outs, strict=True))
    if not suffix or not paired:
        raise GraphError(
            f"graph {H.name!r} is not a Hessian graph (its outputs are not its inputs' adjoints)"
        )
    adjoints = frozenset(v for v in H.vertices if v.endswith(suffix))
    sigma = {}
    for v in H.vertices:
        if v not in adjoints and v + suffix in H:
            sigma[v], sigma[v + suffix] = v + suffix, v
    return sigma, adjoints


def hessian_pattern(H: DGraph) -> set[tuple[int, int]]:
    """The pattern of the Hessian whose graph is ``H`` (:func:`hessian_graph`): the
    entries ``(i, j)`` (row ``x̄_i``, column ``x_j``) that a path joins, without those
    proven zero for every input (:func:`~dgraph.core.cancellation.cancelled_entries`) and
    their mirrors ``(j, i)``. The Hessian is symmetric (each elemental's second partials
    are, so the sum over the vertices of ``v̄ · ∇aᵀ ∂²φ_v/∂a∂b ∇b`` is): what is zero at
    ``(i, j)`` is zero at ``(j, i)``, the symmetry a generated Hessian's mirrored upper
    triangle rests on too. A proof may reach one of the two only (a sum too long to keep
    on the other side)."""
    row = {y: i for i, y in enumerate(H.outputs)}
    col = {x: j for j, x in enumerate(H.inputs)}
    zero = {(row[y], col[x]) for y, x in cancelled_entries(H)}
    paths = {(row[y], col[x]) for y, x in path_counts(H)}
    return {(i, j) for i, j in paths if (i, j) not in zero and (j, i) not in zero}
