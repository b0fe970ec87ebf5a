"""Which expression set becomes the generated code: the one whose Jacobian program has
the fewest operations among verified candidates (deterministic methods by default,
``best`` with a budget, Bauer's formula and sympy's own ``jacobian`` where they are small).
"""

from __future__ import annotations

import dataclasses
import time

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.paths import naive_cost
from ..elimination.parts import largest_part
from ..errors import DGraphError, SearchTooLarge
from ..methods import accumulate, methods
from .ir import Program, Result
from .passes import PIPELINES, WORK_LIMIT, affordable, build_program
from .program import SYMBOLIC, jacobian_program, program_arguments, sympy_jacobian_results

__all__ = ["DETERMINISTIC", "SYMBOLIC", "cheapest_jacobian"]


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
                symbolic_results.extend(sympy_jacobian_results(graph))
            arguments = program_arguments(graph)
            return build_program(
                "jacobian", graph, arguments, [], symbolic_results, SYMBOLIC, pipelines
            )
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
        pipelines = affordable(size, work)[1:]
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
