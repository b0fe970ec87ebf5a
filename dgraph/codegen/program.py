"""Straight-line programs from an expression set: what the generated code computes.

The Jacobian program evaluates, in one straight line, the primal values the local partials
need, the local partials c_vu = d phi_v / d u, the expression set's references and its
Jacobian entries (Zhou's expression sets, Zhou 2020; Griewank–Walther's tangent and
adjoint sweeps for :func:`jvp_program` and :func:`vjp_program`). For a scalar graph the
noncommutative edge symbols ``d_<target>_<source>`` become ordinary values, so:

- a label that is a number (+, -, copies, constant factors) is substituted, so that
  products by ±1 vanish and products of constants fold into one number;
- every named value is an assignment; one ``sympy.cse`` runs over all of them together, so
  primal values, partials and accumulation share their work;
- an assignment used once is substituted into its use when that is not more expensive,
  values that end up a plain symbol or number are propagated, dead ones dropped;
- Jacobian entries absent from the expression set (structural zeros) are never computed.

Counts follow the one rule of :mod:`dgraph.codegen.counting`.
"""

from __future__ import annotations

from collections.abc import Iterator

import sympy

from ..core import extremes
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph, vertex_symbol
from ..core.label_text import split_deep
from ..errors import DGraphError
from .counting import Ops, count_ops, fold_constants
from .implicit import Factors, ordered, solution, solve, solve_transposed, temporaries
from .ir import Assignment, Program, Result, Strategy, label_symbol, value_symbol
from .passes import SOLVED_PIPELINES, build_program
from .untaken_products import UntakenProducts

__all__ = [
    "SYMBOLIC",
    "edge_labels",
    "function_outputs",
    "jacobian_estimate",
    "jacobian_program",
    "jvp_program",
    "primal_program",
    "program_arguments",
    "program_inputs",
    "symbolic_program",
    "symbolic_value_and_jacobian_program",
    "sympy_jacobian_results",
    "value_and_jacobian_program",
    "vjp_program",
]


SYMBOLIC = "symbolic"  # the program of symbolic_program: not an accumulation method


def function_outputs(graph: DGraph) -> list[str]:
    """What the generated functions return: the solved values of a linear system's graph
    (its outputs are residuals), else the outputs."""
    return list(graph.solved) or graph.outputs


def program_inputs(graph: DGraph) -> tuple[sympy.Symbol, ...]:
    return tuple(value_symbol(x) for x in graph.inputs)


def program_arguments(
    graph: DGraph, *others: tuple[str, tuple[sympy.Symbol, ...]]
) -> list[tuple[str, tuple[sympy.Symbol, ...]]]:
    """A program's arguments: ``x``, then ``others`` (directions, weights), then the
    parameters ``p`` when the graph has any: ``jacobian(x, p)``, ``jvp(x, v, p)``."""
    arguments = [("x", program_inputs(graph)), *others]
    parameters = [p for p in graph.parameters if p not in graph.solved]
    if parameters:
        arguments.append(("p", tuple(value_symbol(p) for p in parameters)))
    return arguments


def _renaming(graph: DGraph, vertices: list[str]) -> dict[sympy.Symbol, sympy.Symbol]:
    """Vertex symbols of ``vertices`` and of the parameters to program variables."""
    return {vertex_symbol(u): value_symbol(u) for u in [*vertices, *graph.parameters]}


def _values(graph: DGraph) -> list[Assignment]:
    """Every non-input vertex's elemental function over its predecessors' variables
    (computed once per graph, like :func:`_labels`)."""
    if "codegen_values" not in graph.derived:
        graph.derived["codegen_values"] = _vertex_values(graph)
    return list(graph.derived["codegen_values"])  # type: ignore[call-overload]


def _vertex_values(graph: DGraph) -> list[Assignment]:
    out = []
    for v in graph.order():
        expr = graph.expr(v)
        if graph.role(v) != "input" and expr is not None:
            rename = _renaming(graph, graph.predecessors(v))
            out.append((value_symbol(v), extremes.substituted(expr, rename)))
    return out


