"""Comparing accumulation methods on one graph: every result verified, the cheapest in an
objective — by the one rule :func:`dgraph.core.expressions.price` (effective, then
structural multiplications) or structural first, as ``best`` ranks — and the lower
bounds of the searches."""

from __future__ import annotations

import io
import math
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from ..blocks import RECENT
from ..core.budget import CEILING_SLACK, CPU, Deadline
from ..core.display import Printable
from ..core.expressions import ExpressionSet, price
from ..core.graph import DGraph
from ..core.paths import naive_cost
from ..core.progress import in_notebook, method_progress
from ..errors import InputError, SearchTooLarge
from ..search.best import ANY_ELIMINATION, winner_seconds
from ..search.rank_bound import ANY_ACCUMULATION
from ..search.timebox import ChildDied, timeboxed, warm
from ..search.windows import OBJECTIVES
from .registry import COMPARED, accumulate, lookup

__all__ = ["MIN_SHARE", "Comparison", "LowerBound", "compare", "compare_ceiling"]

MIN_SHARE = 0.05  # seconds: a search given less than this is skipped
# the time ceiling of a comparison (:func:`compare_ceiling`, CPU time: dgraph.core.budget):
# this × the budget plus SLACK_SHARE × budget.CEILING_SLACK; without a budget, as for
# DEFAULT_SECONDS
CEILING_FACTOR = 1.25
SLACK_SHARE = 0.5
DEFAULT_SECONDS = 4.0
# the searches' counted work finishes in about its seconds when idle, at most twice that
# when loaded: this × it is kept for them (at most half the ceiling)
RESERVE_FACTOR = 1.5
IN_PROCESS_EDGES = 200  # graphs up to this run every method in-process
# a method is started in a child only where its slice is at least this share of what
# building and verifying one set takes on a loaded machine (best.winner_seconds): about
# what it takes on an idle one; a shorter slice could only be cut
START_SHARE = 1 / 3
# the fraction of ``compare --budget`` the searches share: the rest is for what the work
# budget does not count, the methods that are not searches and codegen's choice
SEARCH_FRACTION = 0.6


class LowerBound(NamedTuple):
    """A proven lower bound of a comparison's searches and the accumulations it bounds."""

    mults: int  # at least this many multiplications
    bounds: str  # for these accumulations, e.g. "vertex elimination (structural mults)"


