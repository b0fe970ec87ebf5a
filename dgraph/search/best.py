"""``best``: the cheapest verified accumulation dgraph can find within a work budget.

Minimizing multiplications is NP-complete (Naumann 2008), so ``best`` runs a portfolio and
keeps the cheapest result in its price model (:mod:`dgraph.search.prices`), then the first
candidate met: on a scalar graph, as everywhere in dgraph
(:func:`dgraph.core.expressions.price`), fewest effective multiplications (±1 labels free),
then structural — or, with ``price="structural"``, structural then effective
(AlphaGrad's cost model); on a tensor graph the scalar multiplications of the structured
Jacobian-block products (``"blocks"``) or Graphax's count of the order (``"graphax"``).
The given candidates (``candidates``, the results ``compare`` shows beside it, in its
table's order) come before those of its own searches. One portfolio serves every model:
each search and bound below runs only where :data:`dgraph.search.prices.SOLVERS` says it
is valid for the model, and ``info["not_run"]`` names the others and why (over blocks or
in Graphax's model: the baselines, the cheapest-first greedy order with its restarts and
annealing over whole orders, and over blocks the vertex A*):

1. forward, reverse and Markowitz (Graphax's own Markowitz in its model), priced on the
   structure — the answer if nothing better fits the budget; then the given candidates,
   so ``best`` is never more expensive than any of them; where the model prices whole
   orders (blocks, Graphax's), the cheapest-first greedy order, its randomized restarts
   and annealing over orders (:func:`dgraph.search.orders.anneal_order`);
2. the structure methods — local Jacobians, umbrellas, D*, Zhou's factorizer — where
   not given;
3. exact searches where affordable: the optimal vertex order (A* over eliminated sets on
   small parts, the CP-SAT model of :mod:`dgraph.elimination.vertex_exact` on large ones
   where OR-Tools is installed), in structural and effective multiplications
   (:mod:`dgraph.search.effective_optimal`; on large parts only with OR-Tools; over blocks
   the A* alone, from the cheapest order so far, up to 14 intermediates), and the
   edge-elimination metagraph, each proven or cut off by its share of the work; beyond the
   metagraph, the proven bound on every edge elimination
   (:mod:`dgraph.search.edge_bound`), reported with the cheapest vertex or edge
   elimination and the gap as ``info["edge_elimination"]``;
4. greedy vertex orders by effective cost, Markowitz degree, fill-in and relative
   Markowitz degree with forward and reverse tie-breaks, randomized restarts, a beam
   search, greedy edge and face eliminations priced the same way (front or back edges;
   free faces first, then absorbing ones; forward, reverse and random tie-breaks), and
   simulated annealing over orders, each move priced on its window
   (:mod:`dgraph.search.windows`; in the structural objective each result polished by
   re-ordering windows exactly), until their share of the work is spent (on graphs beyond the exact
   searches one run goes first, as the vertex A*'s incumbent) — half of its later runs
   after preprocessing: the umbrella contractions (which touch nothing outside their
   umbrella) or Zhou's simple-chain links fixed first, the rest searched. They stop as
   soon as a candidate meets the lower bound for every elimination: it is optimal.

``seed`` drives every random choice (restarts, random tie-breaks, annealing).

The budget is work, not time. ``budget`` is given in seconds, as users know it, but no
search reads the clock to decide what it does: each phase gets a fixed fraction of the
budget (:data:`SHARES`, fractions of the work, never of the time left) and spends it as a
count of its own steps — A* moves priced (:data:`dgraph.elimination.search.MOVES_PER_SECOND`),
vertices priced by greedy orders and the beam, edge prices of greedy edge eliminations,
annealing window eliminations, branch-and-bound nodes of the bracketing program — at a
fixed rate per second of budget, set so that a budget of S seconds takes about S seconds
or less on an idle machine (:data:`PRICES_PER_SECOND` and the like). So
the same graph, budget, seed and candidates give the same result on every machine,
however loaded. Which searches run is decided from counts too (the graph's size, its
paths), and the winner is always built and verified (no reserve measured off a clock).

A time ceiling (:func:`dgraph.core.budget.ceiling_for`, shared with the face search)
stops everything on a machine far slower than the rates assume. It counts CPU time, not
the wall clock (:func:`dgraph.core.budget.now`: this process's and that of the children
it waited on), so a machine busy with other work does not cut the searches sooner; a
wall-clock backstop (:data:`~dgraph.core.budget.BACKSTOP_FACTOR` × the ceiling) ends a
search that gets no CPU at all. The searches whose running time nothing predicts run in a
child process (:mod:`dgraph.search.timebox`) killed once it has used its CPU seconds
(except on a tiny graph, :func:`inline`, where a child costs more to start than they
take: there each runs in-process to its end or its count, the result of a child its
time did not stop, and the bracketing program only where its bound is needed), and
the in-process ones check the ceiling as they go (the rank bound at every edge, the
annealing before every move and while it prices its start).
They stop a counted reserve before it (:func:`winner_seconds`, from the graph's edges)
to build and verify the winner; once the ceiling itself has passed, the winner is the
cheapest candidate built already (a given result) where there is one, else the cheapest
is built. Only then can the result depend on the machine, and it says so:
``info["cut_by_time"]`` is True, ``info["cut_phases"]`` names what was cut,
``info["cut_by"]`` by which clock (:data:`~dgraph.core.budget.CPU` or, past the
backstop, :data:`~dgraph.core.budget.WALL`) and
``info["budget_note"]`` (printed on the CLI's cost line) says the result may differ from
run to run. Candidates found as moves are priced without being built; only the winner is
built and verified. ``info`` says which search found it (``found_by``), the best lower
bound known and what it bounds (``lower_bounds`` adds the effective-cost bounds: for
every elimination — vertex, edge or face, and every expression set that forms each
path's product once — what the products at every vertex or joined group of vertices
cost (:mod:`dgraph.search.junction_bounds`) or the fewest multiplications that bracket
every path that HiGHS proves within its share of the work (in a second process while
the searches run, started only where the junction bounds leave a gap to the cheapest
candidate so far: the searches only lower it; :mod:`dgraph.search.bracketing_bound`),
for vertex elimination also the exact effective search
(:mod:`dgraph.search.effective_optimal`), and, for any accumulation, the rank of Bauer's
entries — :mod:`dgraph.search.rank_bound`), and the cost of every candidate. The
searches stop early only on a bound known at a fixed point of the run (never on one that
came back from the second process in the meantime).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TypeVar

from ..core.activity import live_part
from ..core.budget import BACKSTOP_FACTOR, CPU, WALL, Deadline, ceiling_for
from ..core.expressions import ExpressionSet, StepKind, price
from ..core.graph import DGraph
from ..core.paths import count_paths
from ..core.provenance import Bound
from ..dominance.dstar import dstar
from ..dominance.umbrella_method import umbrella
from ..elimination.graphax_model import graphax_orders
from ..elimination.kernel import COUNT, VALUES, move_costs
from ..elimination.labeled import replay
from ..elimination.metagraph import (
    EDGE_LIMIT,
    edge_moves_expression_set,
    edge_optimal_search,
    intermediate_edge_count,
)
from ..elimination.parts import largest_part
from ..elimination.vertex import markowitz_order, vertex_elimination
from ..elimination.vertex_exact import available as exact_model_available
from ..elimination.vertex_exact import load_model
from ..elimination.vertex_optimal import TENSOR_VERTEX_LIMIT, vertex_optimal_search
from ..errors import InputError, SearchTooLarge
from ..faces.elimination import FACE_PATH_LIMIT
from ..faces.greedy import greedy_faces
from ..zhou.factorize import zhou
from ..zhou.layers import layers
from .bracketing_bound import bracketing_lower_bound, load_solver
from .edge_bound import EDGE_ELIMINATION, EdgeBound, edge_elimination_bound
from .effective_optimal import effective_optimal_search
from .junction_bounds import constants_may_fold, elimination_lower_bound
from .orders import (
    RULES,
    anneal_order,
    beam_order,
    cheapest_first_order,
    greedy_edges,
    greedy_order,
)
from .prices import EFFECTIVE, PRICES, PriceModel, not_run, price_model
from .rank_bound import ANY_ACCUMULATION, RANK_PATH_LIMIT, rank_lower_bound
from .timebox import Background, ChildDied, Deferred, inherits, stream, timeboxed, warm
from .windows import anneal_windows, improve_windows

__all__ = [
    "ANY_ELIMINATION",
    "DEFAULT_BUDGET",
    "EFFECTIVE_VERTEX",
    "SHARES",
    "Ceiling",
    "best",
    "winner_seconds",
]

DEFAULT_BUDGET = 2.0  # seconds of work, when none is given: a default answers in seconds
EFFECTIVE_VERTEX = "vertex elimination, effective mults"  # its key in lower_bounds
ANY_ELIMINATION = "any elimination, effective mults"  # vertex, edge, face: every method's
RESTARTS = 8  # greedy vertex orders with random tie-breaks
ANNEALING_RUNS = 64  # at most; each with its own seed
EDGE_RESTARTS = 4  # greedy edge eliminations with random tie-breaks
FACE_RESTARTS = 2  # greedy face eliminations with random tie-breaks
# intermediates up to which the exact searches run to the end (the effective-cost A*, whose
# bound is weak, only up to here) and one annealing round per start suffices
SMALL = 14
# each phase's fraction of the work budget (not of the time left): what its counts buy
SHARES = {
    "early annealing": 0.1,  # graphs beyond the exact searches: the A*'s incumbent
    "vertex-optimal": 0.25,
    "edge-optimal": 0.15,
    "edge bound": 0.1,  # the bracketing program on the structure (structural objective)
    "bracketing": 0.5,  # in a second process, beside the searches
    "greedy orders": 0.15,
    "beam": 0.1,
    "effective-optimal": 0.15,
    "greedy edges": 0.05,
    "greedy faces": 0.05,
    "annealing": 0.1,
}
# work per second of budget: each phase's share of S seconds of budget takes at most about
# that share of wall-clock time on an idle machine, at most twice it on a loaded one
# (the rates' measurements: benchmarks/RESULTS.md, "figures moved from docstrings")
PRICES_PER_SECOND = 100_000  # vertex prices of greedy orders and the beam
EDGE_PRICES_PER_SECOND = 100_000  # edges x intermediate edges, per greedy edge elimination
FACE_PRICES_PER_SECOND = 50_000  # paths x edges, per greedy face elimination
ELIMINATIONS_PER_SECOND = 100_000  # vertex eliminations of annealing windows
RANK_PATHS_PER_SECOND = 10_000  # paths of the rank bound
# what building and verifying one candidate takes on a loaded machine, seconds per edge
# of the graph and at least (a 5,000-step chain's forward mode: 1.1-1.7 s at load 8-12 on
# 2 cores): kept from the ceiling for the winner (:func:`winner_seconds`)
WINNER_SECONDS_PER_EDGE = 3e-4
WINNER_SECONDS = 0.05
# vertex eliminations priced over blocks (or in Graphax's model) that a second buys, and
# the share of them the cheapest-first restarts take (the rest: annealing over orders)
ORDER_ELIMINATIONS_PER_SECOND = 20_000
RESTART_SHARE = 0.3
# the family and unit each key of ``info["lower_bounds"]`` bounds
_BOUND_OF_KEY = {
    "vertex elimination": ("vertex elimination", "mults"),
    "edge elimination": ("edge elimination", "mults"),
    EFFECTIVE_VERTEX: ("vertex elimination", "effective mults"),
    ANY_ELIMINATION: ("any elimination", "effective mults"),
    ANY_ACCUMULATION: ("any accumulation", "effective mults"),
}
T = TypeVar("T")
# the most of the ceiling one phase run in a child may take (its work is not counted)
PHASE_CAP = 0.3
# scalar graphs of at most this many edges are searched in-process (:func:`inline`): on
# them a search whose work is counted, or that ends by itself, takes milliseconds, less
# than a child process costs to start (tens of milliseconds of CPU time)
INLINE_EDGES = 24
# states an exhaustive A* run in-process may expand (counts, so the same graphs on every
# machine; a metagraph state costs several vertex sets): about 0.1 s and 0.03 s of CPU
# time, a refusal costing about what a child does to start; one that needs more runs in
# a child, as on larger graphs
INLINE_EXPANSIONS = {"vertex-optimal": 2_000, "edge-optimal": 250}
# the families bounded, narrowest first: a bound on one bounds every narrower one too
FAMILIES = ("vertex elimination", "edge elimination", "any elimination", "any accumulation")
# the structure methods, cheapest first
STRUCTURE = {"layers": layers, "umbrella": umbrella, "dstar": dstar, "zhou": zhou}


class Portfolio:
    """The candidates so far, each priced in the price model (:class:`PriceModel`:
    (effective, structural) mults on scalar graphs, one price over blocks or in
    Graphax's model) and either built or kept as the moves that build it: vertex orders,
    edge eliminations, metagraph paths (whose vertex moves forward-eliminate every
    out-edge). A name keeps its first candidate unless a cheaper one comes, or one as
    cheap that is built and verified where the first is not built."""

    def __init__(self, graph: DGraph, model: PriceModel = EFFECTIVE) -> None:
        self.graph = graph
        self.model = model
        self.structural = model.name == "structural"
        self.price: dict[str, tuple[int, ...]] = {}
        self.built: dict[str, ExpressionSet] = {}
        self.moves: dict[str, tuple[str, list]] = {}
        self.orders: dict[str, list[str]] = {}  # the vertex orders among them
        self.given: set[str] = set()  # names held by results computed before best

    def _takes(self, by: str, cost: tuple[int, ...], ready: bool = False) -> bool:
        """Whether a candidate at ``cost`` takes the name ``by`` (see the class); a
        cheaper one clears what the name held."""
        held = self.price.get(by)
        if held is None or cost < held:
            self.built.pop(by, None)
            self.moves.pop(by, None)
            if held is not None:
                self.orders.pop(by, None)
            return True
        return cost == held and ready and by not in self.built

    def add_given(self, es: ExpressionSet) -> None:
        """A result computed before ``best`` (a row of ``compare``), under its method's
        name; best's own searches of that name go under another (:meth:`own`)."""
        self.add_built(es.method, es)
        self.given.add(es.method)

    def own(self, by: str) -> str:
        """The name of a candidate of best's own searches: ``by``, unless a given result
        holds it (so ``found_by`` never names a row that shows another cost)."""
        return f"{by} (best's search)" if by in self.given else by

    def add_built(self, by: str, es: ExpressionSet) -> None:
        """Add ``es``; one built in a child process is moved onto this graph (a copy of
        it came back), unverified."""
        if es.graph is not self.graph:
            es = _on(self.graph, es)
        by = by if by in self.given and by == es.method else self.own(by)
        cost = self.model.of_built(es)
        if cost is not None and self._takes(by, cost, es.verified):
            self.price[by] = cost
            self.built[by] = es

    def add_moves(self, by: str, moves: list, kind: str = "moves") -> bool:
        by = self.own(by)
        cost = self.model.of_moves(self.graph, moves)
        if not self._takes(by, cost):
            return False
        self.price[by] = cost
        self.moves[by] = (kind, moves)
        return True

    def add_order(self, by: str, order: list[str]) -> None:
        if self.add_moves(by, [("vertex", v) for v in order], "order"):
            self.orders[self.own(by)] = order

    def key(self, by: str) -> tuple[int, ...]:
        """What ranks ``by`` in the price model (:meth:`PriceModel.key`)."""
        return self.model.key(self.price[by])

    def ranked(self) -> list[str]:
        """Cheapest first in the objective (:func:`price`); among equals the first added."""
        return sorted(self.price, key=self.key)

    def cost(self, by: str) -> int:
        """Its multiplications in the objective."""
        return self.key(by)[0]

    def build(self, by: str) -> ExpressionSet:
        """The expression set of ``by``, built once; in Graphax's model on the graph's
        live part (:func:`~dgraph.core.activity.live_part`: its
        equations no input reaches or no output reads are folded away)."""
        if by not in self.built:
            kind, moves = self.moves[by]
            if kind == "order" and self.model.built_counts:
                es = vertex_elimination(self.graph, self.orders[by], by)
            elif kind == "order":
                part = live_part(self.graph)
                es = vertex_elimination(part, [v for v in self.orders[by] if v in part], by)
            elif kind == "metagraph":
                es = edge_moves_expression_set(self.graph, moves, by)
            else:
                es = replay(self.graph, moves, by)
            self.built[by] = es
        return self.built[by]


class Ceiling:
    """The time ceiling, and what it cut: the one place ``best`` reads a clock to decide
    anything, and whatever it decides is reported (``info["cut_by_time"]``). Its
    ``seconds`` are CPU time (:func:`dgraph.core.budget.now`: this process's and that
    of the children it waited on), with a wall-clock backstop
    (:data:`~dgraph.core.budget.BACKSTOP_FACTOR` × as long), so a loaded machine does
    not cut the searches sooner; :attr:`cut_by` says which clock cut each phase. The
    searches and bounds stop ``reserve`` seconds before it (:attr:`search_end`): that
    much is kept for building and verifying the winner. Where :attr:`inline` (a tiny
    graph: :func:`inline`), the phases run in-process, each to its end, unless the caller
    says otherwise (a search whose work its counts do not bound)."""

    def __init__(self, seconds: float, reserve: float = 0.0, inline: bool = False) -> None:
        self.seconds = seconds
        self.inline = inline
        self.end = Deadline(seconds)
        self.search_end = self.end.earlier(min(reserve, seconds / 2))
        self.cut: list[str] = []
        self.cut_by: dict[str, str] = {}  # the clock that cut each phase (CPU or WALL)
        self.phases: dict[str, float] = {}  # wall-clock seconds each phase took (reported)
        self.died: dict[str, str] = {}  # phases whose child process died, and how
        self._limits: dict[str, Deadline] = {}  # each phase's limit in a child
        self._last = time.perf_counter()

    def mark(self, phase: str) -> None:
        """Note the seconds since the last mark as ``phase``'s (``info["phase_seconds"]``)."""
        now = time.perf_counter()
        self.phases[phase] = round(self.phases.get(phase, 0.0) + now - self._last, 3)
        self._last = now

    def left(self) -> float:
        """CPU seconds the searches have left: until :attr:`search_end` (0 once it, or its
        backstop, has passed)."""
        return self.search_end.left()

    def passed(self, phase: str) -> bool:
        """Whether the searches' time (:attr:`search_end`) has passed, noting ``phase`` as
        cut if it has."""
        clock = self.search_end.passed()
        if clock is None:
            return False
        self.note(phase, clock)
        return True

    def over(self, phase: str) -> bool:
        """Whether the ceiling itself has passed, noting ``phase`` as cut if it has."""
        clock = self.end.passed()
        if clock is None:
            return False
        self.note(phase, clock)
        return True

    def note(self, phase: str, clock: str | None = None) -> None:
        """Note ``phase`` as cut, by ``clock`` (default: the clock the searches' end, else
        the phase's limit in a child, has passed on)."""
        if clock is None:
            limit = self._limits.get(phase, self.search_end)
            clock = self.search_end.passed() or limit.passed() or CPU
        if phase not in self.cut:
            self.cut.append(phase)
            self.cut_by[phase] = clock

    def phase_limit(self, phase: str) -> Deadline:
        """The limit of a phase whose work nothing counts, run in a child: what the
        searches have left, and at most :data:`PHASE_CAP` of the ceiling, of CPU time
        (one such phase cannot starve the rest); the searches' wall-clock backstop."""
        seconds = min(self.left(), PHASE_CAP * self.seconds)
        limit = self._limits[phase] = Deadline(seconds, math.inf, within=self.search_end)
        return limit

    def stream(
        self, phase: str, produce: Callable[[], Iterable[T]], inline: bool | None = None
    ) -> list[T]:
        """:func:`~dgraph.search.timebox.stream` within :meth:`phase_limit`, or every item
        in-process where ``inline`` (default :attr:`inline`) and the limit is not past; a
        child that died is noted in :attr:`died` (reported as ``info["died"]``)."""
        limit = self.phase_limit(phase)
        if self.inline if inline is None else inline:
            return list(produce()) if limit.left() > 0 else []
        try:
            return stream(produce, limit)
        except ChildDied as exc:
            self.died[phase] = str(exc)
            return []

    def timeboxed(self, phase: str, run: Callable[[], T], inline: bool | None = None) -> T | None:
        """:func:`~dgraph.search.timebox.timeboxed` within :meth:`phase_limit`, or
        ``run()`` in-process where ``inline`` (default :attr:`inline`) and the limit is
        not past; a child that died is noted in :attr:`died`, and gives None."""
        limit = self.phase_limit(phase)
        if self.inline if inline is None else inline:
            return run() if limit.left() > 0 else None
        try:
            return timeboxed(run, limit)
        except ChildDied as exc:
            self.died[phase] = str(exc)
            return None

    def exhaustive(self, phase: str, search: Callable[..., T]) -> T | None:
        """An exhaustive search (taking ``max_expansions``): in-process where
        :attr:`inline`, refused past its :data:`INLINE_EXPANSIONS` expanded states (a
        count), and then, as everywhere else, in a child (:meth:`timeboxed`)."""
        if self.inline:
            cap = INLINE_EXPANSIONS[phase]
            try:
                return self.timeboxed(phase, partial(search, max_expansions=cap))
            except SearchTooLarge:
                pass
        return self.timeboxed(phase, search, inline=False)


def best(
    graph: DGraph,
    budget: float | None = None,
    seed: int = 0,
    candidates: Iterable[ExpressionSet] = (),
    objective: str | None = None,
    ceiling: float | None = None,
    skip: Iterable[str] = (),
    price: str | PriceModel | None = None,
) -> ExpressionSet:
    """The cheapest verified expression set a portfolio of searches finds within a work
    budget: the same result on every machine (module docstring).

    One portfolio runs, each search and bound only where
    :data:`dgraph.search.prices.SOLVERS` says it is valid for the price model;
    ``info["not_run"]`` names the others and why. The bounds and
    ``info["objective_lower_bound"]`` are in the model.

    Parameters
    ----------
    graph
        The differentiation graph.
    budget
        Seconds of counted work (default :data:`DEFAULT_BUDGET`).
    seed
        Drives every random choice.
    candidates
        Expression sets of ``graph`` computed already, named by method: the result is
        never more expensive than a verified one of them.
    objective
        The price model under its older name (``"effective"`` on a tensor graph: blocks,
        which is a tensor set's effective count).
    ceiling
        The time limit in CPU seconds (default :func:`ceiling_for` the budget; a
        wall-clock backstop :data:`~dgraph.core.budget.BACKSTOP_FACTOR` × as long); when
        it bites, ``info["cut_by_time"]`` says so, and ``info["cut_by"]`` by which clock.
    skip
        Structure methods not to run (those ``compare`` could not finish within its
        ceiling).
    price
        What cheapest means (:mod:`dgraph.search.prices`): ``"effective"``
        multiplications (±1 labels free, constants folded; then structural),
        ``"structural"`` ones (every label general: plain vertex elimination's count,
        AlphaGrad's; then effective), ``"blocks"`` (the structured Jacobian-block
        products' scalar multiplications) or ``"graphax"`` (Graphax's cost model of the
        order); by default effective on a scalar graph, blocks on a tensor graph.

    Returns
    -------
    ExpressionSet
        The verified winner; ``info`` says which search found it (``found_by``), the
        lower bounds and what they bound, and what was cut or not run.

    Raises
    ------
    InputError
        An unknown price model, one that does not price ``graph``, ``price`` and
        ``objective`` naming different models, or a candidate of another graph; each in
        one line.

    >>> from dgraph.frontends import bundled
    >>> es = best(bundled("naumann_discrepancy.json"), budget=5)
    >>> es.mults, es.verified, es.info["found_by"] in ("edge-optimal", "dstar")
    (13, True, True)
    """
    model = _model(graph, price, objective)
    budget = DEFAULT_BUDGET if budget is None else budget
    seconds = ceiling_for(budget) if ceiling is None else ceiling
    clock = Ceiling(seconds, winner_seconds(graph), inline(graph))
    skipped = not_run(model)
    if not model.tensor:
        import scipy.sparse  # noqa: F401  (once per process: the children inherit it)

        warm()  # where children come from the fork server, it imports while the baselines run
    t0 = time.perf_counter()
    given = _candidates(graph, candidates)
    pool = Portfolio(graph, model)
    for by, order in _baselines(graph, model).items():
        pool.add_order(by, order)
    if "given candidates" not in skipped:
        for es in given:
            pool.add_given(es)
    bounds = _Bounds(model)
    clock.mark("baselines")
    if "order annealing" not in skipped:
        _order_annealing(graph, pool, budget, seed, clock)
        clock.mark("order annealing")
    _searches(graph, pool, bounds, budget, clock, seed, skip, skipped.__contains__)
    if not given:  # none to leave out
        skipped.pop("given candidates", None)
    return _finish(pool, bounds, t0, budget, clock, skipped)


def inline(graph: DGraph) -> bool:
    """Whether ``best`` searches ``graph`` in-process: a scalar graph of at most
    :data:`INLINE_EDGES` edges, on which every search whose work is counted, or that
    ends by itself, costs less than a child process would to start. Each runs to its end
    or its count, as it would in a child that its time did not stop: the same result."""
    return not graph.is_tensor and graph.n_edges <= INLINE_EDGES


def winner_seconds(graph: DGraph) -> float:
    """The seconds kept from the ceiling for building and verifying the winner, counted
    from ``graph``'s edges (:data:`WINNER_SECONDS_PER_EDGE`): the searches stop that much
    before it (:class:`Ceiling`)."""
    return WINNER_SECONDS + WINNER_SECONDS_PER_EDGE * graph.n_edges


def _model(graph: DGraph, price: str | PriceModel | None, objective: str | None) -> PriceModel:
    """The price model named by ``price`` or its older name ``objective`` (see
    :func:`best`), refused in one line where unknown, not for ``graph`` or named twice
    differently."""
    if objective is not None and not isinstance(objective, str):
        raise InputError(f"best: objective {str(objective)[:20]!r} is not a price model's name")
    if objective == "effective" and graph.is_tensor:
        objective = "blocks"  # a tensor set's effective count is its block count
    name = price.name if isinstance(price, PriceModel) else price
    if name is not None and objective is not None and name != objective:
        raise InputError(f"best: price {name!r} and objective {objective!r} differ: give one")
    if price is None:
        return price_model(graph, objective, "objective")
    return price_model(graph, price)


def _baselines(graph: DGraph, model: PriceModel) -> dict[str, list[str]]:
    """Forward, reverse and Markowitz: in Graphax's model its own Markowitz degrees
    (AlphaGrad's three baselines, :func:`dgraph.elimination.graphax_model.graphax_orders`)."""
    if model is PRICES["graphax"]:
        return graphax_orders(graph)
    forward = list(graph.intermediates)
    return {"forward": forward, "reverse": forward[::-1], "markowitz": markowitz_order(graph)}


def _order_annealing(
    graph: DGraph, pool: Portfolio, budget: float, seed: int, clock: Ceiling
) -> None:
    """Orders priced whole in the model's algebra (blocks, Graphax's model): the
    cheapest-first greedy order, its randomized restarts and simulated annealing from
    the cheapest order so far, within ``budget`` counted in vertex eliminations priced
    (:data:`ORDER_ELIMINATIONS_PER_SECOND`, :data:`RESTART_SHARE` of them for the
    restarts); ``seed`` for every random choice."""
    n = max(1, len(graph.intermediates))
    work = budget * ORDER_ELIMINATIONS_PER_SECOND
    algebra = pool.model.algebra
    first = cheapest_first_order(graph, algebra=algebra, stop=lambda: clock.passed("greedy"))
    pool.add_order("cheapest first", first)
    rng = random.Random(seed)
    # a restart counted as every vertex left priced at every step (as it once was: it now
    # prices only the eliminated vertex's neighbours), so the same restarts are made
    restart_cost = n * (n + 1) // 2 + n
    for k in range(int(RESTART_SHARE * work) // restart_cost):
        if clock.passed("restarts"):
            break
        order = cheapest_first_order(graph, rng, algebra=algebra,
                                     stop=lambda: clock.passed("restarts"))  # fmt: skip
        pool.add_order(f"cheapest first, restart {k + 1}", order)
    start = pool.orders[min(pool.orders, key=pool.key)]
    moves = int((1 - RESTART_SHARE) * work) // n

    def cost(order: list[str]) -> int:
        return pool.model.of_moves(graph, [("vertex", v) for v in order])[0]

    _, annealed = anneal_order(cost, start, moves, rng, lambda: clock.passed("annealing"))
    pool.add_order("annealing", annealed)


def _searches(
    graph: DGraph,
    pool: Portfolio,
    bounds: _Bounds,
    budget: float,
    clock: Ceiling,
    seed: int,
    skip: Iterable[str],
    skipped: Callable[[str], bool],
) -> None:
    """Everything after the baselines and the order annealing (module docstring), each
    search and bound only where valid for the model (``skipped(name)`` false)."""
    if not skipped("rank bound"):
        paths = count_paths(graph)
        if paths <= RANK_PATH_LIMIT and paths <= budget * RANK_PATHS_PER_SECOND:
            rank = None if clock.passed("rank bound") else rank_lower_bound(graph, clock.search_end)
            if rank is None:
                clock.note("rank bound")
            bounds.known[ANY_ACCUMULATION] = rank
            clock.mark("rank bound")
    # the junction bound before the searches: the bracketing program starts from it,
    # and near-linear in the graph it is known on long programs before the ceiling nears
    junction = None
    if not skipped("junction bound"):
        junction = clock.timeboxed("junction bound", partial(elimination_lower_bound, graph))
        if junction is None:
            clock.note("junction bound")
        clock.mark("junction bound")
    # one annealing run first, on graphs beyond the exact searches: a good order early,
    # the incumbent of the vertex A*, before the structure methods
    if not skipped("early annealing") and largest_part(graph) > SMALL:
        steps = _annealing_steps(graph, SHARES["early annealing"] * budget)
        runs = range(ANNEALING_RUNS, ANNEALING_RUNS + 1)
        _annealing(graph, pool, clock, seed, steps, runs, phase="early annealing")
        clock.mark("early annealing")
    if not skipped("structure methods"):
        missing = [by for by in STRUCTURE if by not in pool.built and by not in set(skip)]
        made = clock.stream("structure methods", partial(_structure_methods, graph, missing))
        if len(made) < len(missing):
            clock.note("structure methods")
        for by, es in made:
            pool.add_built(by, es)
        clock.mark("structure methods")
    bracketing: Background[int] | Deferred[int] | None = None
    # waited for only while the cheapest candidate costs more than the floor; the
    # searches only lower the one and raise the other, so where the junction bound meets
    # it already the program would run for nothing (and HiGHS's import with it)
    needed = junction is None or pool.cost(pool.ranked()[0]) > junction
    reached = not skipped("bracketing bound") and not clock.passed("bracketing bound")
    if reached and needed:
        if clock.inline or inherits():  # (the fork server's children have it already)
            load_solver()  # HiGHS's import, once per process, is not the searches' time
        program = partial(bracketing_lower_bound, graph, SHARES["bracketing"] * budget, junction)
        # on a tiny graph, in-process and only where the junction bound leaves a gap
        bracketing = Deferred(program) if clock.inline else Background(program, clock.search_end)
    if largest_part(graph) > SMALL and exact_model_available() and inherits():
        load_model()  # CP-SAT's import, once per process, not once per search's child
    try:
        proven = _exact_searches(graph, pool, bounds, budget, clock, skipped)
        clock.mark("exact searches")
        if not skipped("edge bound"):
            _edge_bound(graph, bounds, budget, clock, pool.structural)
            clock.mark("edge bound")
        bounds.raise_floor(junction)
        # the vertex search priced what the model prices: over blocks, every label
        unlabeled = pool.model.tensor or not any(
            graph.constant_label(u, v) is not None for u, v in graph.edges()
        )
        if proven and unlabeled and not pool.model.tensor:
            bounds.known[EFFECTIVE_VERTEX] = bounds.known["vertex elimination"]
        if not (proven and (unlabeled or pool.structural)):  # else no vertex order is cheaper
            _heuristics(graph, pool, bounds, budget, clock, seed, skipped)
        clock.mark("heuristics")
        if bracketing is not None and pool.cost(pool.ranked()[0]) > bounds.known.get(
            ANY_ELIMINATION, -1
        ):
            try:
                found = bracketing.wait(clock.left())
            except ChildDied as exc:
                clock.died["bracketing bound"] = str(exc)
                found = None
            if found is None:
                clock.note("bracketing bound")
            bounds.raise_floor(found)
        # else the junction bound proved the winner optimal: the bracketing bound, which
        # can take far longer on long paths, adds nothing to it
        if reached:
            clock.mark("bracketing bound (waited)")
    finally:
        if bracketing is not None:
            bracketing.stop()


def _candidates(graph: DGraph, candidates: Iterable[ExpressionSet]) -> list[ExpressionSet]:
    """The given candidates, each a whole Jacobian of ``graph``."""
    given = list(candidates)
    for es in given:
        if es.graph is not graph and es.graph != graph:
            raise InputError(f"best: the candidate {es.method!r} is for another graph")
        if es.pairs is not None:
            raise InputError(f"best: the candidate {es.method!r} computes only some entries")
    return given


def _on(graph: DGraph, es: ExpressionSet) -> ExpressionSet:
    """``es`` (and the set it was inlined from) over ``graph``, an equal graph."""
    computed = _on(graph, es.computed) if isinstance(es.computed, ExpressionSet) else es.computed
    return dataclasses.replace(es, graph=graph, computed=computed)


class _Bounds:
    """The best lower bound known (on what), and every bound by the family it bounds;
    ``mults`` are structural on a scalar graph, the block price on a tensor graph (a
    tensor set's count)."""

    def __init__(self, model: PriceModel = EFFECTIVE) -> None:
        self.lower, self.bounds = 0, "nothing"
        self.known: dict[str, int] = {}
        self.unit = "mults over blocks" if model.tensor else "structural mults"

    def prove(self, family: str, bound: int) -> None:
        self.lower, self.bounds = bound, f"{family} ({self.unit})"
        self.known[family] = bound

    def typed(self) -> tuple[Bound, ...]:
        """Every bound known, typed: value, family and unit."""
        return tuple(
            Bound(int(value), *_BOUND_OF_KEY[key])
            for key, value in self.widened().items()
            if value is not None
        )

    def in_objective(self, objective: str) -> dict[str, int]:
        """The bound known on each family in ``objective`` (a bound on a wider family,
        and in effective mults, which no set has more of than structural, counts too;
        over blocks every bound known is in the block price)."""
        best: dict[str, int] = {}
        for key, value in self.known.items():
            family, unit = _BOUND_OF_KEY[key]
            if value is not None and (unit == "effective mults" or objective != "effective"):
                best[family] = max(value, best.get(family, value))
        bounds: dict[str, int] = {}
        for k, family in enumerate(FAMILIES):
            wider = [best[f] for f in FAMILIES[k:] if f in best]
            if wider:
                bounds[family] = max(wider)
        return bounds

    def widened(self) -> dict[str, int | None]:
        """Every bound known, each raised to the bounds on the families wider than its own
        (every vertex elimination is an edge elimination, Naumann 2004) in its unit or in
        effective mults (no set has more of them than structural ones)."""
        out: dict[str, int | None] = {}
        for key, value in self.known.items():
            family, unit = _BOUND_OF_KEY[key]
            wider = [
                other
                for k, other in self.known.items()
                if other is not None
                and FAMILIES.index(_BOUND_OF_KEY[k][0]) >= FAMILIES.index(family)
                and (_BOUND_OF_KEY[k][1] == unit or _BOUND_OF_KEY[k][1] == "effective mults")
            ]
            out[key] = max(wider) if wider else value
        return out

    def raise_floor(self, bound: int | None) -> None:
        """A bound for every elimination (the junction or bracketing bound), if any."""
        if bound is not None:
            for key in (ANY_ELIMINATION, EFFECTIVE_VERTEX):
                self.known[key] = max(bound, self.known.get(key, bound))


def _structure_methods(graph: DGraph, names: list[str]) -> Iterator[tuple[str, ExpressionSet]]:
    for by in names:
        yield by, STRUCTURE[by](graph)


def _exact_searches(
    graph: DGraph,
    pool: Portfolio,
    bounds: _Bounds,
    budget: float,
    clock: Ceiling,
    skipped: Callable[[str], bool],
) -> bool:
    """The vertex-order A* and, on small graphs, the metagraph search, each to the end
    where exhaustive, else within its share of the work, where valid for the model;
    whether the vertex optimum was proven."""
    if skipped("vertex-optimal"):
        return False
    if pool.model.tensor:
        return _tensor_vertex_optimal(graph, pool, bounds, budget, clock)
    # A* over eliminated sets often proves the vertex optimum beyond its exhaustive limit,
    # so it always gets a share of the budget
    small = largest_part(graph) <= SMALL  # the searches take independent parts one by one
    share = None if small else SHARES["vertex-optimal"] * budget
    # the A* is structural: the order of fewest structural mults prunes it from the start
    incumbent = pool.orders[min(pool.orders, key=lambda by: pool.price[by][::-1])]
    search = partial(vertex_optimal_search, graph, share, incumbent)
    try:
        if share is None:
            result = clock.exhaustive("vertex-optimal", search)
        else:  # CP-SAT's work, on large parts, is not a count of moves
            result = clock.timeboxed("vertex-optimal", search, inline=False)
    except SearchTooLarge:  # pricing its start alone exceeds its share of the work
        result = None
    else:
        if result is None:
            clock.note("vertex-optimal")
    if result is not None:
        pool.add_order("vertex-optimal", [v for _, v in result.moves])
        bounds.prove("vertex elimination", result.lower_bound)
    inner_edges = intermediate_edge_count(graph)
    if not skipped("edge-optimal") and inner_edges <= 2 * EDGE_LIMIT:
        share = None if inner_edges <= EDGE_LIMIT else SHARES["edge-optimal"] * budget
        search = partial(edge_optimal_search, graph, "full", share)
        try:
            if share is None:
                edges = clock.exhaustive("edge-optimal", search)
            else:
                edges = clock.timeboxed("edge-optimal", search, inline=False)
        except SearchTooLarge:
            edges = None
        else:
            if edges is None:
                clock.note("edge-optimal")
        if edges is not None:
            pool.add_moves("edge-optimal", edges.moves, "metagraph")
            bounds.prove("edge elimination", edges.lower_bound)
    return result is not None and result.proven


def _tensor_vertex_optimal(
    graph: DGraph, pool: Portfolio, bounds: _Bounds, budget: float, clock: Ceiling
) -> bool:
    """The A* over eliminated sets priced over blocks, from the cheapest order so far,
    within half the budget, where the graph has at most
    :data:`~dgraph.elimination.vertex_optimal.TENSOR_VERTEX_LIMIT` intermediates; whether
    it proved the optimum. Its bound on what is left is 0: a block product can cost
    nothing (a factor that only selects, moves or sums entries; a zero product of
    disjoint selections), and fill-in can make a vertex's later products cheaper than any
    now (a selection replacing a dense factor), so neither a floor per product nor a
    vertex's price today bounds the rest from below."""
    if len(graph.intermediates) > TENSOR_VERTEX_LIMIT or clock.passed("vertex-optimal"):
        return False
    incumbent = pool.orders[min(pool.orders, key=pool.key)]
    try:
        result = vertex_optimal_search(graph, budget / 2, incumbent)
    except SearchTooLarge:  # pricing its start alone exceeds its share of the work
        return False
    pool.add_order("vertex-optimal", [v for _, v in result.moves])
    bounds.prove("vertex elimination", result.lower_bound)
    return result.proven


def _edge_bound(
    graph: DGraph, bounds: _Bounds, budget: float, clock: Ceiling, structural: bool
) -> None:
    """The proven bound on every edge elimination (:mod:`dgraph.search.edge_bound`) where
    the metagraph search did not prove the optimum: junctions and exact small parts, and
    in the structural objective the bracketing program on the structure within its share.
    It heads the bounds (a wider family) only where it is at least the vertex bound."""
    if intermediate_edge_count(graph) <= EDGE_LIMIT:
        return
    seconds = SHARES["edge bound"] * budget if structural else 0.0
    # its exact parts' metagraph searches have no count: in a child
    run = partial(edge_elimination_bound, graph, seconds)
    found = clock.timeboxed("edge bound", run, inline=False)
    if found is None:
        clock.note("edge bound")
        return
    bound = max(found.lower_bound, bounds.known.get(EDGE_ELIMINATION) or 0)
    if bound >= bounds.lower:
        bounds.prove(EDGE_ELIMINATION, bound)
    else:
        bounds.known[EDGE_ELIMINATION] = bound


def _heuristics(
    graph: DGraph,
    pool: Portfolio,
    bounds: _Bounds,
    budget: float,
    clock: Ceiling,
    seed: int,
    skipped: Callable[[str], bool] = lambda name: False,
) -> None:
    """Greedy orders, restarts, beam, effective A* (small graphs), greedy edges and
    faces, then annealing, each within its share of the work (its count decided before
    it runs, from the graph's size) and where valid for the model (``skipped(name)``
    false); ``seed`` for every random choice. They stop once a candidate meets the bound
    for every elimination known so far: it is optimal."""

    def met() -> bool:
        """Whether a candidate meets the bound for every elimination: optimal (an
        effective bound bounds structural mults too)."""
        return pool.cost(pool.ranked()[0]) <= bounds.known.get(ANY_ELIMINATION, -1)

    def work(phase: str, per_second: float) -> float:
        return SHARES[phase] * budget * per_second

    structural = pool.structural
    p = len(graph.intermediates)
    per_order = max(1, p * (p + 1) // 2)  # vertices a greedy order prices
    if not skipped("greedy orders"):
        count = min(
            2 * len(RULES) + RESTARTS, int(work("greedy orders", PRICES_PER_SECOND) // per_order)
        )
        orders = clock.stream(
            "greedy orders", partial(_greedy_orders, graph, seed, structural, count)
        )
        if len(orders) < count:
            clock.note("greedy orders")
        for by, order in orders:
            pool.add_order(by, order)
        clock.mark("greedy orders")
    if met():
        return
    beam_work = int(work("beam", PRICES_PER_SECOND))
    if not skipped("beam") and beam_work >= 4 * per_order:  # past its work: greedily
        algebra = COUNT if structural else VALUES
        beam = clock.timeboxed("beam", partial(beam_order, graph, algebra=algebra, work=beam_work))
        if beam is None:
            clock.note("beam")
        else:
            pool.add_order("beam", beam[1])
        clock.mark("beam")
    greedy = [by for by in pool.orders if by.startswith(("greedy", "restart"))] or ["markowitz"]
    if not skipped("effective-optimal") and (
        largest_part(graph) <= SMALL or exact_model_available()
    ):
        top = min(greedy, key=pool.key)
        search = partial(
            effective_optimal_search, graph, SHARES["effective-optimal"] * budget, pool.orders[top]
        )
        small = largest_part(graph) <= SMALL  # beyond, its counts do not bound its time
        try:
            if clock.passed("effective-optimal"):
                exact = None
            else:
                exact = search() if small else clock.timeboxed("effective-optimal", search, False)
        except SearchTooLarge:  # its start alone exceeds its share (many parts)
            exact = None
        else:
            if exact is None:
                clock.note("effective-optimal")
        if exact is not None:
            pool.add_order("effective-optimal", [v for _, v in exact.moves])
            # its moves price one multiplication at a time: where constants may fold,
            # a set can pay less (2·r·2 is 4·r), and its optimum bounds nothing
            if not constants_may_fold(graph):
                known = bounds.known.get(EFFECTIVE_VERTEX, 0)
                bounds.known[EFFECTIVE_VERTEX] = max(exact.lower_bound, known)
        clock.mark("effective-optimal")
    if met():
        return
    edges = graph.nx.number_of_edges()
    if not skipped("greedy edges"):
        per_run = max(1, edges * intermediate_edge_count(graph))  # edge prices, about
        count = min(1 + EDGE_RESTARTS, int(work("greedy edges", EDGE_PRICES_PER_SECOND) // per_run))
        runs = clock.stream("greedy edges", partial(_greedy_edges, graph, seed, count))
        if len(runs) < count:
            clock.note("greedy edges")
        if runs:
            pool.add_moves("greedy edges", min(runs, key=lambda r: r[0])[1])
        clock.mark("greedy edges")
    paths = 0 if skipped("greedy faces") else count_paths(graph)
    if not skipped("greedy faces") and paths <= FACE_PATH_LIMIT:  # states track every path
        per_run = max(1, paths * edges)
        count = min(2 + FACE_RESTARTS, int(work("greedy faces", FACE_PRICES_PER_SECOND) // per_run))
        faces = clock.stream("greedy faces", partial(_greedy_faces, graph, seed, count))
        if len(faces) < count:
            clock.note("greedy faces")
        if faces:
            pool.add_built("greedy faces", min(faces, key=price))
        clock.mark("greedy faces")
    if met() or skipped("annealing"):
        return
    steps = _annealing_steps(graph, SHARES["annealing"] * budget)
    _annealing(graph, pool, clock, seed, steps, met=met)
    clock.mark("annealing")


def _greedy_orders(
    graph: DGraph, seed: int, structural: bool = False, count: int | None = None
) -> Iterator[tuple[str, list[str]]]:
    """Every rule with both tie-breaks, then random restarts of the cheapest rule (in
    the objective); the first ``count`` of them (None: all)."""
    made = itertools.count()
    cheapest, rule_of = None, "markowitz" if structural else "effective"
    for rule in RULES:
        for tie in ("forward", "reverse"):
            if count is not None and next(made) >= count:
                return
            order = greedy_order(graph, rule, tie)
            cost = move_costs(graph, [("vertex", v) for v in order])
            cost = cost[::-1] if structural else cost
            if cheapest is None or cost < cheapest:
                cheapest, rule_of = cost, rule
            yield f"greedy {rule}/{tie}", order
    rng = random.Random(seed)
    for k in range(RESTARTS):
        if count is not None and next(made) >= count:
            return
        yield f"restart {k}", greedy_order(graph, rule_of, rng=rng)


def _greedy_edges(graph: DGraph, seed: int, count: int) -> Iterator[tuple[int, list]]:
    """The greedy edge elimination, then random tie-breaks: ``count`` runs in all."""
    rng = random.Random(seed)
    for k in range(count):
        yield greedy_edges(graph, rng if k else None)


def _greedy_faces(graph: DGraph, seed: int, count: int) -> Iterator[ExpressionSet]:
    """Greedy face elimination, forward and reverse ties, then random: ``count`` runs."""
    rng = random.Random(seed)
    for k in range(count):
        if k < 2:
            yield greedy_faces(graph, ("forward", "reverse")[k])
        else:
            yield greedy_faces(graph, rng=rng)


def _annealing_steps(graph: DGraph, seconds: float) -> int:
    """The annealing moves a work of ``seconds`` buys: a move re-prices a window whose
    length is log-uniform up to the order's, (n - 1) / ln n positions on average."""
    n = len(graph.intermediates)
    window = 1 + (n - 1) / math.log(n) if n > 1 else 1.0
    return int(seconds * ELIMINATIONS_PER_SECOND / window)


def _annealing(
    graph: DGraph,
    pool: Portfolio,
    clock: Ceiling,
    seed: int,
    steps: int,
    runs: range = range(ANNEALING_RUNS),
    phase: str = "annealing",
    met: Callable[[], bool] = lambda: False,
) -> None:
    """Annealing runs over orders (:func:`dgraph.search.windows.anneal_windows`, each move
    priced on its window), each polished in structural mults by re-ordering windows
    exactly (:func:`dgraph.search.windows.improve_windows`), from the best orders in
    turn, then from its own best, until ``steps`` moves are spent in all (each run at
    most 100 per vertex), ``met()`` or the ceiling (small graphs stop after one round
    per start); every other run after the first round keeps a structure method's
    eliminations as a fixed prefix — the umbrella contractions (each touches nothing
    outside its umbrella) or Zhou's simple chains — and searches the rest:
    preprocessing, kept only where it comes out cheaper."""
    inner = len(graph.intermediates)
    objective = "structural" if pool.structural else "effective"
    starts = sorted(pool.orders, key=pool.key)[:3]
    prefixes = [(by, p) for by, p in _prefixes(pool) if p]
    for run in runs:
        if steps <= 0 or met() or (run >= len(starts) and inner <= SMALL):
            break
        if clock.passed(phase):
            break
        cheapest = min(pool.orders, key=pool.key)
        name = starts[run] if run < len(starts) else cheapest
        start, fixed, label = pool.orders[name], 0, "annealing"
        if prefixes and run >= len(starts) and run % 2:
            by, prefix = prefixes[run // 2 % len(prefixes)]
            chosen = set(prefix)
            start, fixed = prefix + [v for v in start if v not in chosen], len(prefix)
            label = f"{by} + annealing"
        run_seed = 2 * ANNEALING_RUNS * seed + run
        moves = min(steps, 100 * max(1, inner))
        steps -= moves
        end = clock.search_end
        cost, order = anneal_windows(
            graph, start, objective, moves, seed=run_seed, deadline=end, fixed=fixed
        )
        if pool.structural:
            sweeps = 2 * max(1, inner)  # windows: two sweeps at half overlap
            cost, order = improve_windows(graph, order, deadline=end, windows=sweeps)
        cut = clock.passed(phase)  # notes a cut by the ceiling: the order kept, and reported
        if cut and order == start:  # cut before its first move
            break
        if cost <= pool.cost(cheapest):  # priced as built: the effective price may differ
            pool.add_order(label, order)


def _prefixes(pool: Portfolio) -> list[tuple[str, list[str]]]:
    """Preprocessing orders: the vertices the umbrella method eliminated inside umbrellas
    and the links Zhou's simple reduction eliminated from chains (intermediates, each
    once), in each method's order."""
    kinds = {"umbrella": StepKind.UMBRELLA, "zhou": StepKind.CHAIN}
    return [
        (by, [s.target for s in pool.built[by].steps if s.op is kinds[by]])
        for by in kinds
        if by in pool.built
    ]


def _finish(
    pool: Portfolio,
    bounds: _Bounds,
    t0: float,
    budget: float,
    clock: Ceiling,
    skipped: dict[str, str],
) -> ExpressionSet:
    """The cheapest candidate, built and verified, under the name ``best``, keeping its
    verification. ``info`` says the price model (``objective``), the bounds in it, the
    tightest (on vertex elimination, which every wider family's bound bounds too) and the
    widest family none of which costs less: proven optimal among it, claimed only of a
    verified winner; the searches and bounds not run for the model (``not_run``); and
    whether the ceiling cut anything."""
    searched = time.perf_counter() - t0
    by, es = _winner(pool, clock)
    clock.mark("winner built and verified")
    model = pool.model
    info = {k: v for k, v in es.info.items() if k != "optimal"}
    cost = pool.cost(by)
    in_objective = bounds.in_objective(model.name)
    met = [f for f in FAMILIES if in_objective.get(f, -1) >= cost] if es.verified else []
    info.update(
        objective=model.name,
        objective_bounds=in_objective,
        objective_lower_bound=max(in_objective.values(), default=0),
        optimal_among=met[-1] if met else None,
        proven_optimal=bool(met),
    )
    if not model.tensor:
        info["edge_elimination"] = _edge_report(pool, bounds)
    if by in pool.orders and by not in pool.given:  # a given set keeps its own info
        info["order"] = list(pool.orders[by])
    if model.name == "graphax":
        info["graphax_mults"] = cost
    if model.tensor:
        candidates = {name: price[0] for name, price in pool.price.items()}
    else:
        candidates = {name: [s, e] for name, (e, s) in pool.price.items()}
    info.update(
        found_by=by,
        lower_bound=bounds.lower,
        lower_bound_for=bounds.bounds,
        lower_bounds=bounds.widened(),
        bounds=bounds.typed(),
        candidates=candidates,
        not_run=skipped,
        search_seconds=round(searched, 3),
        phase_seconds=clock.phases,
        budget=budget,
        cut_by_time=bool(clock.cut),
        cut_phases=list(clock.cut),
    )
    if clock.died:
        info["died"] = dict(clock.died)  # searches whose child process died: not run
    if clock.cut:
        info["cut_by"] = dict(clock.cut_by)
        info["budget_note"] = _budget_note(clock)
    return es._relabeled("best", info)


def _budget_note(clock: Ceiling) -> str:
    """What the ceiling cut, by which clock: its CPU seconds, or (a search that got no CPU
    for far longer) its wall-clock backstop."""
    by_cpu = [phase for phase in clock.cut if clock.cut_by[phase] == CPU]
    by_wall = [phase for phase in clock.cut if clock.cut_by[phase] == WALL]
    cuts = [f"{clock.seconds:g} s of CPU time ({', '.join(by_cpu)})"] if by_cpu else []
    if by_wall:
        backstop = BACKSTOP_FACTOR * clock.seconds
        cuts.append(f"its wall-clock backstop of {backstop:g} s ({', '.join(by_wall)})")
    return (
        f"cut by the time ceiling of {' and '.join(cuts)}: on a machine this slow the"
        " result may differ from run to run"
    )


def _edge_report(pool: Portfolio, bounds: _Bounds) -> dict:
    """The cheapest edge elimination found (vertex orders are edge eliminations too) in
    structural mults, the bound proven on every edge elimination, the gap and whether it
    is closed (:meth:`dgraph.search.edge_bound.EdgeBound.as_info`)."""
    edges = [by for by in pool.price if by in pool.orders or by in pool.moves]
    cost = min((pool.price[by][1] for by in edges), default=None)
    lower = bounds.in_objective("structural").get(EDGE_ELIMINATION, 0)
    proven = cost is not None and cost <= lower
    return EdgeBound(None, cost, lower, proven).as_info()


def _winner(pool: Portfolio, clock: Ceiling | None = None) -> tuple[str, ExpressionSet]:
    """The cheapest candidate that builds and verifies: each in turn built (re-priced as
    built, where the model's price is what a built set counts) and verified until one
    is; a candidate failing verification is passed over. Once the ceiling of ``clock``
    has passed, the cheapest candidate built already (a given result, or one a child
    built) is taken before one still to build (noted as the cut ``"winner"``). Where
    none verifies, the cheapest as it is, whose ``verification`` reports its failed
    check (never a claim of verified)."""
    failed: list[str] = []
    while True:
        ready = [by for by in pool.ranked() if by not in failed]
        if not ready:
            return failed[0], pool.built[failed[0]]
        by = ready[0]
        if by not in pool.built and clock is not None:
            built = next((b for b in ready if b in pool.built), None)
            if built is not None and clock.over("winner"):
                by = built
        es = pool.build(by)
        built = pool.model.of_built(es)
        if built is not None and built != pool.price[by]:
            pool.price[by] = built
        elif es.verified or es.verify():
            return by, es
        else:
            failed.append(by)