def _labels(graph: DGraph) -> tuple[dict[sympy.Symbol, sympy.Expr], list[Assignment]]:
    """Each edge symbol's scalar stand-in (a number, or a variable) and the definitions of
    the variable ones, rewritten over the target's own value where that is cheaper
    (d exp(u)/du = v, d sqrt(u)/du = 1/(2 v)). Computed once per graph (every candidate
    expression set shares them; ``graph.derived`` is cleared when the graph changes)."""
    if "codegen_labels" not in graph.derived:
        graph.derived["codegen_labels"] = _scalar_labels(graph)
    labels, definitions = graph.derived["codegen_labels"]  # type: ignore[misc]
    return dict(labels), list(definitions)


def edge_labels(graph: DGraph) -> tuple[dict[sympy.Symbol, sympy.Expr], list[Assignment]]:
    """Each edge symbol's scalar stand-in and the definitions of the variable ones (what
    every program of ``graph`` starts from); a DGraphError when an edge has no partial."""
    return _labels(graph)


def _scalar_labels(graph: DGraph) -> tuple[dict[sympy.Symbol, sympy.Expr], list[Assignment]]:
    values = dict(_values(graph))
    labels: dict[sympy.Symbol, sympy.Expr] = {}
    definitions: list[Assignment] = []
    renamings: dict[str, dict[sympy.Symbol, sympy.Symbol]] = {}  # one per target vertex:
    # a vertex of n in-edges would otherwise build its renaming n times (n² for a sum)
    extremes_known: dict[str, dict] = {}  # :func:`_over_own_value`'s, by vertex
    for u, v in graph.edges():
        partial = graph.partial(u, v)
        if partial is None:
            raise DGraphError(
                f"edge {u} -> {v} has no local partial; code generation needs vertex"
                " expressions or edge labels"
            )
        if v not in renamings:
            renamings[v] = _renaming(graph, graph.predecessors(v))
        expr = graph.expr(v)
        target = value_symbol(v)
        if isinstance(expr, (sympy.Max, sympy.Min)) and target in values:
            partial = _over_own_value(partial, expr, v, renamings[v], extremes_known)
        else:
            partial = _renamed(partial, renamings[v])
        partial = fold_constants(partial)
        if partial.is_Number:
            labels[graph.symbol(u, v)] = partial
            continue
        if target in values:
            partial = _in_terms_of(partial, values[target], target)
        labels[graph.symbol(u, v)] = label_symbol(u, v)
        definitions.append((label_symbol(u, v), partial))
    return labels, definitions


def _over_own_value(
    partial: sympy.Expr,
    expr: sympy.Expr,
    v: str,
    rename: dict[sympy.Symbol, sympy.Symbol],
    known: dict[str, dict],
) -> sympy.Expr:
    """A partial of the Max or Min vertex ``v`` (value ``expr``) over ``v``'s own value,
    renamed: its n-argument value, n times in each of its n partials (in the count of
    its ties), replaced before anything walks them, and each subexpression the partials
    share (the count) rebuilt once for all of them (``known``: per vertex)."""
    return extremes.over_value(partial, {expr: value_symbol(v), **rename}, known.setdefault(v, {}))


def _renamed(expr: sympy.Expr, rename: dict[sympy.Symbol, sympy.Symbol]) -> sympy.Expr:
    """``expr`` over the renamed variables; a Max or Min in it is not evaluated again
    (``xreplace`` rebuilds ``Max(x1, …, xn)`` by pairwise comparisons: each of a
    maximum's n partials holds the Max of the n - 1 others, 47% of ``make_function``'s
    10.7 CPU-s for ``np.max`` of 20 elements)."""
    if extremes.holds(expr, (sympy.Max, sympy.Min)):
        return extremes.substituted(expr, rename)
    return expr.xreplace(rename)


