"""Hessians by name: :func:`accumulate_hessian` and :func:`compare_hessian` run the Hessian
methods (:mod:`dgraph.second_order`) and any Jacobian method on Dixon's Hessian graph
(:func:`dgraph.core.hessian_graph.hessian_graph`), whose Jacobian is the Hessian, and
verify every result as :func:`dgraph.accumulate` does.

Counts: ``mults`` is what the expression set spells (Bauer's formula checks every
product of it): the lower triangle for edge pushing and symmetric elimination, every
entry for forward-over-reverse and the Jacobian methods; the pair eliminations also give
``info["mults_symmetric"]``, each pair of mirrored products once (the papers' count).
:func:`compare_hessian` ranks every method on one basis, the lower triangle (what a
symmetric consumer reads, and what the proven bound is of): a set written for every
entry is priced by its lower triangle (:func:`~dgraph.second_order.lower_triangle`, the
entries ``i ≥ j`` and the references they use), so a count of every entry is never
ranked against a lower triangle's; every row also carries its counts of every entry (the
pair eliminations' whole elimination as written). It reports a lower bound for every
count, symmetric ones included: the lower-triangle entries with a path of two edges or
more each need a multiplication of their own (:mod:`dgraph.second_order.bound`, proven
there), set against the lower-triangle counts (``to_bound``). A search's bounds
(``best``, ``vertex-optimal``, ``edge-optimal``) bound the accumulation of *every* entry
of the Hessian graph's Jacobian, and a lower triangle may cost less (edge pushing's 16
against a vertex-elimination bound of 21 in ``tests/test_hessian_methods.py``): they are
kept apart, as :attr:`HessianComparison.search_lower_bound` and the ``search_`` fields of
:meth:`HessianComparison.to_dict`, set against the counts of every entry
(``search_to_bound``), and the bounds a :class:`Comparison` claims for every method it
holds (``effective_lower_bound``, ``elimination_lower_bound``, ``edge_elimination``) are
``None`` on a Hessian comparison. Its rows say what each count as written is of
(``counts``: lower triangle or every entry), the basis of the ranking (``ranked_on``)
and what a search's proof ranges over (``proven_for``: family, mults and count), as its
rendered tables do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.costs import Cost
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.hessian_graph import hessian_graph
from ..errors import DGraphError
from ..second_order import (
    HESSIAN_BOUND_FOR,
    HESSIAN_METHODS,
    hessian_lower_bound,
    lower_triangle,
)
from .compare import Comparison, LowerBound, compare
from .registry import METHODS, accumulate

__all__ = ["COMPARED_HESSIAN", "HessianComparison", "accumulate_hessian", "compare_hessian"]

COMPARED_HESSIAN = ("forward-over-reverse", "edge-pushing", "symmetric", "reverse", "markowitz")
# what a Jacobian search's bound covers on the Hessian graph: every entry, not a triangle
SEARCH_SCOPE = ", every entry of the Hessian graph's Jacobian (not a lower triangle)"
# what a row's count is of (HessianComparison.rows' "counts")
LOWER, EVERY = "lower triangle", "every entry"
# the family a search's optimality proof or bound ranges over (HessianComparison.rows'
# "proven_for"; best's is the widest family it met, info["optimal_among"])
SEARCH_FAMILY = {"vertex-optimal": "vertex elimination", "edge-optimal": "edge elimination"}


def accumulate_hessian(
    g: DGraph,
    method: str = "symmetric",
    weights: Mapping[str, float] | None = None,
    **options: Any,
) -> ExpressionSet:
    """The Hessian of ``g`` (of ``λᵀy`` for several outputs), accumulated and verified.

    Parameters
    ----------
    g
        A scalar graph.
    method
        ``"forward-over-reverse"``, ``"edge-pushing"``, ``"symmetric"``, or any Jacobian
        method's name (:data:`dgraph.METHODS`), run on the Hessian graph.
    weights
        The outputs' weights (:func:`~dgraph.core.hessian_graph.hessian_graph`).
    **options
        A Jacobian method's options (``budget``, ...).

    Returns
    -------
    ExpressionSet
        On ``hessian_graph(g, weights)``: entries ``(x̄_i, x_j)`` = ``∂²(λᵀy)/∂x_i∂x_j``;
        edge pushing and symmetric elimination give those with ``i ≥ j`` only
        (``info["triangle"] == "lower"``; ``lower=False`` for all).

    Examples
    --------
    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> g = from_sympy(x * y + sympy.sin(x), [x, y])
    >>> accumulate_hessian(g, "forward-over-reverse").evaluate([0.5, 0.3]).round(4).tolist()
    [[-0.4794, 1.0], [1.0, 0.0]]
    >>> es = accumulate_hessian(g, "edge-pushing")  # the lower triangle, for a mirror
    >>> es.evaluate([0.5, 0.3]).round(4).tolist(), es.info["triangle"]
    ([[-0.4794, 0.0], [1.0, 0.0]], 'lower')
    """
    _known([method])
    H = hessian_graph(g, weights)
    return _run(H, method, options)


def _known(methods: Sequence[Any]) -> None:
    """One line for a name that is neither a Hessian method nor a Jacobian one, listing
    both (the Jacobian methods' own message left the Hessian ones out)."""
    for m in methods:
        if isinstance(m, str) and m not in HESSIAN_METHODS and m not in METHODS:
            raise DGraphError(
                f"unknown method {m!r:.60}; use {', '.join(HESSIAN_METHODS)} or a Jacobian"
                f" method ({', '.join(METHODS)})"
            )


def _run(H: DGraph, method: str, options: dict[str, Any]) -> ExpressionSet:
    if method in HESSIAN_METHODS:
        return accumulate(H, HESSIAN_METHODS[method], **options)
    return accumulate(H, method, **options)


def compare_hessian(
    g: DGraph,
    methods: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    **options: Any,
) -> Comparison:
    """Run Hessian and Jacobian methods on the Hessian graph of ``g`` and rank them.

    Parameters
    ----------
    g
        A scalar graph.
    methods
        Method names (default :data:`COMPARED_HESSIAN`); Jacobian ones run through
        :func:`dgraph.compare` with ``options``.
    weights
        The outputs' weights.

    Returns
    -------
    HessianComparison
        On the Hessian graph, the results in the order of ``methods``, ranked by their
        lower triangles' counts (:attr:`HessianComparison.ranked_on`; a set of every
        entry priced by its lower triangle); ``lower_bound`` bounds every count, symmetric
        ones included (:func:`~dgraph.second_order.bound.hessian_lower_bound`).

    Examples
    --------
    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> c = compare_hessian(from_sympy(sympy.sin(x * y), [x, y]), ["symmetric"])
    >>> c.lower_bound.mults <= c.results["symmetric"].info["mults_symmetric"]
    True
    """
    names = list(dict.fromkeys(methods or COMPARED_HESSIAN))
    _known(names)
    H = hessian_graph(g, weights)
    jacobian = [m for m in names if m not in HESSIAN_METHODS]
    searched = compare(H, jacobian, **options) if jacobian else Comparison(H, **_objective(options))
    results = {m: _run(H, m, {}) for m in names if m in HESSIAN_METHODS}
    results.update(searched.results)
    return HessianComparison(
        H,
        {m: results[m] for m in names if m in results},
        searched.skipped,
        searched.objective,
        searched.cut_by_time,
        hessian_bound=LowerBound(hessian_lower_bound(H), HESSIAN_BOUND_FOR),
    )


@dataclass
class HessianComparison(Comparison):
    """A :class:`~dgraph.methods.compare.Comparison` on a Hessian graph, ranked on one
    basis for every method, the lower triangle (:attr:`ranked_on`): a method written for
    every entry is priced by its set's lower triangle
    (:func:`~dgraph.second_order.triangle.lower_triangle`: the entries ``i ≥ j`` and the
    references they use), so that a count of every entry is never ranked against one of
    the lower triangle. ``lower_bound`` is the Hessian's
    (:mod:`dgraph.second_order.bound`), for the lower triangle: at most every method's
    count there, as written or with mirrored products once (``info["mults_symmetric"]``);
    a search's own bound, for every entry only, is :attr:`search_lower_bound`, set against
    every method's count of every entry."""

    hessian_bound: LowerBound | None = None
    # a set's counts on each basis, by id (the sets are held by results): lower_triangle
    # builds a set, done once per method
    _costs: dict[tuple[int, str], Cost] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ranked_on(self) -> str:
        """What the ranking, ``gap`` and ``to_bound`` count: :data:`LOWER`."""
        return LOWER

    def cost_of(self, es: ExpressionSet, counts: str = LOWER) -> Cost:
        """``es``'s counts for the lower triangle (:data:`LOWER`) or every entry
        (:data:`EVERY`): its own where it is written for them; an every-entry set's lower
        triangle priced as :func:`~dgraph.second_order.triangle.lower_triangle` keeps it;
        a lower triangle's every entry from the whole elimination its method counted
        (``info["mults_written"]``, ``info["mults_effective_written"]``,
        ``info["adds_written"]``)."""
        key = (id(es), counts)
        if key not in self._costs:
            self._costs[key] = _cost(es, counts)
        return self._costs[key]

    def key(self, es: ExpressionSet) -> tuple[int, int]:
        """What ranks ``es``: :meth:`Comparison.key` on its lower triangle's counts."""
        cost = self.cost_of(es)
        if self.objective == "structural":
            return cost.mults, cost.mults_effective
        return cost.mults_effective, cost.mults

    @property
    def lower_bound(self) -> LowerBound | None:
        return self.hessian_bound

    @property
    def search_lower_bound(self) -> LowerBound | None:
        """The bound of the most general search that ran, as :class:`Comparison` reports
        it, for :data:`SEARCH_SCOPE` only: a lower triangle (edge pushing, symmetric
        elimination) may cost less."""
        bound = Comparison.lower_bound.fget(self)  # type: ignore[attr-defined]
        return None if bound is None else LowerBound(bound.mults, bound.bounds + SEARCH_SCOPE)

    def rows(self) -> list[dict[str, Any]]:
        """:meth:`Comparison.rows` with each row's scope and its counts on both bases.

        ``mults``, ``mults_effective`` and ``adds`` stay as the method wrote them, and
        ``counts`` says what of (``"lower triangle"``: edge pushing and symmetric
        elimination; ``"every entry"``: the rest). ``ranked_on`` is the basis of the
        ranking (:data:`LOWER`), and ``mults_lower_triangle``,
        ``mults_effective_lower_triangle``, ``adds_lower_triangle`` and the
        ``..._every_entry`` three are every row's counts on each (:meth:`cost_of`).
        ``gap`` is the row's structural mults minus the cheapest's, both on the lower
        triangle, and ``to_bound`` its lower triangle's structural mults minus the
        Hessian's bound (which is of the lower triangle); ``search_to_bound``, every
        entry's count (in the search bound's mults) minus the search's bound, which is of
        every entry. On a row whose ``optimal`` cell claims a proof or a gap (a
        search's), ``proven_for`` names the family it is proven over, in which mults, and
        the count it bounds (``"vertex elimination, structural mults, every entry"``):
        the claim is of the row's count as written, so that a ``proven`` 21 over every
        entry is not read against a lower triangle's 16."""
        rows = super().rows()
        cheapest = self.cheapest
        best = None if cheapest is None else self.cost_of(cheapest)
        bound = self.lower_bound
        search = self.search_lower_bound
        search_effective = search is not None and "effective" in search.bounds
        for row in rows:
            es = self.results.get(row["method"])
            if es is None:  # skipped
                continue
            row["counts"] = LOWER if es.info.get("triangle") == "lower" else EVERY
            row["ranked_on"] = LOWER
            lower, every = self.cost_of(es, LOWER), self.cost_of(es, EVERY)
            for suffix, cost in (("lower_triangle", lower), ("every_entry", every)):
                row[f"mults_{suffix}"] = cost.mults
                row[f"mults_effective_{suffix}"] = cost.mults_effective
                row[f"adds_{suffix}"] = cost.adds
            row["gap"] = None if best is None else lower.mults - best.mults
            row["to_bound"] = None if bound is None else lower.mults - bound.mults
            if search is not None:
                count = every.mults_effective if search_effective else every.mults
                row["search_to_bound"] = count - search.mults
            claims = ("optimal", "proven_optimal", "objective_lower_bound")
            if any(es.info.get(k) is not None for k in claims):
                row["proven_for"] = f"{_family(row['method'], es.info)}, {row['counts']}"
        return rows

    # best's bounds bound the accumulation of every entry, not of the lower triangle: none
    # is claimed for every method here (to_dict's search_ fields keep them)
    @property
    def effective_lower_bound(self) -> int | None:
        return None

    @property
    def elimination_lower_bound(self) -> int | None:
        return None

    @property
    def edge_elimination(self) -> dict[str, Any] | None:
        return None

    def to_dict(self) -> dict[str, Any]:
        search = self.search_lower_bound
        jacobian = Comparison  # the bounds of the searches, for every entry
        return {
            **super().to_dict(),
            "ranked_on": self.ranked_on,
            "search_lower_bound": search.mults if search else None,
            "search_lower_bound_for": search.bounds if search else None,
            "search_effective_lower_bound": jacobian.effective_lower_bound.fget(self),  # type: ignore[attr-defined]
            "search_elimination_lower_bound": jacobian.elimination_lower_bound.fget(self),  # type: ignore[attr-defined]
            "search_edge_elimination": jacobian.edge_elimination.fget(self),  # type: ignore[attr-defined]
        }


def _cost(es: ExpressionSet, counts: str) -> Cost:
    """:meth:`HessianComparison.cost_of`, computed."""
    written = LOWER if es.info.get("triangle") == "lower" else EVERY
    if counts == written:
        return es.cost
    if counts == LOWER:
        return lower_triangle(es).cost
    info = es.info
    return Cost(info["mults_written"], info["adds_written"], info["mults_effective_written"])


def _family(method: str, info: Mapping[str, Any]) -> str:
    """The family a search's claim ranges over and in which count: its own
    (:data:`SEARCH_FAMILY`, structural mults), ``best``'s widest met (``optimal_among``)
    or, unproven, the families it bounded, in its objective's mults."""
    if method in SEARCH_FAMILY:
        return f"{SEARCH_FAMILY[method]}, structural mults"
    among = info.get("optimal_among") or "the families best bounds"
    return f"{among}, {info.get('objective', 'effective')} mults"


def _objective(options: Mapping[str, Any]) -> dict[str, Any]:
    return {"objective": options["objective"]} if "objective" in options else {}
