"""A proven lower bound on optimal edge elimination, in structural multiplications.

Edge elimination (Naumann 2004: forward and backward eliminations of single edges) has an
exact optimum only by the metagraph's shortest path, whose stages grow exponentially with
the edges (:mod:`dgraph.elimination.metagraph`). This module proves how far below any
elimination sequence the cost cannot go, with three arguments, each sound for every
forward/backward edge elimination sequence in the structural count (every label a general
value):

1. **Junctions** (:mod:`dgraph.search.junction_bounds`, on the graph with every label read
   as general: :func:`structural`). Read every label as an independent indeterminate.
   Forward-eliminating (i, j) forms ``c_jk += c_ji·c_ik``: one multiplication per
   predecessor k, joining a label that sums path segments k ⇝ i to one that sums
   segments i ⇝ j at the *junction* i; backward elimination likewise at j. Elimination
   only adds products, never subtracts, and ends with Bauer's sums, in which every
   input–output path's monomial has coefficient 1: so each path's product is formed
   exactly once, by a binary bracketing of its edges whose nodes are such triples
   (s, r, t). This is the premise of the junction bounds: each inner vertex of a path is
   the junction of exactly one node of its bracketing, and paths that are vertex-disjoint
   before r (after r) give triples with different s (t). With every edge general, Menger
   gives cut_in(r)·cut_out(r) multiplications at every intermediate r, and the
   groups' terms across general edges add on top; all of it bounds the structural count.
2. **Bracketings** (:mod:`dgraph.search.bracketing_bound`, on the same graph): the fewest
   triples through which every path can be bracketed, an integer program relaxing only
   that one triple may stand for several different sums. Built and solved where the
   work budget covers its nonzeros (its own work units, estimated first:
   :func:`program_cells`), else left out.
3. **Exact parts**: edge eliminations in one independent part of the intermediates
   (:mod:`dgraph.elimination.parts`) never touch another part's edges — forward (i, j)
   joins i's predecessors to j, all in i's part or inputs — and an elimination costs the
   same whichever part created the edges it meets (|P_i| or |S_j| counts vertices, an
   absorbed product costs what a new one does), so the optimum is the sum of the parts'
   optima. A part with at most :data:`dgraph.elimination.metagraph.EDGE_LIMIT`
   intermediate edges is solved exactly by the metagraph's A*.

Per part the largest of these is a lower bound, and their sum bounds the whole graph.
Since vertex elimination is a special case of edge elimination (eliminating v is
forward-eliminating every out-edge of v), the bound bounds the vertex optimum too; and
an upper bound that is a vertex order's cost meeting it proves both optima.

Why not an exact integer program for edge elimination: a sequence's state is its edge
set, so a time-indexed program needs a copy of every edge that can appear per step, and
as many steps as the cost (each elimination costs at least 1) — on AlphaGrad's graphs
hundreds of steps over thousands of candidate edges, with products of state bits for the
costs; the bracketing program above is its relaxation that forgets the time.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.graph import DGraph
from ..elimination.metagraph import EDGE_LIMIT, edge_optimal_search, intermediate_edge_count
from ..elimination.parts import independent_parts
from ..errors import ProofError
from .bracketing_bound import CELLS_PER_SECOND, bracketing_lower_bound
from .junction_bounds import elimination_lower_bound

__all__ = ["EDGE_ELIMINATION", "EdgeBound", "edge_elimination_bound", "program_cells", "structural"]

EDGE_ELIMINATION = "edge elimination"  # the family, as best's lower_bounds names it


@dataclass(frozen=True)
class EdgeBound:
    """What is proven about the optimal edge elimination of a graph (structural mults).

    ``moves``: an optimal sequence (metagraph moves) where every part was solved exactly,
    else None; ``cost``: the cheapest edge elimination known (None: none known);
    ``lower_bound``: proven; ``proven``: ``cost`` is optimal (it meets the bound)."""

    moves: list | None
    cost: int | None
    lower_bound: int
    proven: bool

    def __post_init__(self) -> None:
        _check_below(self.lower_bound, self.cost, "the cheapest edge elimination known")

    @property
    def gap(self) -> int | None:
        """``cost`` less ``lower_bound`` (None without a cost)."""
        return None if self.cost is None else self.cost - self.lower_bound

    def as_info(self) -> dict:
        """The bound as ``best`` reports it (``info["edge_elimination"]``)."""
        return {
            "lower_bound": self.lower_bound,
            "cost": self.cost,
            "gap": self.gap,
            "proven": self.proven,
        }


def _check_below(lower: int, cost: int | None, what: str) -> None:
    """Refuse a lower bound above ``cost`` (None: none known), a cost some elimination
    reaches: one of the two is wrong, and the optimum would be claimed from it.

    Raises
    ------
    ProofError
        Where ``lower`` exceeds ``cost``.
    """
    if cost is not None and lower > cost:
        raise ProofError(
            f"edge bound: the lower bound {lower} exceeds {what}, {cost}: a bound or a"
            " price is wrong (an upper bound must be the structural cost of a complete"
            " elimination)"
        )


def structural(graph: DGraph) -> DGraph:
    """``graph``'s structure with every label general (no constant, no ±1): the graph on
    which the effective-cost bounds count structural multiplications.

    >>> from dgraph.frontends import bundled
    >>> g = structural(bundled("naumann_discrepancy.json"))
    >>> any(g.constant_label(u, v) is not None for u, v in g.edges())
    False
    """
    out = DGraph(graph.name)
    for v in graph.order():
        out.add_vertex(v, graph.role(v))
    for u, v in graph.edges():
        out.add_edge(u, v)
    return out


CELLS_PER_SPLIT = 7  # the bracketing program's nonzeros per split of a segment, about


def program_cells(graph: DGraph) -> int:
    """The bracketing program's nonzeros on ``graph``'s structure, estimated without
    building it: about :data:`CELLS_PER_SPLIT` per split of every path of two edges or
    more (each is a segment of an input–output path), counted by one sweep — paths into
    v and their edges summed over v's predecessors — because building the program only to
    count them costs about as much as solving a small one.

    >>> from dgraph.frontends import bundled
    >>> program_cells(bundled("naumann_discrepancy.json"))  # 9 paths of 2 edges, 10 of 3
    203
    """
    into: dict[str, int] = {}  # paths of one edge or more ending at v
    length: dict[str, int] = {}  # their edges, summed
    splits = 0
    for v in graph.order():
        into[v] = sum(1 + into[u] for u in graph.predecessors(v))
        length[v] = sum(1 + into[u] + length[u] for u in graph.predecessors(v))
        splits += length[v] - into[v]  # a path of k edges has k - 1 splits
    return CELLS_PER_SPLIT * splits


def edge_elimination_bound(
    graph: DGraph, seconds: float = 0.0, upper: int | None = None, edge_limit: int = EDGE_LIMIT
) -> EdgeBound:
    """The proven lower bound on every forward/backward edge elimination of ``graph`` in
    structural multiplications (module docstring), per independent part the largest of
    the junction bound, the bracketing program (within ``seconds`` of its work units,
    shared by the parts as it shares them; 0: not built) and, on parts with at most
    ``edge_limit`` intermediate edges (default ``EDGE_LIMIT``), the metagraph's exact
    optimum. ``upper`` is the structural cost of an edge (or vertex) elimination known
    already, such as the best vertex order's: the result is proven optimal when the bound
    meets it.

    Raises :class:`dgraph.errors.ProofError` where the bound exceeds ``upper`` or an
    exact part's optimum: one of them is wrong, and nothing is claimed from it.

    >>> from dgraph.frontends import bundled
    >>> found = edge_elimination_bound(bundled("naumann_discrepancy.json"))
    >>> found.cost, found.lower_bound, found.proven, len(found.moves)
    (13, 13, True, 7)
    """
    lower, exact, solved, moves = 0, 0, True, []
    for part in independent_parts(graph):
        general = structural(part)
        bound = elimination_lower_bound(general)
        if intermediate_edge_count(part) <= edge_limit:
            result = edge_optimal_search(part, "full")
            moves += result.moves
            exact += result.cost
            bound = max(bound, result.cost)
        else:
            solved = False
            share = seconds * len(part.intermediates) / max(1, len(graph.intermediates))
            if share > 0 and program_cells(part) <= share * CELLS_PER_SECOND:
                bound = max(bound, bracketing_lower_bound(general, share))
        lower += bound
    _check_below(lower, upper, "the upper bound given")
    if solved:  # every part's optimum: no elimination, ``upper``'s included, is cheaper
        return EdgeBound(moves, exact, lower, True)
    return EdgeBound(None, upper, lower, upper is not None and upper <= lower)