def _in_terms_of(expr: sympy.Expr, value: sympy.Expr, name: sympy.Symbol) -> sympy.Expr:
    """``expr`` rewritten with ``value`` replaced by ``name`` when cheaper and exact
    (no fractional power of ``name`` appears) and dividing by nothing ``expr`` does not
    (``x**(p - 1)`` as ``t/x`` for ``t = x**p`` is 0/0 at ``x = 0``). A Max or Min is
    replaced where it stands, never dearer (:func:`~dgraph.core.extremes.over_value`:
    ``subs`` walks each of its partials' n² nodes)."""
    if isinstance(value, (sympy.Max, sympy.Min)):
        return extremes.over_value(expr, {value: name})
    candidate = expr.subs(value, name)
    fractional = any(p.base == name and not p.exp.is_Integer for p in candidate.atoms(sympy.Pow))
    if fractional or count_ops([candidate]).key() >= count_ops([expr]).key():
        return expr
    if _divisors(candidate) - _divisors(expr) - {name}:
        return expr
    return candidate


def _divisors(expr: sympy.Expr) -> set[sympy.Expr]:
    """The bases ``expr`` raises to a negative power (divides by)."""
    return {
        p.base
        for p in expr.atoms(sympy.Pow)
        if p.exp.is_negative or (not p.exp.is_Number and p.exp.could_extract_minus_sign())
    }


def _scalar(es: ExpressionSet) -> tuple[list[Assignment], dict[tuple[str, str], sympy.Expr]]:
    """Values, partials and references as commutative assignments, and the entries."""
    labels, partials = _labels(es.graph)
    references, jacobian = split_deep(es.references, es.jacobian)  # sympy recurses per level
    mapping = dict(labels)
    mapping.update({r: sympy.Symbol(str(r)) for r in references})
    named = _values(es.graph) + partials
    named += [(mapping[r], d.xreplace(mapping)) for r, d in references.items()]
    entries = {k: e.xreplace(mapping) for k, e in jacobian.items()}
    return named, entries


# -- the programs ------------------------------------------------------------------------


def jacobian_program(es: ExpressionSet, pipelines: tuple[str, ...] | None = None) -> Program:
    """The program computing the Jacobian entries of ``es`` from the inputs (Zhou's
    expression set, Zhou 2020, evaluated with scalar labels).

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> p = jacobian_program(accumulate(bundled("naumann_sin.trace"), "reverse"))
    >>> print(p.to_text())
    v_v1 = sin(v_x1)
    jacobian[0, 0] = v_v1**2
    jacobian[0, 1] = 2*v_v1*v_x0*cos(v_x1)
    >>> p.mults, p.adds
    (4, 0)
    """
    graph = es.graph
    named, entries = _scalar(es)
    if graph.solved:
        named, columns = _solved_columns(graph, named, entries)
        results = [((i, j), e) for j, column in columns.items() for i, e in enumerate(column)]
        return _solved_program("jacobian", graph, named, results, es.method, pipelines)
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: j for j, x in enumerate(graph.inputs)}
    results = [((rows[y], cols[x]), e) for (y, x), e in entries.items()]
    return build_program(
        "jacobian", graph, program_arguments(graph), named, results, es.method, pipelines
    )


def _with_solution(
    graph: DGraph, named: list[Assignment], entries: dict[tuple[str, str], sympy.Expr]
) -> tuple[list[Assignment], Factors, Iterator[sympy.Symbol]]:
    """``named`` and the solution's assignments, M's factors and fresh variables for more
    solves (:mod:`dgraph.codegen.implicit`)."""
    temps = temporaries(named, entries.values())
    found = solution(graph, _values(graph), _labels(graph)[0], temps)
    return named + found.assignments, found.factors, temps


