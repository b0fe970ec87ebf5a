"""Which expression set becomes the generated code: the one whose Jacobian program has
the fewest operations among verified candidates (deterministic methods by default,
``best`` with a budget, Bauer's formula and sympy's own ``jacobian`` where they are small).

Without a budget only candidates whose cost is known cheaply are built: the expression
sets ranked by their own counts before ``cse`` (:func:`~dgraph.codegen.program.jacobian_estimate`),
the few cheapest of them, and ``paths`` and ``symbolic`` only while the graph is small;
a budget (seconds in all) builds every candidate's program and adds ``best``.
:func:`select_jacobian` also says, per candidate, what it counted and why it lost
(``dgraph compare`` prints it).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import sympy

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph, vertex_symbol
from ..core.paths import depth_levels, naive_cost
from ..elimination.parts import largest_part
from ..errors import DGraphError, SearchTooLarge
from ..methods import accumulate, methods
from ..methods.compare import Comparison
from .counting import Ops
from .ir import Program, Result
from .passes import PIPELINES, SOLVED_PIPELINES, WORK_LIMIT, affordable, build_program
from .program import (
    SYMBOLIC,
    edge_labels,
    jacobian_estimate,
    jacobian_program,
    program_arguments,
    sympy_jacobian_results,
)

__all__ = [
    "DETERMINISTIC",
    "EXACT_EXPANSIONS",
    "SYMBOLIC",
    "Candidate",
    "Selection",
    "candidate_methods",
    "cheapest_jacobian",
    "choice_seconds",
    "codegen_choice",
    "select_jacobian",
]


# the fraction of a codegen budget that is best's work budget; the rest is for building
# the candidates' programs (counted by no budget)
BEST_FRACTION = 0.5
# The candidates of cheapest_jacobian without a budget, in the order that breaks ties:
# every method whose result depends on the graph alone, never on time or load. The exact
# searches join only where they finish exhaustively without a budget (SearchTooLarge:
# skipped); ``best`` joins only with a budget.
DETERMINISTIC = tuple(methods(compared=True, deterministic=True))

# Bauer's formula itself (method ``paths``) joins the candidates while it lists at most
# this many multiplications: after cse, listing every path sometimes shares more than a
# factorization does (a PUMA arm: 78 multiplications against 96), and costs little here.
# Without a budget the smaller limit: building its program is the most expensive of all
# (the Roe flux, L - N = 4854: a second, for 787 multiplications against zhou's 234),
# and it wins where it is small (three-body gravity 684, Lennard-Jones 1368)
PATHS_LIMIT = 5000
PATHS_QUICK_LIMIT = 2000
# symbolic_program joins while L - N is at most this: sympy's jacobian of whole
# expressions grows fast (the Roe flux, L - N = 4854: 5 s before any pass, and a worse
# program than zhou's)
SYMBOLIC_LIMIT = 1000
# ... and while the graph has at most this many depth levels: it differentiates whole
# expressions, which nest as deep as the graph (sympy recurses on that depth; a 500-step
# time loop ends in RecursionError); the measured real-world graphs have 10 to 30
SYMBOLIC_DEPTH_LIMIT = 40
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
# The exact searches among the candidates run without a budget, so each is held to a
# count of expanded states (never the clock: the same graph refuses on every machine) and
# skipped beyond it (SearchTooLarge). vertex-optimal: twice the 2^EXACT_PART_LIMIT sets of
# the largest part it joins on (it never binds there: random 14-intermediate DAGs need
# at most 6,000). edge-optimal: a metagraph state costs several vertex sets, and the
# candidates' graphs need at most a few hundred; Graphax's Lighthouse (15 edges) needs
# about 170,000, seconds of search for a program no cheaper
EXACT_EXPANSIONS: Mapping[str, int] = MappingProxyType(
    {"vertex-optimal": 2 << EXACT_PART_LIMIT, "edge-optimal": 2_000}
)
# zhou and dstar join without a budget while every independent part has at most this
# many intermediates: they grow fastest (n-link pendulums, zhou: 0.8 s at 74, 2.5 s at
# 136, 22 s at 325; dstar 1 s at 136), and where they are large forward gave the same or
# a cheaper program (the 4- and 6-link pendulums)
SLOW_PART_LIMIT = 100
SLOW = ("zhou", "dstar")
# layers joins without a budget while the graph has at most this many depth levels: its
# bracketing search is the matrix-chain dynamic program, cubic in the levels (a chain of
# sin: 1.5 s at 100 levels, 11 s at 200; a 500-step time loop would take minutes); the
# measured real-world graphs have 10 to 30 (pendulums, the Roe flux 16)
LAYERS_DEPTH_LIMIT = 100
# umbrella joins without a budget while every independent part has at most this many
# intermediates: its dominator subtrees are quadratic in them (a chain of sin: 3.9 s at
# 3,000, 8.3 s at 5,000, the most of the choice); the measured real-world graphs have at
# most 325 (the 6-link pendulum; the Roe flux 71)
UMBRELLA_PART_LIMIT = 2000
# Without a budget, the distinct candidates with the fewest estimated operations that get
# a program (beside paths and symbolic, which the estimate ranks too high): the estimate
# before cse ranks the program after it closely (the Roe flux: zhou first of both; the
# pendulums: forward first of both); only the first ESTIMATED_LARGE once the cheapest
# estimate exceeds LARGE operations (there each program costs a second or more)
ESTIMATED = 3
# a linear system's candidates cost more each (its one pass order is the longest)
ESTIMATED_SOLVED = 2
ESTIMATED_LARGE = 2
LARGE = 400
# What :func:`codegen_choice` takes on an idle machine, predicted from the graph alone
# (:func:`choice_seconds`): this many seconds, and this many an edge (the labels and the
# values once, a program through the first pass order). Measured after ``compare --budget
# 5`` at load 1.2: 1.0, 2.8 and 2.0 s on 2,000- and 5,000-step chains and a 1,000-term
# statement (2,000, 5,000 and 3,999 edges: 0.5 to 0.56 ms an edge)
CHOICE_SECONDS = 0.5
CHOICE_SECONDS_PER_EDGE = 5.5e-4


@dataclass(frozen=True)
class Candidate:
    """One expression set (or ``symbolic``) codegen may ship: its estimate before
    ``cse``, its program's counted operations (None: not built) and why it was not chosen
    (``note``), or that it was (``shipped``)."""

    method: str
    estimate: Ops | None = None
    ops: Ops | None = None
    note: str = ""
    shipped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "estimate": None if self.estimate is None else self.estimate.to_dict(),
            "program": None if self.ops is None else self.ops.to_dict(),
            "note": self.note,
            "shipped": self.shipped,
        }


@dataclass
class Selection:
    """The Jacobian program codegen ships, its expression set, and every candidate."""

    program: Program
    expression_set: ExpressionSet
    candidates: tuple[Candidate, ...]

    @property
    def method(self) -> str:
        """The method named in the generated file's header: ``symbolic`` or the set's."""
        return self.program.method

    def to_dict(self) -> dict[str, Any]:
        return {"shipped": self.method, "candidates": [c.to_dict() for c in self.candidates]}


def candidate_methods(graph: DGraph, budget: float | None = None) -> list[str]:
    """The methods whose expression sets :func:`select_jacobian` considers by default:
    :data:`DETERMINISTIC` (vertex-optimal while :data:`EXACT_PART_LIMIT` allows; zhou and
    dstar, without a budget, while :data:`SLOW_PART_LIMIT` does; layers, without a budget,
    while the graph has at most :data:`LAYERS_DEPTH_LIMIT` depth levels; umbrella, without a
    budget, while :data:`UMBRELLA_PART_LIMIT` allows), ``paths`` while L - N is at most
    :data:`PATHS_QUICK_LIMIT` (:data:`PATHS_LIMIT` with a budget) and, for a linear system's
    graph, only with a budget, ``best`` with a budget."""
    part = largest_part(graph)
    names = [m for m in DETERMINISTIC if m != "vertex-optimal" or part <= EXACT_PART_LIMIT]
    if budget is None:
        names = [m for m in names if m not in SLOW or part <= SLOW_PART_LIMIT]
        if "layers" in names and len(depth_levels(graph)) > LAYERS_DEPTH_LIMIT:
            names.remove("layers")
        if "umbrella" in names and part > UMBRELLA_PART_LIMIT:
            names.remove("umbrella")
    limit = PATHS_QUICK_LIMIT if budget is None else PATHS_LIMIT
    # a linear system's paths program was never the cheapest (2- to 5-link pendulums: 60,
    # 188, 406 against 55, 179, 386) and is the slowest to build: a third of the choice
    quick_system = graph.solved and budget is None
    names += ["paths"] if naive_cost(graph) <= limit and not quick_system else []
    return names + (["best"] if budget is not None else [])


def choice_seconds(graph: DGraph) -> float:
    """The seconds :func:`codegen_choice` is expected to take on ``graph`` on an idle
    machine, counted from its edges (:data:`CHOICE_SECONDS`, :data:`CHOICE_SECONDS_PER_EDGE`):
    what ``dgraph compare`` keeps for it from its ceiling, the same on every machine. A
    tensor graph's choice builds nothing: 0."""
    if graph.is_tensor:
        return 0.0
    return CHOICE_SECONDS + CHOICE_SECONDS_PER_EDGE * graph.n_edges


