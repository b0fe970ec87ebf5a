"""Straight-line programs from an expression set: what the generated code computes.

The Jacobian program evaluates, in one straight line, the primal values the local partials
need, the local partials c_vu = d phi_v / d u, the expression set's references and its
Jacobian entries (Zhou's expression sets, seed 001; Griewank–Walther's tangent and
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

import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import count
from typing import Literal

import sympy

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph, vertex_symbol
from ..core.paths import naive_cost
from ..elimination.parts import largest_part
from ..errors import DGraphError, SearchTooLarge
from ..methods import accumulate, methods
from .counting import Ops, count_ops, fold_constants

__all__ = [
    "SYMBOLIC",
    "Program",
    "cheapest_jacobian",
    "jacobian_program",
    "jvp_program",
    "primal_program",
    "symbolic_program",
    "vjp_program",
]

Assignment = tuple[sympy.Symbol, sympy.Expr]
Result = tuple[tuple[int, ...], sympy.Expr]
Strategy = Literal["auto", "jacobian", "sweep"]


@dataclass(frozen=True)
class Program:
    """A straight-line program: named arguments (each a vector of scalar symbols),
    assignments in evaluation order, and results ``index -> value`` of an array of shape
    ``shape`` per point (entries not listed are zero)."""

    name: str
    arguments: tuple[tuple[str, tuple[sympy.Symbol, ...]], ...]
    assignments: tuple[Assignment, ...]
    results: tuple[Result, ...]
    shape: tuple[int, ...]
    method: str = ""

    @cached_property
    def ops(self) -> Ops:
        """Operations of the whole program (:func:`dgraph.codegen.counting.count_ops`)."""
        return count_ops([e for _, e in self.assignments] + [e for _, e in self.results])

    @property
    def mults(self) -> int:
        return self.ops.mults

    @property
    def adds(self) -> int:
        return self.ops.adds

    def to_text(self) -> str:
        """The program as readable lines, results as ``name[i, j] = ...``."""
        lines = [f"{s} = {sympy.sstr(e)}" for s, e in self.assignments]
        lines += [
            f"{self.name}[{', '.join(map(str, k))}] = {sympy.sstr(e)}" for k, e in self.results
        ]
        return "\n".join(lines)


# -- symbols ------------------------------------------------------------------------------


def value_symbol(v: str) -> sympy.Symbol:
    """The program variable holding vertex ``v``'s value: real, like the vertex symbols, so
    that sympy differentiates ``Abs`` and ``Max`` over it as real functions."""
    return sympy.Symbol(f"v_{v}", real=True)


def label_symbol(u: str, v: str) -> sympy.Symbol:
    """The program variable holding the local partial on edge ``u -> v`` (commutative)."""
    return sympy.Symbol(f"d_{v}_{u}")


def _inputs(graph: DGraph) -> tuple[sympy.Symbol, ...]:
    return tuple(value_symbol(x) for x in graph.inputs)


def _values(graph: DGraph) -> list[Assignment]:
    """Every non-input vertex's elemental function over its predecessors' variables."""
    out = []
    for v in graph.order():
        expr = graph.expr(v)
        if graph.role(v) != "input" and expr is not None:
            rename = {vertex_symbol(u): value_symbol(u) for u in graph.predecessors(v)}
            out.append((value_symbol(v), expr.xreplace(rename)))
    return out


def _labels(graph: DGraph) -> tuple[dict[sympy.Symbol, sympy.Expr], list[Assignment]]:
    """Each edge symbol's scalar stand-in (a number, or a variable) and the definitions of
    the variable ones, rewritten over the target's own value where that is cheaper
    (d exp(u)/du = v, d sqrt(u)/du = 1/(2 v))."""
    values = dict(_values(graph))
    labels: dict[sympy.Symbol, sympy.Expr] = {}
    definitions: list[Assignment] = []
    for u, v in graph.edges():
        partial = graph.partial(u, v)
        if partial is None:
            raise DGraphError(
                f"edge {u} -> {v} has no local partial; code generation needs vertex"
                " expressions or edge labels"
            )
        rename = {vertex_symbol(w): value_symbol(w) for w in graph.predecessors(v)}
        partial = fold_constants(partial.xreplace(rename))
        if partial.is_Number:
            labels[graph.symbol(u, v)] = partial
            continue
        target = value_symbol(v)
        if target in values:
            partial = _in_terms_of(partial, values[target], target)
        labels[graph.symbol(u, v)] = label_symbol(u, v)
        definitions.append((label_symbol(u, v), partial))
    return labels, definitions


def _in_terms_of(expr: sympy.Expr, value: sympy.Expr, name: sympy.Symbol) -> sympy.Expr:
    """``expr`` rewritten with ``value`` replaced by ``name`` when cheaper and exact
    (no fractional power of ``name`` appears)."""
    candidate = expr.subs(value, name)
    fractional = any(p.base == name and not p.exp.is_Integer for p in candidate.atoms(sympy.Pow))
    if fractional or count_ops([candidate]).key() >= count_ops([expr]).key():
        return expr
    return candidate


def _scalar(es: ExpressionSet) -> tuple[list[Assignment], dict[tuple[str, str], sympy.Expr]]:
    """Values, partials and references as commutative assignments, and the entries."""
    labels, partials = _labels(es.graph)
    mapping = dict(labels)
    mapping.update({r: sympy.Symbol(str(r)) for r in es.references})
    named = _values(es.graph) + partials
    named += [(mapping[r], d.xreplace(mapping)) for r, d in es.references.items()]
    entries = {k: e.xreplace(mapping) for k, e in es.jacobian.items()}
    return named, entries


# -- the programs ------------------------------------------------------------------------


def jacobian_program(es: ExpressionSet, pipelines: tuple[str, ...] | None = None) -> Program:
    """The program computing the Jacobian entries of ``es`` from the inputs (Zhou's
    expression set, seed 001, evaluated with scalar labels).

    >>> from dgraph.core.builders import bundled
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
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: j for j, x in enumerate(graph.inputs)}
    results = [((rows[y], cols[x]), e) for (y, x), e in entries.items()]
    arguments = [("x", _inputs(graph))]
    return _program("jacobian", graph, arguments, named, results, es.method, pipelines)