@dataclass
class Comparison(Printable):
    """Every compared method's result (or why it was skipped) and the cheapest verified.

    Parameters
    ----------
    graph
        The graph compared on.
    results
        Each method's expression set, by method name, in the table's order.
    skipped
        Each method not run (or cut), with why, in one line.
    objective
        What ranks the results: ``"effective"`` multiplications first, or
        ``"structural"`` first.
    cut_by_time
        Whether the time ceiling cut a method or ``best``'s search (the result may
        then differ between runs).

    See Also
    --------
    dgraph.methods.compare.compare : runs the methods and builds one.
    """

    rich_formats = ("html", "markdown")

    graph: DGraph
    results: dict[str, ExpressionSet] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    objective: str = "effective"
    cut_by_time: bool = False  # whether the time ceiling cut a method (or best's search)

    def key(self, es: ExpressionSet) -> tuple[int, int]:
        """What ranks ``es`` in the objective: (effective, structural) mults, or
        (structural, effective) in the structural one."""
        effective, structural = price(es)
        if self.objective == "structural":
            return structural, effective
        return effective, structural

    @property
    def cheapest(self) -> ExpressionSet | None:
        """The cheapest verified result, as ``best`` ranks in the objective: fewest
        effective, then structural multiplications (the other way round in the structural
        objective), then the earliest in the table."""
        verified = [es for es in self.results.values() if es.verified]
        return min(verified, key=self.key) if verified else None

    @property
    def best(self) -> str | None:
        """The method of :attr:`cheapest`."""
        cheapest = self.cheapest
        return None if cheapest is None else cheapest.method

    @property
    def lower_bound(self) -> LowerBound | None:
        """The lower bound of the most general search that ran, and what it bounds: an
        edge-elimination bound also bounds vertex elimination, not the other way round."""
        families = {
            "best": None,
            "edge-optimal": "edge elimination (structural mults)",
            "vertex-optimal": "vertex elimination (structural mults)",
        }
        for method, family in families.items():
            es = self.results.get(method)
            if es is not None and es.info.get("lower_bound"):
                what = es.info.get("lower_bound_for") or family
                if self.graph.is_tensor:  # priced over Jacobian blocks
                    what = what.replace("structural mults", "mults over blocks")
                return LowerBound(es.info["lower_bound"], what)
        return None

    @property
    def effective_lower_bound(self) -> int | None:
        """Effective multiplications every accumulation needs (``best``'s rank bound)."""
        es = self.results.get("best")
        return None if es is None else es.info.get("lower_bounds", {}).get(ANY_ACCUMULATION)

    @property
    def elimination_lower_bound(self) -> int | None:
        """Effective multiplications every elimination — every method here — needs
        (``best``'s junction bound: :mod:`dgraph.search.junction_bounds`)."""
        es = self.results.get("best")
        return None if es is None else es.info.get("lower_bounds", {}).get(ANY_ELIMINATION)

    @property
    def edge_elimination(self) -> dict[str, Any] | None:
        """``best``'s proven bound on every edge elimination, its cheapest edge (or vertex)
        elimination and the gap, structural mults (:mod:`dgraph.search.edge_bound`)."""
        es = self.results.get("best")
        report = None if es is None else es.info.get("edge_elimination")
        return None if report is None else dict(report)  # the info is read-only

    def rows(self) -> list[dict[str, Any]]:
        """Per method: its summary, ``gap``, its structural mults minus those of the
        cheapest verified result (:attr:`cheapest`; negative: fewer structural but more
        effective multiplications), and ``to_bound``, its distance from the lower bound
        (negative: a method outside the family the bound covers, such as D* below a
        vertex-elimination bound)."""
        cheapest = self.cheapest
        bound = self.lower_bound
        rows = [
            {
                **es.summary(),
                "gap": es.mults - cheapest.mults if cheapest is not None else None,
                "to_bound": es.mults - bound.mults if bound else None,
            }
            for es in self.results.values()
        ]
        rows += [{"method": m, "skipped": why} for m, why in self.skipped.items()]
        return rows

    def to_dict(self) -> dict[str, Any]:
        bound = self.lower_bound
        fixed = dict(self.graph.fixed_parameters)  # closed over: they fix the structure
        return {
            **({"fixed_parameters": fixed} if fixed else {}),
            "methods": self.rows(),
            "objective": self.objective,
            "best": self.best,
            "naive_mults": naive_cost(self.graph),
            "lower_bound": bound.mults if bound else None,
            "lower_bound_for": bound.bounds if bound else None,
            "effective_lower_bound": self.effective_lower_bound,
            "elimination_lower_bound": self.elimination_lower_bound,
            "edge_elimination": self.edge_elimination,
            "cut_by_time": self.cut_by_time,
        }


_PASSED = "the time ceiling had passed (the methods before it used it)"


class _OutOfTime(Exception):
    """A method that did not finish before the time ceiling."""


class _Died(Exception):
    """A method whose child process died without its result."""