def codegen_choice(comparison: Comparison | DGraph) -> tuple[Selection | None, str]:
    """What ``generate(comparison)`` ships — the choice of ``dgraph codegen`` without
    ``--method``, reusing the comparison's verified results — with every candidate's
    program built to show it (``dgraph compare``'s codegen table); or None and why no
    code can be generated (a graph without local partials). A tensor graph's code
    (:mod:`dgraph.codegen.tensor`) has no programs to compare: None, and what it ships.
    Given a scalar graph instead, the same choice, the candidates' sets made here, as
    ``dgraph codegen`` makes them (``dgraph compare`` runs it beside the comparison)."""
    if isinstance(comparison, DGraph):
        graph, sets = comparison, []
    else:
        graph = comparison.graph
        sets = [es for es in comparison.results.values() if es.verified]
    if graph.is_tensor:
        if isinstance(comparison, DGraph):
            raise TypeError("a tensor graph's choice reads a comparison's results")
        three = [
            comparison.results[m]
            for m in ("forward", "reverse", "markowitz")
            if m in comparison.results and comparison.results[m].verified
        ]
        if not three:
            return None, "no verified forward, reverse or markowitz result to ship"
        chosen = min(three, key=lambda es: es.mults)
        return None, (
            f"ships {chosen.method}, the cheapest of forward, reverse and markowitz over"
            f" blocks ({chosen.mults} mults), one statement per block operation"
        )
    try:
        selection = select_jacobian(graph, sets=sets, build_all=True)
    except DGraphError as exc:
        return None, str(exc)
    return selection, ""