def primal_program(graph: DGraph) -> Program:
    """The program computing the outputs from the inputs (the graph's own trace)."""
    results = [((i,), value_symbol(y)) for i, y in enumerate(graph.outputs)]
    return _program("primal", graph, [("x", _inputs(graph))], _values(graph), results)


def jvp_program(es: ExpressionSet, strategy: Strategy = "auto") -> Program:
    """J·v: the Jacobian entries times v (``jacobian``), or one tangent sweep over the
    local partials, dv_w = sum c_wu dv_u in evaluation order (``sweep``); ``auto``
    keeps the program with fewer operations."""
    graph = es.graph
    directions = tuple(sympy.Symbol(f"dot_{x}") for x in graph.inputs)
    arguments = [("x", _inputs(graph)), ("v", directions)]
    candidates = []
    if strategy in ("auto", "jacobian"):
        named, entries = _scalar(es)
        cols = {x: d for x, d in zip(graph.inputs, directions, strict=True)}
        results = [
            ((i,), sympy.Add(*(e * cols[x] for (y2, x), e in entries.items() if y2 == y)))
            for i, y in enumerate(graph.outputs)
        ]
        candidates.append(_program("jvp", graph, arguments, named, results, es.method))
    if strategy in ("auto", "sweep"):
        labels, partials = _labels(graph)
        tangent = {x: d for x, d in zip(graph.inputs, directions, strict=True)}
        named = _values(graph) + partials
        for w in graph.order():
            if graph.role(w) != "input":
                tangent[w] = sympy.Symbol(f"dot_{w}")
                terms = [labels[graph.symbol(u, w)] * tangent[u] for u in graph.predecessors(w)]
                named.append((tangent[w], sympy.Add(*terms)))
        results = [((i,), tangent[y]) for i, y in enumerate(graph.outputs)]
        candidates.append(_program("jvp", graph, arguments, named, results, "tangent"))
    if not candidates:
        raise DGraphError(f"unknown strategy {strategy!r}: use auto, jacobian or sweep")
    return min(candidates, key=lambda p: p.ops.key())