def _solved_columns(
    graph: DGraph, named: list[Assignment], entries: dict[tuple[str, str], sympy.Expr]
) -> tuple[list[Assignment], dict[int, list[sympy.Expr]]]:
    """The assignments of ``named``, of the solution and of the solves, and each nonzero
    column j of ds/dx = M⁻¹ ∂h/∂x_j."""
    out, factors, temps = _with_solution(graph, named, entries)
    columns = {}
    for j, x in enumerate(graph.inputs):
        b = [entries.get((y, x), sympy.S.Zero) for y in graph.outputs]
        if any(e != 0 for e in b):
            columns[j] = solve(factors, b, out, temps)
    return out, columns


def _solved_program(
    name: str,
    graph: DGraph,
    named: list[Assignment],
    results: list[Result],
    method: str = "",
    pipelines: tuple[str, ...] | None = None,
    *others: tuple[str, tuple[sympy.Symbol, ...]],
) -> Program:
    """:func:`build_program` of a linear system's graph, its assignments put in order."""
    arguments = program_arguments(graph, *others)
    given = {s for _, symbols in arguments for s in symbols}
    return build_program(name, graph, arguments, ordered(named, given), results, method, pipelines)


def value_and_jacobian_program(
    es: ExpressionSet, pipelines: tuple[str, ...] | None = None
) -> Program:
    """The outputs and the Jacobian entries of ``es`` in one straight line: the primal
    values the partials need are computed once and the outputs read from them (what an
    implicit integrator or a Newton step wants). Results are flat: the m outputs, then
    the m x n Jacobian row-major."""
    graph = es.graph
    missing = [v for v in graph.order() if graph.role(v) != "input" and graph.expr(v) is None]
    if missing:
        raise DGraphError(
            f"vertex {missing[0]!r} has no expression: value_and_jacobian needs the outputs' values"
        )
    named, entries = _scalar(es)
    m, n = len(graph.outputs), len(graph.inputs)
    if graph.solved:
        named, columns = _solved_columns(graph, named, entries)
        results = [((i,), value_symbol(s)) for i, s in enumerate(graph.solved)]
        results += [((m + i * n + j,), e) for j, c in columns.items() for i, e in enumerate(c)]
        return _solved_program("value_and_jacobian", graph, named, results, es.method, pipelines)
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: j for j, x in enumerate(graph.inputs)}
    results = [((i,), value_symbol(y)) for i, y in enumerate(graph.outputs)]
    results += [((m + rows[y] * n + cols[x],), e) for (y, x), e in entries.items()]
    return build_program(
        "value_and_jacobian", graph, program_arguments(graph), named, results, es.method, pipelines
    )


def jacobian_estimate(es: ExpressionSet) -> Ops:
    """The operations of the references and entries of ``es`` with its numeric labels
    substituted and constants folded, before any ``cse``: what the Jacobian programs of
    two expression sets of one graph differ by before their passes (the values and
    partials are the same). A cheap ranking of candidates: no program is built.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> g = bundled("naumann_sin.trace")
    >>> jacobian_estimate(accumulate(g, "reverse")).mults
    3
    """
    labels, _ = _labels(es.graph)
    references, jacobian = split_deep(es.references, es.jacobian)
    mapping = dict(labels)
    mapping.update({r: sympy.Symbol(str(r)) for r in references})
    exprs = [d.xreplace(mapping) for d in references.values()]
    exprs += [e.xreplace(mapping) for e in jacobian.values()]
    return count_ops([fold_constants(e) for e in exprs])


def primal_program(graph: DGraph) -> Program:
    """The program computing the outputs from the inputs (the graph's own trace; for a
    linear system's graph, the solution of the system). Built once per graph
    (``graph.derived``, cleared when the graph changes)."""
    if "codegen_primal" not in graph.derived:
        graph.derived["codegen_primal"] = _primal_program(graph)
    return graph.derived["codegen_primal"]  # type: ignore[return-value]


def _primal_program(graph: DGraph) -> Program:
    if graph.solved:
        named, _, _ = _with_solution(graph, _values(graph) + _labels(graph)[1], {})
        results = [((i,), value_symbol(s)) for i, s in enumerate(graph.solved)]
        return _solved_program("primal", graph, named, results, "", SOLVED_PIPELINES)
    results = [((i,), value_symbol(y)) for i, y in enumerate(graph.outputs)]
    return build_program("primal", graph, program_arguments(graph), _values(graph), results)