def _within(graph: DGraph, name: str, end: Deadline, options: dict[str, Any]) -> ExpressionSet:
    """``name``'s verified result, run in a child killed at the ceiling ``end`` (CPU time
    with a wall-clock backstop: a method that is not a search has no budget of its own,
    and on a large graph it may take minutes); not started where less time is left than
    building and verifying one set of ``graph`` takes (:data:`START_SHARE` of
    :func:`~dgraph.search.best.winner_seconds`, a count): it could only be cut."""
    left = end.left()
    if left <= 0:
        raise _OutOfTime(f"not run: {_PASSED}")
    need = START_SHARE * winner_seconds(graph)
    if left < need:
        raise _OutOfTime(
            f"not run: its {left:.1f} s of the time ceiling is less than building and"
            f" verifying a set on {graph.n_edges:,} edges takes (about {need:.1f} s)"
        )
    try:
        sent = timeboxed(partial(_run, graph, name, options), end)
    except ChildDied as exc:
        raise _Died(f"its process died: {exc}") from None
    if sent is None:
        if (end.passed() or CPU) == CPU:
            raise _OutOfTime(f"cut by the time ceiling: did not finish in its {left:.1f} CPU s")
        raise _OutOfTime(
            "cut by the time ceiling's wall-clock backstop: it got too little CPU time"
            f" to finish its {left:.1f} CPU s"
        )
    return _GraphGiven(io.BytesIO(sent), graph).load().moved_to(graph)


def _run(graph: DGraph, name: str, options: dict[str, Any]) -> bytes:
    """``name``'s result, priced and pickled without ``graph``: what a child process runs
    and sends back. The caller has the same graph; a copy would be unpickled only to be
    dropped, and that rebuilds every vertex's expression."""
    es = _priced(accumulate(graph, name, **options))
    buffer = io.BytesIO()
    _GraphAside(buffer, graph).dump(es)
    return buffer.getvalue()


class _GraphAside(pickle.Pickler):
    """Pickles everything but one graph, which it names (:class:`_GraphGiven` puts the
    caller's in its place)."""

    def __init__(self, file: io.BytesIO, graph: DGraph) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.graph = graph

    def persistent_id(self, obj: Any) -> str | None:
        return "graph" if obj is self.graph else None


class _GraphGiven(pickle.Unpickler):
    """Unpickles what :class:`_GraphAside` pickled, with ``graph`` where it named one."""

    def __init__(self, file: io.BytesIO, graph: DGraph) -> None:
        super().__init__(file)
        self.graph = graph

    def persistent_load(self, pid: Any) -> DGraph:
        if pid != "graph":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.graph


def _priced(es: ExpressionSet) -> ExpressionSet:
    """``es`` with its cost computed (it travels with the set), so that pricing counts
    within the budget rather than after it (seconds on large sets)."""
    _ = es.cost
    return es