def cheapest_jacobian(
    graph: DGraph,
    methods: list[str] | None = None,
    budget: float | None = None,
    *,
    sets: Sequence[ExpressionSet] = (),
    max_expansions: Mapping[str, int] = EXACT_EXPANSIONS,
) -> tuple[Program, ExpressionSet]:
    """The Jacobian program with the fewest operations over verified candidate expression
    sets, and its expression set: :func:`select_jacobian`'s choice."""
    chosen = select_jacobian(graph, methods, budget, sets=sets, max_expansions=max_expansions)
    return chosen.program, chosen.expression_set


def select_jacobian(
    graph: DGraph,
    methods: list[str] | None = None,
    budget: float | None = None,
    *,
    sets: Sequence[ExpressionSet] = (),
    build_all: bool = False,
    max_expansions: Mapping[str, int] = EXACT_EXPANSIONS,
) -> Selection:
    """The Jacobian program codegen ships, with every candidate's counts.

    Candidates (default :func:`candidate_methods`): each method's expression set — taken
    from ``sets`` (already accumulated, e.g. a comparison's results: not recomputed) when
    one of that method is there — and :func:`symbolic_program` (paired with the ``paths``
    set) while L - N is at most :data:`SYMBOLIC_LIMIT`, the depth
    :data:`SYMBOLIC_DEPTH_LIMIT` and every vertex but the inputs has an expression.

    Without ``budget`` the choice costs little: the distinct sets are ranked by
    :func:`~dgraph.codegen.program.jacobian_estimate` and only the :data:`ESTIMATED`
    cheapest (:data:`ESTIMATED_LARGE` beyond :data:`LARGE` operations), ``paths`` and
    ``symbolic`` get a program; with ``budget`` every distinct
    candidate does, and ``best`` joins with :data:`BEST_FRACTION` of ``budget`` as its
    work budget (:mod:`dgraph.search.best`: the same result on every machine), the rest
    left for building the candidates' programs, which no work budget counts. Either way
    the programs built get one inlining and one ``cse`` (the first pass order), and the
    :data:`SHORTLIST` cheapest and ``paths`` the other pass orders that
    :data:`WORK_LIMIT` affords. Ties break by the candidates' order; with or without a
    budget the choice depends on the graph (and the budget) alone, never on the
    machine's speed.
    ``build_all`` also builds (first pass order) the programs the choice did not need, to
    show them; it never changes the choice.

    The candidates are accumulated without a budget; an exact search among them that
    would expand more states than ``max_expansions`` gives its method (default
    :data:`EXACT_EXPANSIONS`; a method not named there: no limit) is skipped, its row
    saying so. ``accumulate(graph, "edge-optimal")`` itself has no such limit.

    The default choice (no ``methods``, ``budget``, ``sets`` or ``build_all``, the default
    limits) depends on the graph alone, so it is made once per graph and kept with it
    (``graph.derived``, cleared when the graph changes): ``generate`` and then
    ``make_function`` of one graph choose once. The process also keeps the last
    :data:`CHOICES_LIMIT` default choices by their graph's content
    (:meth:`~dgraph.core.graph.DGraph.content_key`, compared whole): a graph of the same
    content built again gets the same choice, its expression set over the new graph,
    without running a method again or making its labels (:func:`edge_labels`).
    """
    default = (
        methods is None
        and budget is None
        and not sets
        and not build_all
        and max_expansions is EXACT_EXPANSIONS
    )
    if default and _CHOICE in graph.derived:
        return graph.derived[_CHOICE]  # type: ignore[return-value]
    key = _choice_key(graph) if default and not graph.is_tensor else None
    if key is not None and key in _CHOICES:  # a graph of this content had its labels
        _CHOICES.move_to_end(key)
        selection = _moved(_CHOICES[key], graph)
        graph.derived[_CHOICE] = selection
        return selection
    edge_labels(graph)  # no local partials, no code: said before any method runs
    if methods is None:
        methods = candidate_methods(graph, budget)
    given = {es.method: es for es in sets}
    symbolic = (
        "paths" in methods
        and naive_cost(graph) <= SYMBOLIC_LIMIT
        and not graph.solved
        and len(depth_levels(graph)) <= SYMBOLIC_DEPTH_LIMIT
        and not _conditions_nest(graph)
        and _valued(graph)
    )
    candidates: list[ExpressionSet] = []
    skipped: list[Candidate] = []
    for name in (m for m in methods if m != "best"):
        if name in given:
            candidates.append(given[name].moved_to(graph))
            continue
        limit = {"max_expansions": max_expansions[name]} if name in max_expansions else {}
        try:  # verified below, once it is chosen: verifying every candidate costs most
            candidates.append(accumulate(graph, name, verify=False, **limit))
        except SearchTooLarge as exc:
            skipped.append(Candidate(name, note=f"not run: {exc}"))
    quick = budget is None and "best" not in methods
    if "best" in methods:  # best takes verified candidates
        candidates = [es for es in candidates if _verified(es)]
    few = ESTIMATED_SOLVED if graph.solved else ESTIMATED
    ranking = _Ranking(graph, candidates, symbolic, few if quick else None)
    chosen = ranking.cheapest()
    while chosen is not None and not _verified(chosen[1]):
        ranking.reject(chosen[1])
        chosen = ranking.cheapest()
    if "best" in methods:
        share = 0.0 if budget is None else BEST_FRACTION * budget  # work: never the time left
        es = given.get("best") or accumulate(graph, "best", budget=share, candidates=candidates)
        if es.verified:
            best = _Ranking(graph, [es], symbolic=False, estimated=None)
            challenger = best.cheapest()
            ranking.rows += best.rows
            if challenger is not None and (
                chosen is None or challenger[0].ops.key() < chosen[0].ops.key()
            ):
                chosen = challenger
    if chosen is None:
        raise DGraphError("no candidate method gave a verified expression set")
    if build_all:
        ranking.build_rest()
    selection = Selection(chosen[0], chosen[1], (*_marked(ranking.rows, chosen[0]), *skipped))
    if default:
        graph.derived[_CHOICE] = selection
    if key is not None:
        _CHOICES[key] = selection
        if len(_CHOICES) > CHOICES_LIMIT:
            _CHOICES.popitem(last=False)
    return selection