def vjp_program(es: ExpressionSet, strategy: Strategy = "auto") -> Program:
    """wᵀ·J: w times the Jacobian entries (``jacobian``), or one adjoint sweep,
    bar_u = sum c_vu bar_v in reverse order (``sweep``); ``auto`` keeps the cheaper."""
    graph = es.graph
    weights = tuple(sympy.Symbol(f"bar_{y}") for y in graph.outputs)
    arguments = [("x", _inputs(graph)), ("w", weights)]
    candidates = []
    if strategy in ("auto", "jacobian"):
        named, entries = _scalar(es)
        rows = {y: w for y, w in zip(graph.outputs, weights, strict=True)}
        results = [
            ((j,), sympy.Add(*(rows[y] * e for (y, x2), e in entries.items() if x2 == x)))
            for j, x in enumerate(graph.inputs)
        ]
        candidates.append(_program("vjp", graph, arguments, named, results, es.method))
    if strategy in ("auto", "sweep"):
        labels, partials = _labels(graph)
        adjoint = {y: w for y, w in zip(graph.outputs, weights, strict=True)}
        sweep: list[Assignment] = []
        for u in reversed(graph.order()):
            if graph.role(u) != "output":
                adjoint[u] = sympy.Symbol(f"bar_{u}")
                terms = [labels[graph.symbol(u, v)] * adjoint[v] for v in graph.successors(u)]
                sweep.append((adjoint[u], sympy.Add(*terms)))
        named = _values(graph) + partials + sweep
        results = [((j,), adjoint[x]) for j, x in enumerate(graph.inputs)]
        candidates.append(_program("vjp", graph, arguments, named, results, "adjoint"))
    if not candidates:
        raise DGraphError(f"unknown strategy {strategy!r}: use auto, jacobian or sweep")
    return min(candidates, key=lambda p: p.ops.key())


SYMBOLIC = "symbolic"  # the program of symbolic_program: not an accumulation method

# The candidates of cheapest_jacobian without a budget, in the order that breaks ties:
# every method whose result depends on the graph alone, never on time or load. The exact
# searches join only where they finish exhaustively without a budget (SearchTooLarge:
# skipped); ``best`` joins only with a budget.
DETERMINISTIC = tuple(methods(compared=True, deterministic=True))

# Bauer's formula itself (method ``paths``) joins the candidates while it lists at most
# this many multiplications: after cse, listing every path sometimes shares more than a
# factorization does (a PUMA arm: 78 multiplications against 96), and costs little here.
PATHS_LIMIT = 5000
# symbolic_program joins while L - N is at most this: sympy's jacobian of whole
# expressions grows fast (the Roe flux, L - N = 4854: 5 s before any pass, and a worse
# program than zhou's)
SYMBOLIC_LIMIT = 1000
# the candidates that get the other pass orders, after the first ranked every candidate
SHORTLIST = 2
# ``paths`` joins them, first, while its first program has at most this many times the
# fewest multiplications: listing every path leaves the most for the later passes to share
# (three-body gravity: 90 multiplications after the first pass order, 33 after all,
# against 54 for every elimination; Lennard-Jones 276 of 186, then 133 of 150; the Roe
# flux 787 of 234, where its passes would cost seconds for nothing)
PATHS_BEHIND = 2
# vertex-optimal joins while every independent part has at most this many intermediates
# (below its own limit of 18: there its exhaustive search takes seconds to tens of seconds)
EXACT_PART_LIMIT = 14