def jvp_program(es: ExpressionSet, strategy: Strategy = "auto") -> Program:
    """J·v: the Jacobian entries times v (``jacobian``), or one tangent sweep over the
    local partials, dv_w = sum c_wu dv_u in evaluation order (``sweep``); ``auto``
    keeps the program with fewer operations."""
    graph = es.graph
    directions = tuple(sympy.Symbol(f"dot_{x}") for x in graph.inputs)
    arguments = program_arguments(graph, ("v", directions))
    if graph.solved and strategy in ("auto", "jacobian"):  # one solve of ∂h/∂x v
        named, entries = _scalar(es)
        named, factors, temps = _with_solution(graph, named, entries)
        along = list(zip(graph.inputs, directions, strict=True))
        b = [sympy.Add(*(entries.get((y, x), 0) * d for x, d in along)) for y in graph.outputs]
        results = [((i,), e) for i, e in enumerate(solve(factors, b, named, temps))]
        return _solved_program("jvp", graph, named, results, es.method, None, ("v", directions))
    _no_sweep(graph, strategy)
    candidates = []
    if strategy in ("auto", "jacobian"):
        named, entries = _scalar(es)
        cols = {x: d for x, d in zip(graph.inputs, directions, strict=True)}
        results = [
            ((i,), sympy.Add(*(e * cols[x] for (y2, x), e in entries.items() if y2 == y)))
            for i, y in enumerate(graph.outputs)
        ]
        candidates.append(build_program("jvp", graph, arguments, named, results, es.method))
    if strategy in ("auto", "sweep"):
        labels, partials = _labels(graph)
        tangent = {x: d for x, d in zip(graph.inputs, directions, strict=True)}
        named = _values(graph) + partials
        fold = UntakenProducts(partials)
        for w in graph.order():
            if graph.role(w) != "input":
                tangent[w] = sympy.Symbol(f"dot_{w}")
                terms = [labels[graph.symbol(u, w)] * tangent[u] for u in graph.predecessors(w)]
                named.append((tangent[w], fold.assign(tangent[w], sympy.Add(*terms))))
        results = [((i,), tangent[y]) for i, y in enumerate(graph.outputs)]
        candidates.append(build_program("jvp", graph, arguments, named, results, "tangent"))
    if not candidates:
        raise DGraphError(f"unknown strategy {strategy!r}: use auto, jacobian or sweep")
    return min(candidates, key=lambda p: p.ops.key())


def vjp_program(es: ExpressionSet, strategy: Strategy = "auto") -> Program:
    """wᵀ·J: w times the Jacobian entries (``jacobian``), or one adjoint sweep,
    bar_u = sum c_vu bar_v in reverse order (``sweep``); ``auto`` keeps the cheaper."""
    graph = es.graph
    weights = tuple(sympy.Symbol(f"bar_{y}") for y in function_outputs(graph))
    arguments = program_arguments(graph, ("w", weights))
    if graph.solved and strategy in ("auto", "jacobian"):  # one solve with Mᵀ, then (∂h/∂x)ᵀ
        named, entries = _scalar(es)
        named, factors, temps = _with_solution(graph, named, entries)
        t = list(
            zip(graph.outputs, solve_transposed(factors, list(weights), named, temps), strict=True)
        )
        results = [
            ((j,), sympy.Add(*(entries.get((y, x), 0) * ty for y, ty in t)))
            for j, x in enumerate(graph.inputs)
        ]
        return _solved_program("vjp", graph, named, results, es.method, None, ("w", weights))
    _no_sweep(graph, strategy)
    candidates = []
    if strategy in ("auto", "jacobian"):
        named, entries = _scalar(es)
        rows = {y: w for y, w in zip(graph.outputs, weights, strict=True)}
        results = [
            ((j,), sympy.Add(*(rows[y] * e for (y, x2), e in entries.items() if x2 == x)))
            for j, x in enumerate(graph.inputs)
        ]
        candidates.append(build_program("vjp", graph, arguments, named, results, es.method))
    if strategy in ("auto", "sweep"):
        labels, partials = _labels(graph)
        adjoint = {y: w for y, w in zip(graph.outputs, weights, strict=True)}
        sweep: list[Assignment] = []
        fold = UntakenProducts(partials)
        for u in reversed(graph.order()):
            if graph.role(u) != "output":
                adjoint[u] = sympy.Symbol(f"bar_{u}")
                terms = [labels[graph.symbol(u, v)] * adjoint[v] for v in graph.successors(u)]
                sweep.append((adjoint[u], fold.assign(adjoint[u], sympy.Add(*terms))))
        named = _values(graph) + partials + sweep
        results = [((j,), adjoint[x]) for j, x in enumerate(graph.inputs)]
        candidates.append(build_program("vjp", graph, arguments, named, results, "adjoint"))
    if not candidates:
        raise DGraphError(f"unknown strategy {strategy!r}: use auto, jacobian or sweep")
    return min(candidates, key=lambda p: p.ops.key())