_CHOICE = "codegen_choice"  # the default choice's entry in graph.derived
# The default choices of this process, by their graph's content and the limits above
# (:func:`_choice_key`): a graph built again (each test of a file reading one function,
# each call of a notebook) is chosen for once; the least recently used dropped beyond
# CHOICES_LIMIT (each holds its graph and expression set). Never written to disk.
_CHOICES: OrderedDict[tuple, Selection] = OrderedDict()
CHOICES_LIMIT = 16


def _choice_key(graph: DGraph) -> tuple:
    """What the default choice depends on: the graph's whole content
    (:meth:`DGraph.content_key`) and this module's limits as they are now (a test may
    change one), compared whole."""
    limits = (DETERMINISTIC, PATHS_QUICK_LIMIT, SYMBOLIC_LIMIT, SYMBOLIC_DEPTH_LIMIT,
              SHORTLIST, PATHS_BEHIND, EXACT_PART_LIMIT, tuple(EXACT_EXPANSIONS.items()),
              SLOW_PART_LIMIT, SLOW, LAYERS_DEPTH_LIMIT, UMBRELLA_PART_LIMIT, ESTIMATED,
              ESTIMATED_SOLVED, ESTIMATED_LARGE, LARGE, PIPELINES, SOLVED_PIPELINES,
              WORK_LIMIT)  # fmt: skip
    return graph.content_key(), limits