def cheapest_jacobian(
    graph: DGraph, methods: list[str] | None = None, budget: float | None = None
) -> tuple[Program, ExpressionSet]:
    """The Jacobian program with the fewest operations over verified candidate expression
    sets, and its expression set.

    Candidates (default): :data:`DETERMINISTIC` (vertex-optimal while
    :data:`EXACT_PART_LIMIT` allows), ``paths`` while the graph's L - N is at most
    :data:`PATHS_LIMIT`, :func:`symbolic_program` (paired with the ``paths`` set)
    while it is at most :data:`SYMBOLIC_LIMIT`, and ``best`` only when ``budget`` is given:
    it gets what is left of ``budget`` once the others are built, so ``budget`` bounds the
    whole choice. Without a budget the choice depends on the graph alone.

    Every distinct candidate gets one inlining and one ``cse`` (the first pass order);
    the :data:`SHORTLIST` cheapest distinct programs and ``paths`` then get the other pass
    orders, as many as :data:`WORK_LIMIT` affords at their size. Ties break by the
    candidates' order.
    """
    started = time.perf_counter()
    if methods is None:
        small = largest_part(graph) <= EXACT_PART_LIMIT
        methods = [m for m in DETERMINISTIC if m != "vertex-optimal" or small]
        methods += ["paths"] if naive_cost(graph) <= PATHS_LIMIT else []
        methods += ["best"] if budget is not None else []
    symbolic = "paths" in methods and naive_cost(graph) <= SYMBOLIC_LIMIT
    sets: list[ExpressionSet] = []
    for name in (m for m in methods if m != "best"):
        try:  # verified below, once it is chosen: verifying every candidate costs most
            sets.append(accumulate(graph, name, verify=False))
        except SearchTooLarge:
            continue
    if "best" in methods:  # best takes verified candidates
        sets = [es for es in sets if _verified(es)]
    chosen = _cheapest(graph, sets, symbolic)
    while chosen is not None and not _verified(chosen[1]):
        sets = [es for es in sets if _identity(es) != _identity(chosen[1])]
        chosen = _cheapest(graph, sets, symbolic)
    if "best" in methods:
        left = 0.0 if budget is None else max(budget - (time.perf_counter() - started), 0.0)
        es = accumulate(graph, "best", budget=left, candidates=sets)
        if es.verified:
            chosen = _cheapest(graph, [es], symbolic=False, known=chosen)
    if chosen is None:
        raise DGraphError("no candidate method gave a verified expression set")
    return chosen


def _is_paths(method: str, program: Program, fewest: int) -> bool:
    """Whether ``program`` is the ``paths`` candidate and within :data:`PATHS_BEHIND` of
    the fewest multiplications after the first pass order."""
    return method == "paths" and program.mults <= PATHS_BEHIND * fewest


def _identity(es: ExpressionSet) -> tuple:
    """What makes two expression sets the same program: their references and entries."""
    return tuple(es.references.items()), tuple(es.jacobian.items())


def _verified(es: ExpressionSet) -> bool:
    """``es`` checked against Bauer's formula (:meth:`ExpressionSet.verify`), once."""
    return es.verified or bool(es.verify())


def _cheapest(
    graph: DGraph,
    sets: list[ExpressionSet],
    symbolic: bool,
    known: tuple[Program, ExpressionSet] | None = None,
) -> tuple[Program, ExpressionSet] | None:
    """The cheapest program over ``sets`` (and the symbolic one, paired with ``paths``),
    or ``known`` when it is no more expensive: the first pass order for every distinct
    candidate, the others for the shortlist."""
    candidates: list[tuple[str, ExpressionSet]] = []
    for es in sets:
        candidates.append((es.method, es))
        if symbolic and es.method == "paths":
            candidates.append((SYMBOLIC, es))
    if not candidates:
        return known

    symbolic_results: list[Result] = []  # sympy's jacobian, computed once

    def build(method: str, es: ExpressionSet, pipelines: tuple[str, ...]) -> Program:
        if method == SYMBOLIC:
            if not symbolic_results:
                symbolic_results.extend(_symbolic_results(graph))
            arguments = [("x", _inputs(graph))]
            return _program("jacobian", graph, arguments, [], symbolic_results, SYMBOLIC, pipelines)
        return dataclasses.replace(jacobian_program(es, pipelines), method=method)

    built: dict[object, Program] = {}  # methods often agree: build each distinct set once
    programs: list[Program] = []
    for method, es in candidates:
        key = SYMBOLIC if method == SYMBOLIC else _identity(es)
        if key not in built:
            built[key] = build(method, es, PIPELINES[:1])
        programs.append(dataclasses.replace(built[key], method=method))
    ranked = sorted(range(len(programs)), key=lambda k: programs[k].ops.key())  # stable
    fewest = programs[ranked[0]].mults
    ranked = [  # paths first while it is not far behind, then the ranking
        *(k for k in ranked if _is_paths(candidates[k][0], programs[k], fewest)),
        *(k for k in ranked if candidates[k][0] != "paths"),
    ]
    work, shortlisted, others = WORK_LIMIT, set(), 0
    for k in ranked:
        same = (programs[k].assignments, programs[k].results)
        if same in shortlisted:  # the same program: the same passes, the same result
            continue
        shortlisted.add(same)
        if candidates[k][0] != "paths":
            others += 1
            if others > SHORTLIST:
                break
        size = programs[k].ops.total
        pipelines = _affordable(size, work)[1:]
        if not pipelines:
            continue
        work -= size * sum(map(len, pipelines))
        better = build(*candidates[k], pipelines)
        if better.ops.key() < programs[k].ops.key():
            programs[k] = better
    k = min(range(len(programs)), key=lambda k: programs[k].ops.key())  # the first of equals
    if known is not None and known[0].ops.key() <= programs[k].ops.key():
        return known
    return programs[k], candidates[k][1]