def compare(
    graph: DGraph,
    methods: list[str] | None = None,
    budget: float | None = None,
    seed: int = 0,
    *,
    objective: str = "effective",
    each: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    deadline: Deadline | None = None,
    ceiling_slack: float = CEILING_SLACK,
    in_process_edges: int = IN_PROCESS_EDGES,
) -> Comparison:
    """Run several accumulation methods on one graph, verify each, and rank them.

    ``best`` runs last, the other results among its candidates, so it is never more
    expensive than any of them; the rows keep the order of ``methods``. Exact methods too
    large for the graph are skipped with the reason.

    The whole comparison keeps a time ceiling (:func:`compare_ceiling`, also without
    a budget: every search its default then), counted in CPU time with a wall-clock
    backstop (:mod:`dgraph.core.budget`: a loaded machine does not cut it sooner). On
    graphs of more than ``in_process_edges`` edges every method that is not a search
    runs in a child process killed at the end of its equal slice of what the searches
    leave (even forward mode: its exact check on a long chain takes seconds), not
    started where the slice is shorter than building and verifying one set takes
    (:data:`START_SHARE` of :func:`~dgraph.search.best.winner_seconds`, a count); the
    other searches run their counted work there too, killed at the ceiling (less what
    ``best`` needs for its winner); ``best`` keeps the ceiling itself, and a search it
    has passed does not start. A method cut there is skipped, saying so, ``best`` does
    not run it again, and ``cut_by_time`` says the comparison may differ from run to run.

    Parameters
    ----------
    graph
        The differentiation graph.
    methods
        Registered method names; default :data:`COMPARED`.
    budget
        Seconds of the whole comparison, codegen's choice included, given as work
        (:mod:`dgraph.search.best`): the searches share :data:`SEARCH_FRACTION` of it
        equally, a fixed work budget each however long the others took, so the same graph,
        budget and seed give the same comparison on every machine; the rest is for what no
        work budget counts.
    seed
        Drives the searches' random choices.
    objective
        What cheapest means, for the winner and for ``best``'s search: ``"effective"``
        or ``"structural"`` multiplications first (:func:`dgraph.search.best.best`).
    each
        Give every search the whole ``budget`` (the benchmarks' setting) and run every
        method in-process, with no ceiling.
    progress
        ``progress(method, k, n)``, called before the k-th of n methods runs; without it,
        in Jupyter, a bar shows which method runs once the comparison has taken two
        seconds.
    deadline
        A :class:`~dgraph.core.budget.Deadline` that ends the comparison before its
        ceiling would: ``dgraph compare`` keeps its ceiling for the whole command, counted from
        the process's start, and the rest for codegen's choice.
    ceiling_slack
        The slack of the ceiling (:func:`compare_ceiling`), in seconds.
    in_process_edges
        The most edges on which every method runs in-process.

    Returns
    -------
    Comparison
        Every method's verified result or why it was skipped, the cheapest, the bounds.

    Raises
    ------
    InputError
        For an unknown ``objective``.
    DGraphError
        For an unknown method name.
    """
    if objective not in OBJECTIVES:
        raise InputError(
            f"compare: unknown objective {objective!r}: one of {', '.join(OBJECTIVES)}"
        )
    limits = _Limits(ceiling_slack, in_process_edges)
    if progress is None and in_notebook():
        with method_progress(True) as bar:
            return _compare(graph, methods, budget, seed, objective, each, bar, deadline, limits)
    return _compare(graph, methods, budget, seed, objective, each, progress, deadline, limits)


def compare_ceiling(budget: float | None, slack: float = CEILING_SLACK) -> float:
    """The time ceiling of a whole comparison, in CPU seconds
    (:func:`dgraph.core.budget.now`; its wall-clock backstop
    :data:`~dgraph.core.budget.BACKSTOP_FACTOR` × as long).

    Parameters
    ----------
    budget
        The comparison's budget in seconds; None: :data:`DEFAULT_SECONDS`.
    slack
        The ceiling slack (:data:`dgraph.core.budget.CEILING_SLACK`), of which
        :data:`SLACK_SHARE` is kept for starting processes and building the results.

    Returns
    -------
    float
        :data:`CEILING_FACTOR` × the budget plus that share, in seconds: within 1.5 × the
        budget from 20 s up.
    """
    seconds = DEFAULT_SECONDS if budget is None else budget
    return CEILING_FACTOR * seconds + SLACK_SHARE * slack


class _Limits(NamedTuple):
    """A comparison's tuning: the ceiling's slack, the most edges run in-process."""

    ceiling_slack: float = CEILING_SLACK
    in_process_edges: int = IN_PROCESS_EDGES