def _moved(selection: Selection, graph: DGraph) -> Selection:
    """A kept choice for ``graph``, a graph of the same content: its expression set over
    ``graph``, verified again when the version it was checked at is another."""
    es = selection.expression_set.moved_to(graph)
    if not _verified(es):
        raise DGraphError(f"the kept choice ({es.method}) does not verify on an equal graph")
    return Selection(selection.program, es, selection.candidates)


def _marked(rows: list[Candidate], program: Program) -> list[Candidate]:
    """``rows`` with exactly one marked shipped: the first of ``program``'s method and
    counts (``best``, chosen after the others were ranked, unmarks theirs)."""
    out, seen = [], False
    for c in rows:
        mine = not seen and c.method == program.method and c.ops == program.ops
        if c.shipped and not mine:
            c = dataclasses.replace(c, shipped=False, note="more operations")
        elif mine:
            c = dataclasses.replace(c, shipped=True, note="shipped")
        seen = seen or mine
        out.append(c)
    return out


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


def _valued(graph: DGraph) -> bool:
    """Whether every vertex but the inputs has an expression: what ``symbolic``
    differentiates (a graph of edge labels alone has none; its code comes from them)."""
    return all(graph.expr(v) is not None for v in graph.order() if graph.role(v) != "input")


def _conditions_nest(graph: DGraph) -> bool:
    """Whether a Piecewise's condition reads a value that holds a Piecewise itself (a max
    of maxima, read as XLA's pairwise choices): inlined into whole expressions, sympy folds
    each such condition (``piecewise_fold``, then ``simplify_logic``), 140 of 190 s for
    the 16 outputs of a 2 x 3 max pooling, so :func:`symbolic_program` does not join."""
    holds: dict[str, bool] = {}
    for v in graph.order():
        expr = graph.expr(v)
        below = any(holds[u] for u in graph.predecessors(v))
        if expr is None or not expr.has(sympy.Piecewise):
            holds[v] = below
            continue
        if below:
            read = {
                s for pw in expr.atoms(sympy.Piecewise) for _, c in pw.args for s in c.free_symbols
            }
            if any(holds[u] and vertex_symbol(u) in read for u in graph.predecessors(v)):
                return True
        holds[v] = True
    return False