def symbolic_program(graph: DGraph, pipelines: tuple[str, ...] | None = None) -> Program:
    """Bauer's formula with sympy's algebra: the Jacobian of the outputs differentiated as
    whole expressions (equal factors on a path become powers, like terms combine), then
    the same passes as every program. A candidate of :func:`cheapest_jacobian` beside
    method ``paths``, whose entries it computes.

    >>> from dgraph.core.builders import bundled
    >>> print(symbolic_program(bundled("naumann_sin.trace")).to_text())
    s1 = sin(v_x1)
    jacobian[0, 0] = s1**2
    jacobian[0, 1] = 2*s1*v_x0*cos(v_x1)
    """
    results = _symbolic_results(graph)
    return _program("jacobian", graph, [("x", _inputs(graph))], [], results, SYMBOLIC, pipelines)


def _symbolic_results(graph: DGraph) -> list[Result]:
    """Every Jacobian entry by sympy's ``Matrix.jacobian`` of the outputs' expressions."""
    values = graph.values()
    inputs = _inputs(graph)
    rename = {vertex_symbol(x): s for x, s in zip(graph.inputs, inputs, strict=True)}
    outputs = sympy.Matrix([values[y].xreplace(rename) for y in graph.outputs])
    jacobian = outputs.jacobian(list(inputs))
    return [((i, j), jacobian[i, j]) for i in range(jacobian.rows) for j in range(jacobian.cols)]


# -- from assignments to a straight line ------------------------------------------------------


def _program(
    name: str,
    graph: DGraph,
    arguments: list[tuple[str, tuple[sympy.Symbol, ...]]],
    named: list[Assignment],
    results: list[Result],
    method: str = "",
    pipelines: tuple[str, ...] | None = None,
) -> Program:
    given = {s for _, symbols in arguments for s in symbols}
    assignments, results = _straight_line(named, results, given, pipelines)
    defined = given | {s for s, _ in assignments}
    for _, e in [*assignments, *results]:
        _check_defined(e, defined, graph)
    results = [(k, e) for k, e in results if e != 0]
    shape = {
        "jacobian": (len(graph.outputs), len(graph.inputs)),
        "primal": (len(graph.outputs),),
        "jvp": (len(graph.outputs),),
        "vjp": (len(graph.inputs),),
    }[name]
    return Program(
        name,
        tuple((a, tuple(s)) for a, s in arguments),
        tuple(assignments),
        tuple(results),
        shape,
        method,
    )


def _check_defined(expr: sympy.Expr, defined: set[sympy.Symbol], graph: DGraph) -> None:
    missing = expr.free_symbols - defined
    if missing:
        name = str(sorted(missing, key=str)[0])
        vertex = name[2:] if name.startswith("v_") else name
        if vertex in graph:
            raise DGraphError(f"vertex {vertex!r} has no expression; its value is needed")
        raise DGraphError(f"the generated program uses {name!r} before defining it")