def symbolic_program(graph: DGraph, pipelines: tuple[str, ...] | None = None) -> Program:
    """Bauer's formula with sympy's algebra: the Jacobian of the outputs differentiated as
    whole expressions (equal factors on a path become powers, like terms combine), then
    the same passes as every program. A candidate of :func:`cheapest_jacobian` beside
    method ``paths``, whose entries it computes.

    >>> from dgraph.frontends import bundled
    >>> print(symbolic_program(bundled("naumann_sin.trace")).to_text())
    s1 = sin(v_x1)
    jacobian[0, 0] = s1**2
    jacobian[0, 1] = 2*s1*v_x0*cos(v_x1)
    """
    _explicit(graph)
    results = sympy_jacobian_results(graph)
    arguments = program_arguments(graph)
    return build_program("jacobian", graph, arguments, [], results, SYMBOLIC, pipelines)


def _no_sweep(graph: DGraph, strategy: str) -> None:
    if graph.solved and strategy == "sweep":
        raise DGraphError(
            "a linear system's jvp and vjp solve with the Jacobian entries: strategy sweep"
            " is for explicit graphs"
        )


def _explicit(graph: DGraph) -> None:
    if graph.solved:
        raise DGraphError(
            "method symbolic differentiates the outputs' expressions; a linear system's graph"
            " is solved for its unknowns: use an accumulation method"
        )


def symbolic_value_and_jacobian_program(
    graph: DGraph, pipelines: tuple[str, ...] | None = None
) -> Program:
    """:func:`value_and_jacobian_program` of :func:`symbolic_program`: the outputs'
    expressions and sympy's Jacobian of them, sharing subexpressions through ``cse``."""
    _explicit(graph)
    m, n = len(graph.outputs), len(graph.inputs)
    values = graph.values()
    rename = _renaming(graph, graph.inputs)
    results = [((i,), extremes.substituted(values[y], rename)) for i, y in enumerate(graph.outputs)]
    results += [((m + i * n + j,), e) for (i, j), e in sympy_jacobian_results(graph)]
    arguments = program_arguments(graph)
    return build_program("value_and_jacobian", graph, arguments, [], results, SYMBOLIC, pipelines)


def sympy_jacobian_results(graph: DGraph) -> list[Result]:
    """Every Jacobian entry by sympy's ``Matrix.jacobian`` of the outputs' expressions
    (Max and Min with JAX's shares at ties, as the graph's partials)."""
    values = graph.values()
    inputs = program_inputs(graph)
    rename = _renaming(graph, graph.inputs)
    outputs = sympy.Matrix([extremes.substituted(values[y], rename) for y in graph.outputs])
    jacobian = extremes.jacobian(list(outputs), list(inputs))
    return [((i, j), jacobian[i, j]) for i in range(jacobian.rows) for j in range(jacobian.cols)]
