"""``best``: the cheapest verified accumulation dgraph can find within a time budget.

Minimizing multiplications is NP-complete (Naumann 2008), so ``best`` runs a portfolio and
keeps the cheapest result by effective multiplications (±1 labels free), then structural:

1. forward, reverse and Markowitz, then the structure methods — local Jacobians,
   umbrellas, D*, Zhou's factorizer — while half the budget is left;
2. exact searches where affordable: the optimal vertex order (A* over eliminated sets),
   in structural and, on small graphs, effective multiplications
   (:mod:`dgraph.search.effective_optimal`), and the edge-elimination metagraph, each
   proven or cut off by its share of the budget;
3. greedy vertex orders by effective cost, Markowitz degree, fill-in and relative
   Markowitz degree with forward and reverse tie-breaks, randomized restarts, simulated
   annealing over orders until the budget is spent — half of its later runs after
   preprocessing: the umbrella contractions (which touch nothing outside their umbrella)
   or Zhou's simple-chain links fixed first, the rest searched — a beam search, and
   greedy edge and face eliminations priced the same way (front or back edges; free
   faces first, then absorbing ones; forward, reverse and random tie-breaks).

Every candidate that could win is built as an expression set and verified. ``info``
says which search found the winner (``found_by``), the best lower bound known and what it
bounds (``lower_bounds`` adds the effective-cost bounds: the exact effective vertex search
and, for any accumulation, the rank of Bauer's entries — :mod:`dgraph.search.rank_bound`),
and the cost of every candidate.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import time

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.paths import count_paths
from ..dominance.dstar import dstar
from ..dominance.umbrella_method import umbrella
from ..elimination.labeled import replay
from ..elimination.metagraph import EDGE_LIMIT, edge_optimal, intermediate_edge_count
from ..elimination.vertex import forward, markowitz, reverse, vertex_elimination
from ..elimination.vertex_optimal import vertex_optimal
from ..errors import SearchTooLarge
from ..faces.elimination import FACE_PATH_LIMIT
from ..faces.greedy import greedy_faces
from ..zhou.factorize import zhou
from ..zhou.layers import layers
from .effective_optimal import effective_optimal_search
from .kinds import effective_cost
from .orders import RULES, anneal, beam_order, greedy_edges, greedy_order, randomized_orders
from .rank_bound import ANY_ACCUMULATION, rank_lower_bound

__all__ = ["DEFAULT_BUDGET", "best"]

DEFAULT_BUDGET = 10.0  # seconds, when none is given
EDGE_RESTARTS = 4  # greedy edge eliminations with random tie-breaks
FACE_RESTARTS = 2  # greedy face eliminations with random tie-breaks
# intermediates up to which the exact searches run to the end (the effective-cost A*, whose
# bound is weak, only up to here) and one annealing round per start suffices
SMALL = 14
BASELINES = {"forward": forward, "reverse": reverse, "markowitz": markowitz}
# the structure methods, cheapest first: each starts only while half the budget is left
STRUCTURE = {"layers": layers, "umbrella": umbrella, "dstar": dstar, "zhou": zhou}


def _key(es: ExpressionSet) -> tuple[int, int]:
    return es.mults_effective, es.mults


def best(graph: DGraph, budget: float | None = None) -> ExpressionSet:
    """The cheapest verified expression set found within ``budget`` seconds.

    >>> from dgraph.core.builders import bundled
    >>> es = best(bundled("naumann_discrepancy.json"), budget=5)
    >>> es.mults, es.verified, es.info["found_by"] in ("edge-optimal", "dstar")
    (13, True, True)
    """
    budget = DEFAULT_BUDGET if budget is None else budget
    t0 = time.perf_counter()
    deadline = t0 + budget
    costs: dict[str, list[int]] = {}
    found: list[tuple[ExpressionSet, str]] = []

    def consider(es: ExpressionSet, by: str) -> None:
        costs[by] = [es.mults, es.mults_effective]
        found.append((es, by))

    def time_left() -> bool:
        return time.perf_counter() < deadline

    for name, method in BASELINES.items():
        consider(method(graph), name)
    for name, method in STRUCTURE.items():
        if deadline - time.perf_counter() > budget / 2:  # one of them can take a second
            consider(method(graph), name)
    lower, bounds = 0, "nothing"
    inner = len(graph.intermediates)
    # A* over eliminated sets often proves the vertex optimum far beyond its exhaustive
    # limit (40 intermediates on the heart dipole), so it always gets a share of the budget
    share = None if inner <= SMALL else max(0.1, 0.3 * (deadline - time.perf_counter()))
    es = vertex_optimal(graph, share)
    consider(es, "vertex-optimal")
    lower, bounds = es.info["lower_bound"], "vertex elimination (structural mults)"
    known = {"vertex elimination": lower}
    rank = rank_lower_bound(graph)
    if rank is not None:
        known[ANY_ACCUMULATION] = rank
    inner_edges = intermediate_edge_count(graph)
    if inner_edges <= 2 * EDGE_LIMIT:
        share = None if inner_edges <= EDGE_LIMIT else 0.3 * (deadline - time.perf_counter())
        with contextlib.suppress(SearchTooLarge):
            es = edge_optimal(graph, budget=share if share is None else max(0.1, share))
            consider(es, "edge-optimal")
            bound = es.info.get("lower_bound", es.mults)
            lower, bounds = bound, "edge elimination (structural mults)"
            known["edge elimination"] = bound
    proven = any(by == "vertex-optimal" and es.info.get("optimal") for es, by in found)
    if proven and not any(graph.constant_label(u, v) is not None for u, v in graph.edges()):
        known["vertex elimination, effective mults"] = known["vertex elimination"]
        return _finish(
            graph, found, costs, (lower, bounds, known), t0
        )  # no order beats the optimum
    # heuristic vertex orders, priced on the structure; only the winner is built
    orders: dict[str, list[str]] = {}
    for rule in RULES:
        for tie in ("forward", "reverse"):
            orders[f"greedy {rule}/{tie}"] = greedy_order(graph, rule, tie)
    priced = {name: effective_cost(graph, order) for name, order in orders.items()}
    top = min(priced, key=priced.get)
    if time_left():
        restarts = randomized_orders(graph, top.split()[1].split("/")[0], 8)
        for k, order in enumerate(restarts):
            priced[f"restart {k}"], orders[f"restart {k}"] = effective_cost(graph, order), order
    if time_left():
        priced["beam"], orders["beam"] = beam_order(graph, deadline=deadline)
    if inner <= SMALL and time_left():
        share = max(0.1, 0.3 * (deadline - time.perf_counter()))
        exact = effective_optimal_search(graph, share, orders[top])
        priced["effective-optimal"] = exact.cost
        orders["effective-optimal"] = [v for _, v in exact.moves]
        known["vertex elimination, effective mults"] = exact.lower_bound
    for es, by in _greedy_eliminations(graph, deadline):
        consider(es, by)
    # annealing runs from the best orders in turn, then from its own best, until the budget
    # is spent (small graphs stop after one round per start); every other run after the
    # first round keeps a structure method's eliminations as a fixed prefix — the umbrella
    # contractions (each touches nothing outside its umbrella) or Zhou's simple chains —
    # and searches the rest: preprocessing, kept only where it comes out cheaper
    steps = 400 * max(1, inner)
    starts = sorted(priced, key=priced.get)[:3]
    prefixes = [(by, p) for by, p in _prefixes(found) if p]
    for run in range(64):
        if not time_left() or (run >= len(starts) and inner <= SMALL):
            break
        name = starts[run] if run < len(starts) else min(priced, key=priced.get)
        start, fixed, label = orders[name], 0, "annealing"
        if prefixes and run >= len(starts) and run % 2:
            by, prefix = prefixes[run // 2 % len(prefixes)]
            chosen = set(prefix)
            start, fixed = prefix + [v for v in start if v not in chosen], len(prefix)
            label = f"{by} + annealing"
        cost, order = anneal(graph, start, deadline, steps, seed=run, fixed=fixed)
        if cost < min(priced.values()):
            priced[label], orders[label] = cost, order
    winner = min(priced, key=priced.get)
    consider(vertex_elimination(graph, orders[winner], "best"), winner)
    return _finish(graph, found, costs, (lower, bounds, known), t0)


def _greedy_eliminations(graph: DGraph, deadline: float) -> list[tuple[ExpressionSet, str]]:
    """The cheapest greedy edge elimination and greedy face elimination, each over its
    tie-breaks and random restarts; a run starts only if the time left exceeds what the
    previous run of its kind took (a face run costs a second on a large graph)."""
    rng = random.Random(0)
    edge_runs = _timed_runs(
        [lambda: greedy_edges(graph)] + [lambda: greedy_edges(graph, rng)] * EDGE_RESTARTS,
        deadline,
    )
    out = []
    if edge_runs:
        moves = min(edge_runs, key=lambda r: r[0])[1]
        out.append((replay(graph, moves, "best"), "greedy edges"))
    if count_paths(graph) <= FACE_PATH_LIMIT:  # face states track every path
        face_runs = _timed_runs(
            [lambda: greedy_faces(graph, "forward"), lambda: greedy_faces(graph, "reverse")]
            + [lambda: greedy_faces(graph, rng=rng)] * FACE_RESTARTS,
            deadline,
        )
        if face_runs:
            out.append((min(face_runs, key=_key), "greedy faces"))
    return out


def _timed_runs(runs: list, deadline: float) -> list:
    """The results of ``runs`` in turn, while each can be expected to end by ``deadline``."""
    results, last = [], 0.0
    for run in runs:
        started = time.perf_counter()
        if started + last >= deadline:
            break
        results.append(run())
        last = time.perf_counter() - started
    return results


def _prefixes(found: list[tuple[ExpressionSet, str]]) -> list[tuple[str, list[str]]]:
    """Preprocessing orders: the vertices the umbrella method eliminated inside umbrellas
    and the links Zhou's simple reduction eliminated from chains (intermediates, each
    once), in each method's order."""
    ops = {"umbrella": "umbrella ", "zhou": "chain"}
    return [
        (by, [s.target for s in es.steps if s.op.startswith(ops[by])])
        for es, by in found
        if by in ops
    ]


def _finish(graph, found, costs, bound: tuple, t0: float) -> ExpressionSet:
    es, by = min(found, key=lambda f: _key(f[0]))
    es = _renamed(es, by, costs, bound, time.perf_counter() - t0)
    es.verify()
    return es


def _renamed(es: ExpressionSet, by: str, costs, bound: tuple, seconds: float):
    """The winner under the name ``best``, with what the search knows."""
    lower, bounds, known = bound
    info = {k: v for k, v in es.info.items() if k != "optimal"}
    info.update(
        found_by=by,
        lower_bound=lower,
        lower_bound_for=bounds,
        lower_bounds=known,
        candidates=costs,
        search_seconds=round(seconds, 3),
    )
    return dataclasses.replace(es, method="best", info=info, verification=None)
