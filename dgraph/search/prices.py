"""Price models: what :func:`dgraph.search.best.best` minimizes, and which of its searches
and bounds hold in each.

A price model says what a candidate costs, on which graphs, and how a vertex order (or
edge moves) is priced without building it: on a label algebra of the elimination
kernel (:mod:`dgraph.elimination.kernel`), so a price is what the built result counts.

* ``"effective"``: scalar multiplications, ±1 labels free and constants folded (then
  structural ones); scalar graphs.
* ``"structural"``: every label general, one multiplication a product (then effective):
  plain vertex elimination's count, AlphaGrad's; scalar graphs.
* ``"blocks"``: the scalar multiplications of the structured Jacobian-block products
  (:mod:`dgraph.blocks`); tensor graphs.
* ``"graphax"``: Graphax's cost model (AlphaGrad's vertex game,
  :mod:`dgraph.elimination.graphax_model`) of a vertex order; tensor graphs with every
  jaxpr equation a vertex (:func:`dgraph.frontends.jaxpr_equations.equation_graph`).
  The set built from the winning order counts dgraph's block products instead, so a
  built candidate has no Graphax price: candidates given ready-made are not used.

:data:`SOLVERS` is the table of ``best``'s searches and bounds with the models each is
valid for (sound: a bound never above the model's optimum, a search's candidate priced in
the model) and those ``best`` runs it for; :func:`not_run` says, for a model, which are
left out and why (``best`` reports it as ``info["not_run"]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..core.expressions import ExpressionSet, price
from ..core.graph import DGraph
from ..elimination.graphax_model import GRAPHAX
from ..elimination.kernel import BLOCKS, COUNT, VALUES, Algebra, Elimination, Move, move_costs
from ..errors import InputError

__all__ = ["PRICES", "SOLVERS", "PriceModel", "Solver", "not_run", "price_model"]


@dataclass(frozen=True)
class PriceModel:
    """A way to price candidates (module docstring).

    Attributes
    ----------
    name : str
        Its name, ``best``'s ``price`` (or ``objective``) option.
    summary : str
        What one unit of its price is, in a line.
    tensor : bool
        Whether it prices tensor graphs (else scalar ones).
    algebra : Algebra
        The kernel algebra its vertex orders are priced in.
    built_counts : bool
        Whether a built expression set counts the price (Graphax's model: no).
    """

    name: str
    summary: str
    tensor: bool
    algebra: Algebra
    built_counts: bool = True

    def refusal(self, graph: DGraph) -> str | None:
        """Why the model does not price ``graph`` (None where it does)."""
        if graph.is_tensor != self.tensor:
            mine, its = ("tensor", "scalar") if self.tensor else ("scalar", "tensor")
            on = ", ".join(m.name for m in PRICES.values() if m.tensor == graph.is_tensor)
            return f"prices {mine} graphs; this is a {its} graph (its price models: {on})"
        if self is GRAPHAX_PRICE and any("graphax" not in d for *_, d in graph.nx.edges(data=True)):
            return (
                "prices a graph with every jaxpr equation a vertex (equation_graph); this"
                " graph's edges have no Graphax types"
            )
        return None

    def of_moves(self, graph: DGraph, moves: Iterable[Move]) -> tuple[int, ...]:
        """The price of eliminating ``moves`` from ``graph`` (not built): (effective,
        structural) mults on scalar graphs; on tensor graphs the one price, (block
        mults,) or (Graphax mults,)."""
        if self.tensor:
            state = Elimination(graph, self.algebra)
            return (sum(state.apply(move) for move in moves),)
        return move_costs(graph, moves)

    def of_built(self, es: ExpressionSet) -> tuple[int, ...] | None:
        """What the built ``es`` counts, stored as :meth:`of_moves` does; None where the
        built set does not count the price (:attr:`built_counts`)."""
        if not self.built_counts:
            return None
        return (es.mults,) if self.tensor else price(es)

    def key(self, stored: tuple[int, ...]) -> tuple[int, ...]:
        """What ranks a stored price: effective then structural, structural then
        effective, or the one price of blocks and Graphax (ties: the first met)."""
        return stored[::-1] if self.name == "structural" else stored


EFFECTIVE = PriceModel(
    "effective", "scalar multiplications, ±1 labels free, constants folded", False, VALUES
)
STRUCTURAL = PriceModel("structural", "scalar products, every label general", False, COUNT)
BLOCK_PRICE = PriceModel(
    "blocks", "scalar multiplications of the structured Jacobian-block products", True, BLOCKS
)
GRAPHAX_PRICE = PriceModel(
    "graphax", "Graphax's vertex-game multiplications of the order", True, GRAPHAX, False
)
PRICES: dict[str, PriceModel] = {
    m.name: m for m in (EFFECTIVE, STRUCTURAL, BLOCK_PRICE, GRAPHAX_PRICE)
}
SCALAR = frozenset({"effective", "structural"})


@dataclass(frozen=True)
class Solver:
    """One of ``best``'s searches or bounds: the price models it is valid for, those
    ``best`` runs it for (a subset), and why not for the others."""

    name: str
    kind: str  # "search", "exact search" or "bound"
    valid_for: frozenset[str]
    why_not: str
    runs_for: frozenset[str] | None = None  # None: every model it is valid for

    def runs(self, model: str) -> bool:
        return model in (self.valid_for if self.runs_for is None else self.runs_for)


_LABELS = "it prices products of scalar labels (a tensor graph's are Jacobian blocks)"
_SCALAR_BOUND = (
    "a bound on scalar products of scalar labels; a block product is priced by its"
    " structure, which no theorem here relates to those counts"
)
_ALL = frozenset(PRICES)
SOLVERS: dict[str, Solver] = {
    s.name: s
    for s in (
        Solver("baselines", "search", _ALL, ""),
        Solver(
            "given candidates",
            "search",
            frozenset({"effective", "structural", "blocks"}),
            "a ready-made set has no Graphax price: the model prices orders",
        ),
        Solver("rank bound", "bound", SCALAR, _SCALAR_BOUND),
        Solver("early annealing", "search", SCALAR, _LABELS),
        Solver(
            "structure methods",
            "search",
            _ALL - {"graphax"},
            "their sets have no Graphax price; over blocks they are not run (compare runs"
            " them beside best)",
            runs_for=SCALAR,
        ),
        Solver("bracketing bound", "bound", SCALAR, _SCALAR_BOUND),
        Solver(
            "vertex-optimal",
            "exact search",
            _ALL - {"graphax"},
            "the A* prices scalar labels or blocks, not Graphax's edge types",
        ),
        Solver(
            "CP-SAT",
            "exact search",
            SCALAR,
            "its model counts scalar products (vertex-optimal over blocks is the A*, up to"
            " 14 intermediates a part)",
        ),
        Solver("edge-optimal", "exact search", SCALAR, _LABELS),
        Solver("edge bound", "bound", SCALAR, _SCALAR_BOUND),
        Solver("junction bound", "bound", SCALAR, _SCALAR_BOUND),
        Solver("greedy orders", "search", SCALAR, _LABELS),
        Solver("beam", "search", SCALAR, _LABELS),
        Solver(
            "effective-optimal",
            "exact search",
            frozenset({"effective"}),
            "it minimizes effective mults (vertex-optimal is the structural search)",
        ),
        Solver("greedy edges", "search", SCALAR, _LABELS),
        Solver("greedy faces", "search", SCALAR, "face elimination prices scalar labels"),
        Solver("annealing", "search", SCALAR, _LABELS + "; orders are annealed instead"),
        Solver(
            "order annealing",
            "search",
            _ALL,
            "on scalar graphs the window-priced annealing runs instead",
            runs_for=frozenset({"blocks", "graphax"}),
        ),
    )
}


def price_model(
    graph: DGraph, price: str | PriceModel | None, option: str = "price model"
) -> PriceModel:
    """The model ``price`` names (None: effective on scalar graphs, blocks on tensor
    ones); ``option`` is what the caller calls it, for the message.

    Raises
    ------
    InputError
        An unknown name, or a model that does not price ``graph``, in one line.
    """
    if price is None:
        return BLOCK_PRICE if graph.is_tensor else EFFECTIVE
    model = price if isinstance(price, PriceModel) else PRICES.get(price)  # type: ignore[arg-type]
    if model is None:
        raise InputError(f"best: unknown {option} {str(price)[:20]!r}: one of {', '.join(PRICES)}")
    why = model.refusal(graph)
    if why is not None:
        raise InputError(f"best: the {option} {model.name!r} {why}")
    return model


def not_run(model: PriceModel) -> dict[str, str]:
    """The searches and bounds ``best`` leaves out for ``model``, each with why: not
    valid for it, or valid but not run."""
    return {
        s.name: ("not valid: " if model.name not in s.valid_for else "not run: ") + s.why_not
        for s in SOLVERS.values()
        if not s.runs(model.name)
    }