# Pass orders tried, the cheapest program (after any pass) wins: i = inline single uses,
# c = cse, f = float constant factors into uses, k = factor sums, p = share powers. No
# single order is best on every function (measured on the benchmark suite and
# benchmarks/codegen_functions.py); the first three give the best program of all six on
# every one of those 21 functions, so they come first.
PIPELINES = ("ic", "fcikcfcikci", "cickci", "cpcickci", "fcpcikci", "fcfcickci")
# Passes times operations of the programs that the passes may spend: all of PIPELINES (44
# passes) up to about 340 operations, fewer beyond (each pass costs about its size, cse
# more: some 0.1 ms per operation). A count, never a time: the same graph gets the same
# passes on any machine.
WORK_LIMIT = 15_000


def _affordable(size: int, work: int = WORK_LIMIT) -> tuple[str, ...]:
    """The leading pass orders of :data:`PIPELINES` whose passes over a program of ``size``
    operations fit in ``work`` (always the first)."""
    chosen: list[str] = []
    for pipeline in PIPELINES:
        work -= len(pipeline) * max(size, 1)
        if chosen and work < 0:
            break
        chosen.append(pipeline)
    return tuple(chosen)


def _straight_line(
    named: list[Assignment],
    results: list[Result],
    given: set[sympy.Symbol],
    pipelines: tuple[str, ...] | None = None,
) -> tuple[list[Assignment], list[Result]]:
    """Propagate and drop the dead, then run each pass order of ``pipelines`` (default:
    those :func:`_affordable` at the program's size) and keep the cheapest program seen
    after any pass."""
    named, results = _propagate(named, results)
    named = _live(named, results)
    if pipelines is None:
        pipelines = _affordable(_ops(named, results).total)
    passes = {
        "i": _inline_single_use,
        "c": lambda n, r: _cse(n, r, given),
        "f": _float_scales,
        "k": lambda n, r: _collect(n, r, given),
        "p": lambda n, r: _powers(n, r, given),
    }
    best = (_cost(named, results), named, results)
    for pipeline in pipelines:
        current = (named, results)
        for step in pipeline:
            current = _propagate(*passes[step](*current))
            current = (_live(*current), current[1])
            cost = _cost(*current)
            if cost < best[0]:
                best = (cost, *current)
    return best[1], best[2]


def _ops(named: list[Assignment], results: list[Result]) -> Ops:
    return count_ops([e for _, e in named] + [e for _, e in results])


def _cost(named: list[Assignment], results: list[Result]) -> tuple[int, int, int]:
    return _ops(named, results).key()


