"""``best``: the cheapest verified accumulation dgraph can find within a time budget.

Minimizing multiplications is NP-complete (Naumann 2008), so ``best`` runs a portfolio and
keeps the cheapest result as everywhere in dgraph (:func:`dgraph.core.expressions.price`):
fewest effective multiplications (±1 labels free), then structural — or, with
``objective="structural"``, structural then effective (AlphaGrad's cost model) — then
the first candidate met: the given ones (``candidates``, the results ``compare`` shows
beside it, in its table's order) before those of its own searches:

1. forward, reverse and Markowitz, priced on the structure; the cheapest is built and
   verified first — the answer if nothing better fits the budget, and the measure of
   how long building and verifying the winner will take, which is kept in reserve; then
   the given candidates, so ``best`` is never more expensive than any of them;
2. the structure methods — local Jacobians, umbrellas, D*, Zhou's factorizer — where
   not given;
3. exact searches where affordable: the optimal vertex order (A* over eliminated sets),
   in structural and, on small graphs, effective multiplications
   (:mod:`dgraph.search.effective_optimal`), and the edge-elimination metagraph, each
   proven or cut off by its share of the budget;
4. greedy vertex orders by effective cost, Markowitz degree, fill-in and relative
   Markowitz degree with forward and reverse tie-breaks, randomized restarts, a beam
   search, greedy edge and face eliminations priced the same way (front or back edges;
   free faces first, then absorbing ones; forward, reverse and random tie-breaks), and
   simulated annealing over orders, each move priced on its window
   (:mod:`dgraph.search.windows`; in the structural objective each result polished by
   re-ordering windows exactly), until the budget is spent (on graphs beyond the exact
   searches one run goes first, as the vertex A*'s incumbent) — half of its later runs
   after preprocessing: the umbrella contractions (which touch nothing outside their
   umbrella) or Zhou's simple-chain links fixed first, the rest searched. They stop as
   soon as a candidate meets the lower bound for every elimination: it is optimal.

``seed`` drives every random choice (restarts, random tie-breaks, annealing), so the same
graph, seed and candidates give the same result wherever no deadline cuts a search short.

Searches whose running time nothing predicts run in a child process stopped at its
deadline (:mod:`dgraph.search.timebox`), so ``best`` returns within its budget unless
building and verifying one expression set alone takes longer (``info["budget_note"]``
says so). Candidates found as moves are priced without being built; only the winner is
built and verified. ``info`` says which search found it (``found_by``), the best lower
bound known and what it bounds (``lower_bounds`` adds the effective-cost bounds: for
every elimination — vertex, edge or face, and every expression set that forms each
path's product once — what the products at every vertex or joined group of vertices
cost (:mod:`dgraph.search.junction_bounds`) or, where HiGHS gets that far within the
budget (in a second process while the searches run), the fewest multiplications that
bracket every path (:mod:`dgraph.search.bracketing_bound`), for vertex elimination
also the exact effective search (:mod:`dgraph.search.effective_optimal`), and, for any
accumulation, the rank of Bauer's entries — :mod:`dgraph.search.rank_bound`), and the
cost of every candidate.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterable, Iterator

from ..core.expressions import ExpressionSet, StepKind, price
from ..core.graph import DGraph
from ..core.paths import count_paths
from ..core.provenance import Bound
from ..dominance.dstar import dstar
from ..dominance.umbrella_method import umbrella
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
from ..elimination.vertex_optimal import vertex_optimal_search
from ..errors import InputError, SearchTooLarge
from ..faces.elimination import FACE_PATH_LIMIT
from ..faces.greedy import greedy_faces
from ..zhou.factorize import zhou
from ..zhou.layers import layers
from .bracketing_bound import bracketing_lower_bound, load_solver
from .effective_optimal import effective_optimal_search
from .junction_bounds import elimination_lower_bound
from .orders import RULES, beam_order, greedy_edges, greedy_order
from .rank_bound import ANY_ACCUMULATION, RANK_PATH_LIMIT, rank_lower_bound
from .timebox import Background, stream, timeboxed
from .windows import OBJECTIVES, anneal_windows, improve_windows

__all__ = ["ANY_ELIMINATION", "DEFAULT_BUDGET", "EFFECTIVE_VERTEX", "best"]

DEFAULT_BUDGET = 2.0  # seconds, when none is given: a default answers in seconds
EFFECTIVE_VERTEX = "vertex elimination, effective mults"  # its key in lower_bounds
ANY_ELIMINATION = "any elimination, effective mults"  # vertex, edge, face: every method's
RESTARTS = 8  # greedy vertex orders with random tie-breaks
ANNEALING_RUNS = 64  # at most; each with its own seed
EDGE_RESTARTS = 4  # greedy edge eliminations with random tie-breaks
FACE_RESTARTS = 2  # greedy face eliminations with random tie-breaks
# intermediates up to which the exact searches run to the end (the effective-cost A*, whose
# bound is weak, only up to here) and one annealing round per start suffices
SMALL = 14
# time kept for building and verifying the winner, in multiples of the time the first
# baseline took (a winner can have more structural multiplications than it)
RESERVE = 1.5
# and this much more (at most 5% of the budget): the winner's build must not miss its
# deadline by milliseconds of timer jitter, handing the win to a costlier built candidate
MARGIN = 0.25
# the family and unit each key of ``info["lower_bounds"]`` bounds
_BOUND_OF_KEY = {
    "vertex elimination": ("vertex elimination", "mults"),
    "edge elimination": ("edge elimination", "mults"),
    EFFECTIVE_VERTEX: ("vertex elimination", "effective mults"),
    ANY_ELIMINATION: ("any elimination", "effective mults"),
    ANY_ACCUMULATION: ("any accumulation", "effective mults"),
}
# the families bounded, narrowest first: a bound on one bounds every narrower one too
FAMILIES = ("vertex elimination", "edge elimination", "any elimination", "any accumulation")
# the structure methods, cheapest first
STRUCTURE = {"layers": layers, "umbrella": umbrella, "dstar": dstar, "zhou": zhou}


class Portfolio:
    """The candidates so far, each priced (effective, structural mults) and either built
    or kept as the moves that build it: vertex orders, edge eliminations, metagraph
    paths (whose vertex moves forward-eliminate every out-edge). A name keeps its first
    candidate unless a cheaper one comes, or one as cheap that is built and verified
    where the first is not built."""

    def __init__(self, graph: DGraph, objective: str = "effective") -> None:
        self.graph = graph
        self.structural = objective == "structural"
        self.price: dict[str, tuple[int, int]] = {}
        self.built: dict[str, ExpressionSet] = {}
        self.moves: dict[str, tuple[str, list]] = {}
        self.orders: dict[str, list[str]] = {}  # the vertex orders among them
        self.given: set[str] = set()  # names held by results computed before best

    def _takes(self, by: str, cost: tuple[int, int], ready: bool = False) -> bool:
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
        if self._takes(by, price(es), es.verified):
            self.price[by] = price(es)
            self.built[by] = es

    def add_moves(self, by: str, moves: list, kind: str = "moves") -> bool:
        by = self.own(by)
        cost = move_costs(self.graph, moves)
        if not self._takes(by, cost):
            return False
        self.price[by] = cost
        self.moves[by] = (kind, moves)
        return True

    def add_order(self, by: str, order: list[str]) -> None:
        if self.add_moves(by, [("vertex", v) for v in order], "order"):
            self.orders[self.own(by)] = order

    def key(self, by: str) -> tuple[int, int]:
        """What ranks ``by``: (effective, structural) mults, (structural, effective) in
        the structural objective."""
        effective, structural = self.price[by]
        return (structural, effective) if self.structural else (effective, structural)

    def ranked(self) -> list[str]:
        """Cheapest first in the objective (:func:`price`); among equals the first added."""
        return sorted(self.price, key=self.key)

    def seconds_to_ready(self, by: str, per_mult: float) -> float:
        """Predicted time to build and verify ``by`` (none when it already is), at
        ``per_mult`` seconds per structural multiplication."""
        if by in self.built and self.built[by].verified:
            return 0.0
        return per_mult * self.price[by][1]

    def cost(self, by: str) -> int:
        """Its multiplications in the objective."""
        return self.key(by)[0]

    def build(self, by: str) -> ExpressionSet:
        if by not in self.built:
            kind, moves = self.moves[by]
            if kind == "order":
                es = vertex_elimination(self.graph, self.orders[by], by)
            elif kind == "metagraph":
                es = edge_moves_expression_set(self.graph, moves, by)
            else:
                es = replay(self.graph, moves, by)
            self.built[by] = es
        return self.built[by]


def best(
    graph: DGraph,
    budget: float | None = None,
    seed: int = 0,
    candidates: Iterable[ExpressionSet] = (),
    objective: str = "effective",
) -> ExpressionSet:
    """The cheapest verified expression set found within ``budget`` seconds, never more
    expensive (:func:`dgraph.core.expressions.price`) than a verified one of
    ``candidates`` (expression sets of ``graph`` computed already, named by method);
    ``seed`` drives its random choices. ``objective`` is what cheapest means: fewest
    ``"effective"`` multiplications (±1 labels free, constants folded), then structural;
    or fewest ``"structural"`` ones (every label general: plain vertex elimination's
    count, AlphaGrad's), then effective. The searches, the bounds and
    ``info["objective_lower_bound"]`` are in that objective.

    >>> from dgraph.core.builders import bundled
    >>> es = best(bundled("naumann_discrepancy.json"), budget=5)
    >>> es.mults, es.verified, es.info["found_by"] in ("edge-optimal", "dstar")
    (13, True, True)
    """
    budget = DEFAULT_BUDGET if budget is None else budget
    if objective not in OBJECTIVES:
        raise InputError(f"best: unknown objective {objective!r}: one of {', '.join(OBJECTIVES)}")
    load_solver()  # SciPy's import, once per process, is not the searches' time
    t0 = time.perf_counter()
    deadline = t0 + budget
    given = _candidates(graph, candidates)
    pool = Portfolio(graph, objective)
    pool.add_order("forward", list(graph.intermediates))
    pool.add_order("reverse", list(reversed(graph.intermediates)))
    started = time.perf_counter()
    pool.add_order("markowitz", markowitz_order(graph))
    greedy_seconds = time.perf_counter() - started  # what one greedy vertex order takes
    started = time.perf_counter()
    first = pool.ranked()[0]
    pool.build(first).verify()
    spent = time.perf_counter() - started
    per_mult = spent / max(1, pool.built[first].mults)
    for es in given:
        pool.add_given(es)
    bounds = _Bounds()
    margin = min(MARGIN, 0.05 * budget)

    def stop() -> float:
        """When the searches end: early enough to build and verify the current winner."""
        need = max(spent, pool.seconds_to_ready(pool.ranked()[0], per_mult))
        return deadline - RESERVE * need - margin

    def left() -> float:
        return stop() - time.perf_counter()

    paths = count_paths(graph)
    if paths <= RANK_PATH_LIMIT and left() > paths * 1e-4:  # ~1 s at the path limit
        bounds.known[ANY_ACCUMULATION] = rank_lower_bound(graph)
    # one annealing run first, on graphs beyond the exact searches: a good order early,
    # the incumbent of the vertex A*, before the structure methods take their share
    if largest_part(graph) > SMALL:
        early = time.perf_counter() + _share(left, 0.2)
        _annealing(graph, pool, lambda: early, seed, range(ANNEALING_RUNS, ANNEALING_RUNS + 1))
    missing = [by for by in STRUCTURE if by not in pool.built]
    for by, es in stream(lambda: _structure_methods(graph, missing), _share(left, 0.4)):
        pool.add_built(by, es)
    bracketing = _bracketing(graph, left)
    try:
        proven = _exact_searches(graph, pool, bounds, left)
        bounds.raise_floor(timeboxed(lambda: elimination_lower_bound(graph), 0.2 * left()))
        unlabeled = not any(graph.constant_label(u, v) is not None for u, v in graph.edges())
        if proven and unlabeled:
            bounds.known[EFFECTIVE_VERTEX] = bounds.known["vertex elimination"]
        if proven and (unlabeled or pool.structural):  # no vertex order is cheaper
            bounds.raise_floor(bracketing.wait(0.2 * left()))
        else:

            def met() -> bool:
                """Whether a candidate meets the bound for every elimination: optimal
                (an effective bound bounds structural mults too)."""
                bounds.raise_floor(bracketing.poll())
                return pool.cost(pool.ranked()[0]) <= bounds.known.get(ANY_ELIMINATION, -1)

            def until_optimal() -> float:
                return time.perf_counter() if met() else stop()

            _heuristics(graph, pool, bounds, until_optimal, greedy_seconds, seed)
            if not met():
                bounds.raise_floor(bracketing.wait(left()))
    finally:
        bracketing.stop()
    return _finish(pool, bounds, per_mult, t0, budget, spent, objective)


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


def _bracketing(graph: DGraph, left: Callable[[], float]) -> Background[int]:
    """The bracketing program in a child process: on a second core, for as long as the
    searches run; else within a fifth of what is left, before they go on."""
    alone = not Background.concurrent()
    seconds = (0.2 if alone else 1.0) * left()
    job = Background(lambda: bracketing_lower_bound(graph, 0.8 * seconds), seconds)
    if alone:
        job.wait(seconds)
    return job


def _share(left: Callable[[], float], fraction: float) -> float:
    """A phase's time: its fraction of what is left, at least half a second of it."""
    return min(left(), max(fraction * left(), 0.5))


class _Bounds:
    """The best lower bound known (on what), and every bound by the family it bounds."""

    def __init__(self) -> None:
        self.lower, self.bounds = 0, "nothing"
        self.known: dict[str, int] = {}

    def prove(self, family: str, bound: int) -> None:
        self.lower, self.bounds = bound, f"{family} (structural mults)"
        self.known[family] = bound

    def typed(self) -> tuple[Bound, ...]:
        """Every bound known, typed: value, family and unit."""
        return tuple(
            Bound(int(value), *_BOUND_OF_KEY[key])
            for key, value in self.known.items()
            if value is not None
        )

    def in_objective(self, objective: str) -> dict[str, int]:
        """The bound known on each family in ``objective`` (a bound on a wider family,
        and in effective mults, which no set has more of than structural, counts too)."""
        best: dict[str, int] = {}
        for key, value in self.known.items():
            family, unit = _BOUND_OF_KEY[key]
            if value is not None and (unit == "effective mults" or objective == "structural"):
                best[family] = max(value, best.get(family, value))
        bounds: dict[str, int] = {}
        for k, family in enumerate(FAMILIES):
            wider = [best[f] for f in FAMILIES[k:] if f in best]
            if wider:
                bounds[family] = max(wider)
        return bounds

    def raise_floor(self, bound: int | None) -> None:
        """A bound for every elimination (the junction or bracketing bound), if any."""
        if bound is not None:
            for key in (ANY_ELIMINATION, EFFECTIVE_VERTEX):
                self.known[key] = max(bound, self.known.get(key, bound))


def _structure_methods(graph: DGraph, names: list[str]) -> Iterator[tuple[str, ExpressionSet]]:
    for by in names:
        yield by, STRUCTURE[by](graph)


def _exact_searches(
    graph: DGraph, pool: Portfolio, bounds: _Bounds, left: Callable[[], float]
) -> bool:
    """The vertex-order A* and, on small graphs, the metagraph search; whether the vertex
    optimum was proven."""
    # A* over eliminated sets often proves the vertex optimum beyond its exhaustive limit,
    # so it always gets a share of the budget
    small = largest_part(graph) <= SMALL  # the searches take independent parts one by one
    share = None if small else max(0.1, 0.3 * left())
    # the A* is structural: the order of fewest structural mults prunes it from the start
    incumbent = pool.orders[min(pool.orders, key=lambda by: pool.price[by][::-1])]
    result = timeboxed(
        lambda: vertex_optimal_search(graph, share, incumbent),
        left() if small else min(left(), 2 * share),
    )
    if result is not None:
        pool.add_order("vertex-optimal", [v for _, v in result.moves])
        bounds.prove("vertex elimination", result.lower_bound)
    inner_edges = intermediate_edge_count(graph)
    if inner_edges <= 2 * EDGE_LIMIT:
        exhaustive = inner_edges <= EDGE_LIMIT
        share = None if exhaustive else max(0.1, 0.3 * left())
        try:
            edges = timeboxed(
                lambda: edge_optimal_search(graph, "full", share),
                left() if exhaustive else min(left(), 2 * share),
            )
        except SearchTooLarge:
            edges = None
        if edges is not None:
            pool.add_moves("edge-optimal", edges.moves, "metagraph")
            bounds.prove("edge elimination", edges.lower_bound)
    return result is not None and result.proven


def _heuristics(
    graph: DGraph,
    pool: Portfolio,
    bounds: _Bounds,
    stop: Callable[[], float],
    greedy_seconds: float,
    seed: int,
) -> None:
    """Greedy orders, restarts, beam, effective A* (small graphs), greedy edges and
    faces, then annealing until ``stop()``; ``seed`` for every random choice."""

    def left() -> float:
        return stop() - time.perf_counter()

    structural = pool.structural
    orders = stream(lambda: _greedy_orders(graph, seed, structural), _share(left, 0.3))
    for by, order in orders:
        pool.add_order(by, order)
    if left() > 4 * greedy_seconds:  # past its deadline the beam finishes greedily
        beam_deadline = time.perf_counter() + 0.2 * left()
        algebra = COUNT if structural else VALUES
        beam = timeboxed(
            lambda: beam_order(graph, deadline=beam_deadline, algebra=algebra), 0.5 * left()
        )
        if beam is not None:
            pool.add_order("beam", beam[1])
    greedy = [by for by in pool.orders if by.startswith(("greedy", "restart"))] or ["markowitz"]
    if not structural and largest_part(graph) <= SMALL and left() > 0:
        top = min(greedy, key=pool.key)
        exact = effective_optimal_search(graph, max(0.1, 0.5 * left()), pool.orders[top])
        pool.add_order("effective-optimal", [v for _, v in exact.moves])
        known = bounds.known.get(EFFECTIVE_VERTEX, 0)
        bounds.known[EFFECTIVE_VERTEX] = max(exact.lower_bound, known)
    runs = stream(lambda: _greedy_edges(graph, seed), _share(left, 0.2))
    if runs:
        pool.add_moves("greedy edges", min(runs, key=lambda r: r[0])[1])
    if count_paths(graph) <= FACE_PATH_LIMIT:  # face states track every path
        faces = stream(lambda: _greedy_faces(graph, seed), _share(left, 0.25))
        if faces:
            pool.add_built("greedy faces", min(faces, key=price))
    _annealing(graph, pool, stop, seed)


def _greedy_orders(
    graph: DGraph, seed: int, structural: bool = False
) -> Iterator[tuple[str, list[str]]]:
    """Every rule with both tie-breaks, then random restarts of the cheapest rule (in
    the objective)."""
    cheapest, rule_of = None, "markowitz" if structural else "effective"
    for rule in RULES:
        for tie in ("forward", "reverse"):
            order = greedy_order(graph, rule, tie)
            cost = move_costs(graph, [("vertex", v) for v in order])
            cost = cost[::-1] if structural else cost
            if cheapest is None or cost < cheapest:
                cheapest, rule_of = cost, rule
            yield f"greedy {rule}/{tie}", order
    rng = random.Random(seed)
    for k in range(RESTARTS):
        yield f"restart {k}", greedy_order(graph, rule_of, rng=rng)


def _greedy_edges(graph: DGraph, seed: int) -> Iterator[tuple[int, list]]:
    rng = random.Random(seed)
    yield greedy_edges(graph)
    for _ in range(EDGE_RESTARTS):
        yield greedy_edges(graph, rng)


def _greedy_faces(graph: DGraph, seed: int) -> Iterator[ExpressionSet]:
    rng = random.Random(seed)
    yield greedy_faces(graph, "forward")
    yield greedy_faces(graph, "reverse")
    for _ in range(FACE_RESTARTS):
        yield greedy_faces(graph, rng=rng)


def _annealing(
    graph: DGraph,
    pool: Portfolio,
    stop: Callable[[], float],
    seed: int,
    runs: range = range(ANNEALING_RUNS),
) -> None:
    """Annealing runs over orders (:func:`dgraph.search.windows.anneal_windows`, each move
    priced on its window), each polished in structural mults by re-ordering windows
    exactly (:func:`dgraph.search.windows.improve_windows`), from the best orders in
    turn, then from its own best, until ``stop()`` (small graphs stop after one round
    per start); every other run after the first round keeps a structure method's
    eliminations as a fixed prefix — the umbrella contractions (each touches nothing
    outside its umbrella) or Zhou's simple chains — and searches the rest:
    preprocessing, kept only where it comes out cheaper."""
    inner = len(graph.intermediates)
    objective = "structural" if pool.structural else "effective"
    starts = sorted(pool.orders, key=pool.key)[:3]
    prefixes = [(by, p) for by, p in _prefixes(pool) if p]
    for run in runs:
        if time.perf_counter() >= stop() or (run >= len(starts) and inner <= SMALL):
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
        cost, order = anneal_windows(
            graph, start, objective, seed=run_seed, deadline=stop(), fixed=fixed
        )
        if pool.structural:
            cost, order = improve_windows(graph, order, deadline=stop())
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
    per_mult: float,
    t0: float,
    budget: float,
    first_seconds: float,
    objective: str,
) -> ExpressionSet:
    """The cheapest candidate that can still be built and verified within the budget
    (the first baseline always can: it already is), under the name ``best``, keeping
    its verification; ``per_mult`` is what building and verifying cost per structural
    multiplication, ``first_seconds`` what the first baseline took. ``info`` says the
    bounds in the objective, the tightest (on vertex elimination, which every wider
    family's bound bounds too) and the widest family none of which costs less: proven
    optimal among it."""
    searched = time.perf_counter() - t0
    by, es = _winner(pool, per_mult, t0 + budget)
    info = {k: v for k, v in es.info.items() if k != "optimal"}
    cost = es.mults if objective == "structural" else es.mults_effective
    in_objective = bounds.in_objective(objective)
    met = [family for family in FAMILIES if in_objective.get(family, -1) >= cost]
    info.update(
        objective=objective,
        objective_bounds=in_objective,
        objective_lower_bound=max(in_objective.values(), default=0),
        optimal_among=met[-1] if met else None,
        proven_optimal=bool(met),
    )
    info.update(
        found_by=by,
        lower_bound=bounds.lower,
        lower_bound_for=bounds.bounds,
        lower_bounds=bounds.known,
        bounds=bounds.typed(),
        candidates={name: [s, e] for name, (e, s) in pool.price.items()},
        search_seconds=round(searched, 3),
    )
    if first_seconds > budget:
        info["budget_note"] = (
            f"building and verifying one expression set took {first_seconds:.1f} s, more"
            f" than the budget of {budget:g} s"
        )
    return es._relabeled("best", info)


def _winner(pool: Portfolio, per_mult: float, end: float) -> tuple[str, ExpressionSet]:
    """The cheapest candidate built and verified by ``end``: the cheapest of those that
    can still be is built and verified in turn (re-priced as built), until one is."""
    failed: set[str] = set()
    while True:
        for by in pool.ranked():
            need = pool.seconds_to_ready(by, per_mult)
            if by not in failed and not (need and time.perf_counter() + need > end):
                break
        else:  # nothing verified: the first baseline, as it is
            by = next(iter(pool.built))
            return by, pool.built[by]
        es = pool.build(by)
        if price(es) != pool.price[by]:
            pool.price[by] = price(es)
        elif es.verified or es.verify():
            return by, es
        else:
            failed.add(by)