class _Ranking:
    """The candidates' programs, built as the choice needs them, and their rows."""

    def __init__(
        self, graph: DGraph, sets: list[ExpressionSet], symbolic: bool, estimated: int | None
    ) -> None:
        self.graph = graph
        self.candidates: list[tuple[str, ExpressionSet]] = []
        for es in sets:
            self.candidates.append((es.method, es))
            if symbolic and es.method == "paths":
                self.candidates.append((SYMBOLIC, es))
        self.estimated = estimated
        self.first_order = SOLVED_PIPELINES if graph.solved else PIPELINES[:1]
        self.rejected: set[tuple] = set()
        self.symbolic_results: list[Result] = []  # sympy's jacobian, computed once
        self.first: dict[object, Program] = {}  # first pass order, per distinct set
        self.final: dict[object, Program] = {}  # after the shortlist's pass orders
        self.estimates: dict[object, Ops] = {}
        self.rows: list[Candidate] = []

    def _key(self, method: str, es: ExpressionSet) -> object:
        return SYMBOLIC if method == SYMBOLIC else _identity(es)

    def _build(self, method: str, es: ExpressionSet, pipelines: tuple[str, ...]) -> Program:
        if method == SYMBOLIC:
            if not self.symbolic_results:
                self.symbolic_results.extend(sympy_jacobian_results(self.graph))
            arguments = program_arguments(self.graph)
            return build_program(
                "jacobian", self.graph, arguments, [], self.symbolic_results, SYMBOLIC, pipelines
            )
        return dataclasses.replace(jacobian_program(es, pipelines), method=method)

    def _selected(self) -> list[int]:
        """The candidates that get a program: all, or the :data:`ESTIMATED` distinct ones
        with the fewest estimated operations, ``paths`` and ``symbolic``."""
        alive = [
            k for k, (_, es) in enumerate(self.candidates) if _identity(es) not in self.rejected
        ]
        if self.estimated is None:
            return alive
        for k in alive:
            method, es = self.candidates[k]
            key = self._key(method, es)
            if method not in ("paths", SYMBOLIC) and key not in self.estimates:
                self.estimates[key] = jacobian_estimate(es)
        ranked = sorted(
            (k for k in alive if self.candidates[k][0] not in ("paths", SYMBOLIC)),
            key=lambda k: self.estimates[self._key(*self.candidates[k])].key(),
        )
        few = self.estimated
        if ranked and self.estimates[self._key(*self.candidates[ranked[0]])].total > LARGE:
            few = min(few, ESTIMATED_LARGE)
        distinct: list[object] = []
        for k in ranked:
            key = self._key(*self.candidates[k])
            if key not in distinct and len(distinct) < few:
                distinct.append(key)
        return [
            k
            for k in alive
            if self.candidates[k][0] in ("paths", SYMBOLIC)
            or self._key(*self.candidates[k]) in distinct
        ]

    def cheapest(self) -> tuple[Program, ExpressionSet] | None:
        """The cheapest program over the candidates not rejected: the first pass order
        for every selected distinct candidate, the others for the shortlist."""
        selected = self._selected()
        if not selected:
            return None
        programs: dict[int, Program] = {}
        for k in selected:
            method, es = self.candidates[k]
            key = self._key(method, es)
            if key not in self.first:
                self.first[key] = self._build(method, es, self.first_order)
            programs[k] = dataclasses.replace(self.final.get(key, self.first[key]), method=method)
        ranked = sorted(selected, key=lambda k: programs[k].ops.key())  # stable
        fewest = programs[ranked[0]].mults
        ranked = [  # paths first while it is not far behind, then the ranking
            *(k for k in ranked if _is_paths(self.candidates[k][0], programs[k], fewest)),
            *(k for k in ranked if self.candidates[k][0] != "paths"),
        ]
        work, shortlisted, others = WORK_LIMIT, set(), 0
        for k in ranked:
            same = (programs[k].assignments, programs[k].results)
            if same in shortlisted:  # the same program: the same passes, the same result
                continue
            shortlisted.add(same)
            if self.candidates[k][0] != "paths":
                others += 1
                if others > SHORTLIST:
                    break
            key = self._key(*self.candidates[k])
            if key in self.final:
                continue
            size = self.first[key].ops.total
            pipelines = affordable(size, work)[1:] if not self.graph.solved else ()
            if not pipelines:
                continue
            work -= size * sum(map(len, pipelines))
            better = self._build(*self.candidates[k], pipelines)
            self.final[key] = min(self.first[key], better, key=lambda p: p.ops.key())
            programs[k] = dataclasses.replace(self.final[key], method=self.candidates[k][0])
        k = min(selected, key=lambda k: programs[k].ops.key())  # the first of equals
        self._rows(programs, k)
        return programs[k], self.candidates[k][1]

    def reject(self, es: ExpressionSet) -> None:
        """``es`` did not verify: never chosen again."""
        self.rejected.add(_identity(es))

    def build_rest(self) -> None:
        """The first pass order for the candidates the choice did not build (shown only)."""
        for k, (method, es) in enumerate(self.candidates):
            key = self._key(method, es)
            if key not in self.first and _identity(es) not in self.rejected:
                self.first[key] = self._build(method, es, self.first_order)
                self.rows[k] = dataclasses.replace(
                    self.rows[k],
                    ops=self.first[key].ops,
                    note="not built by codegen (its estimate ranks below the few cheapest);"
                    " shown after the first pass order",
                )

    def _rows(self, programs: dict[int, Program], chosen: int) -> None:
        chosen_ops = programs[chosen].ops
        self.rows = []
        for k, (method, es) in enumerate(self.candidates):
            key = self._key(method, es)
            estimate = self.estimates.get(key)
            if _identity(es) in self.rejected:
                row = Candidate(method, estimate, note="did not verify")
            elif k == chosen:
                row = Candidate(method, estimate, chosen_ops, "shipped", shipped=True)
            elif k in programs:
                ops = programs[k].ops
                note = (
                    f"same program as {programs[chosen].method}"
                    if ops.key() == chosen_ops.key()
                    else "more operations"
                )
                row = Candidate(method, estimate, ops, note)
            else:
                row = Candidate(
                    method,
                    estimate,
                    note="not built (its estimate ranks below the few cheapest)",
                )
            self.rows.append(row)