def _compare(
    graph: DGraph,
    methods: list[str] | None,
    budget: float | None,
    seed: int,
    objective: str,
    each: bool,
    progress: Callable[[str, int, int], None] | None,
    deadline: Deadline | None,
    limits: _Limits,
) -> Comparison:
    names = list(dict.fromkeys(methods or COMPARED))
    order = sorted(names, key=lambda name: name == "best")
    searches = [n for n in order if "budget" in lookup(n).options]
    plan = None if each else _Plan(graph, order, searches, budget, deadline, limits)
    if plan is not None and plan.boxed:
        warm()
        # the local partials, derived lazily and cached on the graph, once here: a child
        # process's cache dies with it, so every method run in one would derive them again
        graph.has_partials()
    comparison = Comparison(graph, objective=objective)
    cut: list[str] = []  # structure methods the ceiling cut: best does not run them again
    for k, name in enumerate(order, start=1):
        if progress is not None:
            progress(name, k, len(order))
        share = budget
        if graph.is_tensor and lookup(name).scalar_only:
            comparison.skipped[name] = "prices its search over scalar labels, not blocks"
            continue
        if budget is not None and not each and name in searches:
            share = SEARCH_FRACTION * budget / len(searches)
            if share < MIN_SHARE:
                comparison.skipped[name] = (
                    f"its share of the budget of {budget:g} s is below {MIN_SHARE:g} s"
                )
                continue
        options: dict[str, Any] = {"budget": share} if name in searches else {}
        if name == "best":
            options.update(seed=seed, candidates=list(comparison.results.values()))
            if objective != "effective":  # best's default: a stand-in without it still runs
                options["objective"] = objective
            if plan is not None and "ceiling" in lookup(name).options:  # best's own: the rest
                options["ceiling"] = plan.left()
            if cut and "skip" in lookup(name).options:
                options["skip"] = list(cut)
        try:
            if plan is not None and name in searches and plan.left() <= 0:
                raise _OutOfTime(f"not run: {_PASSED}")
            if plan is None or not plan.boxed or "ceiling" in lookup(name).options:
                # in-process: a small graph, or best, which keeps its own ceiling
                comparison.results[name] = _priced(accumulate(graph, name, **options))
            elif name in searches:  # its counted work, stopped at the ceiling
                comparison.results[name] = _within(graph, name, plan.search_end(), options)
            else:
                comparison.results[name] = _within(graph, name, plan.slice(name), options)
        except _OutOfTime as exc:
            comparison.skipped[name] = str(exc)
            comparison.cut_by_time = True
            cut.append(name)
        except (SearchTooLarge, _Died) as exc:
            comparison.skipped[name] = str(exc)
            cut.append(name)
    best = comparison.results.get("best")
    if best is not None and best.info.get("cut_by_time"):
        comparison.cut_by_time = True
    comparison.results = {n: comparison.results[n] for n in names if n in comparison.results}
    comparison.skipped = {n: comparison.skipped[n] for n in names if n in comparison.skipped}
    RECENT.clear()  # the block products and sums the methods shared: not past the call
    return comparison


class _Plan:
    """How a comparison spends its time ceiling (:func:`compare_ceiling`, CPU time with a
    wall-clock backstop): the searches' counted work reserved for them, and what is left
    shared among the methods that are not searches, each in a child process killed at the
    end of its slice (a method without a budget of its own may take minutes on a large
    graph). On graphs of at most ``in_process_edges`` edges every method runs in-process:
    a count decides. A ``deadline`` before the ceiling ends it there."""

    def __init__(
        self,
        graph: DGraph,
        order: list[str],
        searches: list[str],
        budget: float | None,
        deadline: Deadline | None,
        limits: _Limits,
    ) -> None:
        self.end = Deadline(compare_ceiling(budget, limits.ceiling_slack), within=deadline)
        span = self.end.left()
        self.boxed = graph.nx.number_of_edges() > limits.in_process_edges
        counted = DEFAULT_SECONDS if budget is None else SEARCH_FRACTION * budget
        reserve = counted * RESERVE_FACTOR if searches else 0.0
        self.others_end = self.end.earlier(min(reserve, span / 2))
        self.waiting = [n for n in order if n not in searches]
        self.winner = winner_seconds(graph)

    def left(self) -> float:
        """CPU seconds until the ceiling (0 once it, or its backstop, has passed)."""
        return self.end.left()

    def search_end(self) -> Deadline:
        """The end of a search run in a child: the ceiling, less what ``best`` needs to
        build and verify its winner after it."""
        return self.end.earlier(self.winner)

    def slice(self, name: str) -> Deadline:
        """The end of ``name``'s slice: an equal part of the CPU time left for the
        methods that are not searches, within their end's wall-clock backstop."""
        waiting = self.waiting
        if name in waiting:
            waiting.remove(name)
        share = self.others_end.left() / (len(waiting) + 1)
        return Deadline(share, math.inf, within=self.others_end)