def _propagate(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Fold constants; substitute assignments that are a plain symbol or number."""
    known: dict[sympy.Symbol, sympy.Expr] = {}
    kept = []
    for s, e in named:
        e = fold_constants(e.xreplace(known))
        if e.is_Atom:
            known[s] = e
        else:
            kept.append((s, e))
    return kept, [(k, fold_constants(e.xreplace(known))) for k, e in results]


def _float_scales(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Move constant factors from definitions into their uses: ``s = c*E`` becomes
    ``s = E`` and every use of ``s`` reads ``c*s``, so constants meet and fold."""
    scaled: dict[sympy.Symbol, sympy.Expr] = {}
    kept = []
    for s, e in named:
        e = e.xreplace(scaled)
        c, rest = e.as_coeff_Mul()
        if c == 1:
            kept.append((s, e))
        elif rest.is_Atom:
            scaled[s] = e
        else:
            kept.append((s, rest))
            scaled[s] = c * s
    return kept, [(k, e.xreplace(scaled)) for k, e in results]


def _collect(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """Factor sums: a factor shared by several terms is multiplied once
    (``a*b + a*c -> a*(b + c)``), greedily, the factor saving most first."""
    taken = set(given) | {s for s, _ in named}
    for _, e in [*named, *results]:
        taken |= e.free_symbols
    temps = _fresh("f", taken)
    out: list[Assignment] = []

    def factor(e: sympy.Expr) -> sympy.Expr:
        if not e.is_Add:
            return e
        terms = [t.as_coeff_mul() for t in e.args]
        seen: Counter = Counter()
        for c, fs in terms:  # in the terms' own order: ties break the same way every run
            seen.update(list(dict.fromkeys([*fs, *([abs(c)] if c not in (1, -1) else [])])))
        best, saving = None, 0
        for f, k in seen.items():
            if k < 2:
                continue
            gain = -1 + sum(
                1
                for c, fs in terms
                if (f in fs or abs(c) == f) and len(fs) + (c not in (1, -1)) > 1
            )
            if gain > saving:
                best, saving = f, gain
        if best is None:
            return e
        inner, rest = [], []
        for t, (c, fs) in zip(e.args, terms, strict=True):
            if best.is_Number and abs(c) == best:
                inner.append(sympy.Mul(1 if c > 0 else -1, *fs))
            elif best in fs:
                remaining = list(fs)
                remaining.remove(best)
                inner.append(sympy.Mul(c, *remaining))
            else:
                rest.append(t)
        t = next(temps)
        out.append((t, factor(sympy.Add(*inner))))
        return factor(sympy.Add(*rest, best * t))

    for s, e in named:
        e = factor(e)
        out.append((s, e))
    results = [(k, factor(e)) for k, e in results]
    return out, results


def _powers(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """Share integer powers of one base: negative ones go through one reciprocal
    (``x**-2``, ``x**-1`` -> ``r = 1/x``, ``r*r``, ``r``), and each power is one product of
    two powers already computed (``x**2``, ``x**3 = x**2*x``). sympy's ``cse`` sees
    ``x**2`` and ``x**3`` as unrelated."""
    taken = set(given) | {s for s, _ in named}
    for _, e in [*named, *results]:
        taken |= e.free_symbols
    temps = _fresh("p", taken)
    exponents: dict[sympy.Expr, set[int]] = {}
    for _, e in [*named, *results]:
        for a in sympy.preorder_traversal(e):
            if a.is_Pow and a.exp.is_Integer and a.exp not in (0, 1):
                exponents.setdefault(a.base, set()).add(int(a.exp))
    out: list[Assignment] = []
    replace: dict[sympy.Expr, sympy.Expr] = {}
    for base, ks in exponents.items():
        negative = sorted(-k for k in ks if k < 0)
        positive = sorted(k for k in ks if k > 0)
        for sign, wanted in ((1, positive), (-1, negative)):
            if not wanted or (sign == -1 and wanted == [1]):
                continue  # a lone 1/x stays a division where it is used
            root = base
            if sign == -1:
                root = next(temps)
                out.append((root, 1 / base))
            power = {1: root}
            for k in wanted:
                _power_chain(power, k, out, temps)
                replace[sympy.Pow(base, sign * k)] = power[k]
    if not replace:
        return named, results
    # each power right after the last value it reads
    defined, pending, ordered = set(given), list(out), []

    def release() -> None:
        ready = next((a for a in pending if a[1].free_symbols <= defined), None)
        while ready is not None:
            pending.remove(ready)
            ordered.append(ready)
            defined.add(ready[0])
            ready = next((a for a in pending if a[1].free_symbols <= defined), None)

    release()
    for s, e in named:
        ordered.append((s, e.xreplace(replace)))
        defined.add(s)
        release()
    return ordered + pending, [(k, e.xreplace(replace)) for k, e in results]


def _power_chain(power: dict[int, sympy.Expr], k: int, out: list[Assignment], temps) -> None:
    """Make ``power[k]`` one product of two known powers, adding the missing halves."""
    if k in power:
        return
    j = max((j for j in power if k - j in power), default=None)
    if j is None:
        j = k // 2
        _power_chain(power, j, out, temps)
        _power_chain(power, k - j, out, temps)
    symbol = next(temps)
    out.append((symbol, power[j] * power[k - j]))
    power[k] = symbol


def _live(named: list[Assignment], results: list[Result]) -> list[Assignment]:
    """The assignments the results depend on, in order."""
    needed = set().union(*(e.free_symbols for _, e in results)) if results else set()
    kept = []
    for s, e in reversed(named):
        if s in needed:
            kept.append((s, e))
            needed |= e.free_symbols
    return kept[::-1]


def _occurrences(expr: sympy.Expr) -> Counter[sympy.Symbol]:
    return Counter(a for a in sympy.preorder_traversal(expr) if a.is_Symbol)


def _inline_single_use(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Substitute each assignment used exactly once into its use when the use does not
    get more expensive than the two together (constant factors then fold)."""
    exprs: dict[object, sympy.Expr] = {s: e for s, e in named}
    exprs.update({("result", i): e for i, (_, e) in enumerate(results)})
    uses: Counter[sympy.Symbol] = Counter()
    user: dict[sympy.Symbol, object] = {}
    for key, e in exprs.items():
        for s, k in _occurrences(e).items():
            uses[s] += k
            user[s] = key
    for s, _ in named:
        if uses[s] != 1:
            continue
        key = user[s]
        before, definition = exprs[key], exprs[s]
        after = before.xreplace({s: definition})
        if count_ops([after]).key() <= (count_ops([before]) + count_ops([definition])).key():
            exprs[key] = after
            del exprs[s]
            for t in definition.free_symbols:
                user[t] = key
    kept = [(s, exprs[s]) for s, _ in named if s in exprs]
    return kept, [(k, exprs["result", i]) for i, (k, _) in enumerate(results)]


def _cse(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """One ``sympy.cse`` over every assignment and result; shared subexpressions become
    new assignments, placed before their first use."""
    exprs = [e for _, e in named] + [e for _, e in results]
    taken = set(given) | {s for s, _ in named}
    for e in exprs:
        taken |= e.free_symbols
    replacements, reduced = sympy.cse(exprs, symbols=_fresh("s", taken))
    replacements, reduced = _inline_conditions(replacements, reduced)
    definitions = dict(replacements)
    definitions.update((s, e) for (s, _), e in zip(named, reduced, strict=False))
    ordered: list[Assignment] = []
    done = set(given)

    def emit(root: sympy.Symbol) -> None:
        stack = [(root, False)]  # iterative: recurrences nest deeper than Python's stack
        while stack:
            s, expanded = stack.pop()
            if s in done or s not in definitions:
                continue
            if expanded:
                done.add(s)
                ordered.append((s, definitions[s]))
                continue
            stack.append((s, True))
            stack.extend((t, False) for t in _sorted(definitions[s].free_symbols) if t not in done)

    for s, _ in named:
        emit(s)
    results = [(k, e) for (k, _), e in zip(results, reduced[len(named) :], strict=True)]
    for _, e in results:
        for t in _sorted(e.free_symbols):
            emit(t)
    return ordered, results


def _inline_conditions(
    replacements: list[Assignment], reduced: list[sympy.Expr]
) -> tuple[list[Assignment], list[sympy.Expr]]:
    """Put conditions ``cse`` named (``s1 = x > 0``) back into the ``Piecewise`` that use
    them: every program variable holds a number."""
    conditions = {}
    kept = []
    for s, e in replacements:
        e = e.xreplace(conditions) if conditions else e
        if isinstance(e, sympy.Expr):
            kept.append((s, e))
        else:
            conditions[s] = e
    if not conditions:
        return replacements, reduced
    return kept, [e.xreplace(conditions) for e in reduced]


def _fresh(prefix: str, taken: Iterable[sympy.Symbol]) -> Iterator[sympy.Symbol]:
    """``<prefix>1``, ``<prefix>2``, ... skipping every name taken (whatever a taken
    symbol's assumptions: the printed code knows only names)."""
    names = {str(t) for t in taken}
    return (sympy.Symbol(f"{prefix}{k}") for k in count(1) if f"{prefix}{k}" not in names)


def _sorted(symbols: Iterable[sympy.Symbol]) -> list[sympy.Symbol]:
    return sorted(symbols, key=str, reverse=True)
