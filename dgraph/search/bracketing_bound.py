"""What any elimination pays, from the bracketings of every path: an integer program.

Every vertex, edge or face elimination, indeed every expression set that forms each
path's product once (:mod:`dgraph.search.junction_bounds`), multiplies a path's edges
together by a bracketing, a binary tree over them whose nodes are multiplications
(s, r, t): a factor summing segments from s to r times one summing segments from r to t.
Different triples are different multiplications, and a node costs one effective
multiplication whenever the path's own two segments would (a factor's kind is at least
the kind of every segment it sums). So the fewest *costly triples* through which every
input–output path can be bracketed bounds every such expression set from below. It
relaxes only that a factor must be one sum wherever it is used, and on the heart dipole
it is the vertex optimum (24, where the junction bounds give 16).

The program (scipy's HiGHS does what no graph library does here): per segment σ of a
path with two edges or more, z_σ (σ's product is formed) and per split of σ at its j-th
vertex w_σj; per costly triple T, a binary x_T (paid). Every path's z is 1; z_σ <= sum of
its w_σj; w_σj <= z of each part that has two edges or more; w_σj <= x_T when the split's
two segments make it costly; minimize the sum of x_T. The junction bounds' groups are cuts:
the triples with their junction r in a group sum to at least what the group owes, so the
bound is never below theirs. With x binary, z and w could stay continuous (a segment not
formable from paid triples is forced to 0 from the shortest up), but branching on them
too makes HiGHS faster (about twice). Vertices whose only in-
or out-edge is ±1 are merged first (:func:`unit_contracted`): the same optimum on much
shorter paths. The linear relaxation comes first, by interior point (where the branch and
bound stalls, as on the MLP, the relaxation alone still gives a bound), then the branch
and bound; stopped at its node limit, the larger of what each proved is returned.

A budget (seconds, as users give it) is spent as work, never read off the clock, so the
bound is the same on every machine however loaded: the program's nonzeros price its
solves, the relaxation runs where ``seconds`` × :data:`CELLS_PER_SECOND` covers them
(a program that outgrows them while it is built is not built further: the same bound),
and the branch and bound (its dual bound, the gap asked to close: HiGHS's best
solution is an upper bound), whose root alone grows about as the square of the nonzeros,
gets as many
nodes (HiGHS's ``node_limit``) as ``seconds`` buys at that price, and does not run where
that is none. A killed process is the only other way to stop it (``best``'s ceiling).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np
import sympy

from ..core.graph import DGraph
from ..core.kinds import CONSTANT, GENERAL, UNIT
from ..core.paths import count_paths
from ..elimination.parts import independent_parts
from .junction_bounds import EdgeKinds, bound_kinds, elimination_lower_bound, junction_groups

__all__ = ["BRACKETING_PATH_LIMIT", "bracketing_lower_bound", "load_solver", "unit_contracted"]

BRACKETING_PATH_LIMIT = 5000  # input–output paths per part beyond which the program is not built
SEGMENT_LIMIT = 50_000  # path segments, likewise (the Roe flux has 8,000; each is a few rows)
# work per second of budget: nonzeros of the program whose relaxation one second solves,
# and the nonzeros whose branch-and-bound root takes about a second (a root is predicted
# to take (nonzeros / ROOT_CELLS)² seconds); measured: benchmarks/RESULTS.md
CELLS_PER_SECOND = 10_000
ROOT_CELLS = 2_000

Segment = tuple[str, ...]


def load_solver() -> None:
    """Import SciPy's HiGHS interface now (``import dgraph`` leaves it out): before a child
    process starts (a fork inherits it; the fork server preloads it), so that the import
    is not paid out of the child's time."""
    import scipy.optimize
    import scipy.sparse  # noqa: F401


def bracketing_lower_bound(
    graph: DGraph, seconds: float | None = None, junction: int | None = None
) -> int:
    """Effective multiplications every elimination of ``graph`` makes at least: per
    independent part, the integer program's optimum, or what HiGHS proved of it within
    its share of ``seconds`` (no limit: None), and never less than the junction bound
    (:func:`~dgraph.search.junction_bounds.elimination_lower_bound`: ``junction``
    where the caller has it already, for a graph of one part).

    >>> from dgraph.frontends import bundled
    >>> bracketing_lower_bound(bundled("naumann_sin.trace"))
    3
    """
    parts = independent_parts(graph)
    share = None if seconds is None else seconds / len(parts)  # a fixed share each
    if junction is not None and len(parts) == 1:
        return max(junction, _part_bound(graph, share))
    return sum(max(elimination_lower_bound(part), _part_bound(part, share)) for part in parts)


def _part_bound(part: DGraph, seconds: float | None) -> int:
    if count_paths(part) > BRACKETING_PATH_LIMIT:
        return 0
    part = unit_contracted(part)
    program = _Program(bound_kinds(part))
    # its nonzeros only grow: past what ``seconds`` buys, the relaxation would not run
    cells = math.inf if seconds is None else seconds * CELLS_PER_SECOND
    for path in _paths(part):
        if len(path) * (len(path) - 1) // 2 > SEGMENT_LIMIT:  # one path's segments alone
            return 0  # (a 500-step loop's single path: 124,750) before building any
        program.require(path)
        if len(program.done) > SEGMENT_LIMIT or program.cells > cells:
            return 0
    program.add_cuts(part)
    return program.solve(seconds)


def unit_contracted(graph: DGraph) -> DGraph:
    """``graph`` with every intermediate whose only out-edge (or only in-edge) is ±1
    merged into that edge's other end, where no two edges would join: the same paths and
    kinds less the free products, so every expression set of ``graph`` is one of this
    graph (the ±1 label read as 1) with no more effective multiplications, and a bound
    here bounds ``graph``. Shorter paths make a much smaller program.

    >>> from dgraph.frontends import from_trace
    >>> g = from_trace("inputs: x\\noutputs: y\\nu = sin(x)\\nv = u + 1\\ny = sin(v)")
    >>> unit_contracted(g).intermediates
    ['v']
    """
    kinds = bound_kinds(graph)
    succ, pred = kinds.succ, kinds.pred
    merged = True
    while merged:
        merged = False
        for v in [v for v in graph.intermediates if v in succ]:
            for near, far in ((succ, pred), (pred, succ)):
                if len(near[v]) != 1:
                    continue
                ((w, kind),) = near[v].items()
                if kind != UNIT or any(w in near[u] for u in far[v]):
                    continue
                for u, k in far[v].items():  # v's other edges now end (or start) at w
                    near[u][w] = far[w][u] = k
                    del near[u][v]
                del far[w][v], succ[v], pred[v]
                merged = True
                break
    out = DGraph(graph.name)
    for v in graph.order():
        if v in succ:
            out.add_vertex(v, graph.role(v))
    for u, targets in succ.items():
        for v, kind in targets.items():
            out.add_edge(u, v, None if kind == GENERAL else sympy.Integer(1 + kind))
    return out


def _paths(part: DGraph) -> Iterator[Segment]:
    """Every input–output path with two edges or more."""
    for s in part.inputs:
        for t in part.outputs:
            for path in nx.all_simple_paths(part.nx, s, t):
                if len(path) > 2:
                    yield tuple(path)


class _Program:
    """The integer program, row by row: each row ``sum(coefficient * variable) <= bound``;
    a path's z is fixed to 1 by its bounds."""

    def __init__(self, kinds: EdgeKinds) -> None:
        self.kinds = kinds
        self.index: dict[tuple, int] = {}
        self.rows: list[tuple[dict[int, float], float]] = []
        self.at: dict[str, set[int]] = {}  # junction -> its costly triples' variables
        self.paths: set[int] = set()
        self.done: set[Segment] = set()
        self.cells = 0  # the rows' nonzeros (a row's variables are distinct, each ±1)

    def _row(self, row: dict[int, float], bound: float) -> None:
        self.rows.append((row, bound))
        self.cells += len(row)

    def var(self, key: tuple) -> int:
        return self.index.setdefault(key, len(self.index))

    def require(self, path: Segment) -> None:
        self.paths.add(self.var(("z", path)))
        todo = [path]
        while todo:
            segment = todo.pop()
            if segment not in self.done:
                self.done.add(segment)
                todo.extend(self._splits(segment))

    def _splits(self, segment: Segment) -> list[Segment]:
        """Rows for the ways of forming ``segment``; the parts that need forming too."""
        formed = {self.var(("z", segment)): 1.0}
        parts = []
        for j in range(1, len(segment) - 1):
            left, right = segment[: j + 1], segment[j:]
            w = self.var(("w", segment, j))
            formed[w] = -1.0
            for side in (left, right):
                if len(side) > 2:
                    self._row({w: 1.0, self.var(("z", side)): -1.0}, 0.0)
                    parts.append(side)
            if _costly(self._kind(left), self._kind(right)):
                x = self.var(("x", segment[0], segment[j], segment[-1]))
                self.at.setdefault(segment[j], set()).add(x)
                self._row({w: 1.0, x: -1.0}, 0.0)
        self._row(formed, 0.0)
        return parts

    def _kind(self, segment: Segment) -> int:
        return max((self.kinds.succ[a][b] for a, b in itertools.pairwise(segment)), default=UNIT)

    def add_cuts(self, part: DGraph) -> None:
        """What each vertex and candidate group owes, over the triples at its junctions."""
        for members, owed in junction_groups(part):
            row = {x: -1.0 for r in members for x in self.at.get(r, ())}
            if owed > 0 and row:
                self._row(row, -float(owed))

    def solve(self, seconds: float | None) -> int:
        """The optimum, or the larger of what the linear relaxation (interior point: much
        faster than the simplex on these) and the branch and bound proved within the
        work ``seconds`` buys (module docstring; None: to the end)."""
        n = len(self.index)
        costs = np.zeros(n)
        for key, i in self.index.items():
            if key[0] == "x":
                costs[i] = 1.0
        if not costs.any():
            return 0
        from scipy.sparse import coo_matrix  # scipy loads only when best computes this bound

        cells = [(r, i, a) for r, (row, _) in enumerate(self.rows) for i, a in row.items()]
        rows, cols, values = zip(*cells, strict=True)
        matrix = coo_matrix((values, (rows, cols)), shape=(len(self.rows), n)).tocsr()
        limits = np.array([bound for _, bound in self.rows])
        low = np.zeros(n)
        low[list(self.paths)] = 1.0
        nodes = None
        if seconds is not None:
            if matrix.nnz > seconds * CELLS_PER_SECOND:  # not even the relaxation
                return 0
            nodes = int(seconds / (matrix.nnz / ROOT_CELLS) ** 2)
        with _quiet():
            return _Program._solve(costs, matrix, limits, low, nodes)

    @staticmethod
    def _solve(
        costs: np.ndarray,
        matrix: Any,
        limits: np.ndarray,
        low: np.ndarray,
        nodes: int | None,
    ) -> int:
        """The bound from the relaxation, then from at most ``nodes`` branch-and-bound
        nodes (None: no limit; 0: none)."""
        from scipy.optimize import Bounds, LinearConstraint, linprog, milp

        n = len(costs)
        relaxed = linprog(
            costs,
            A_ub=matrix,
            b_ub=limits,
            bounds=np.column_stack([low, np.ones(n)]),
            method="highs-ipm",
        )
        proven = _ceil(relaxed.fun) if relaxed.status == 0 else 0
        integral = relaxed.status == 0 and np.allclose(relaxed.x, np.round(relaxed.x))
        if integral or nodes == 0:
            return proven
        # HiGHS stops at a relative gap of 1e-4 by default, and its best solution is an
        # upper bound: the bound is its dual bound, the gap asked to close
        options: dict[str, Any] = {"mip_rel_gap": 0.0}
        if nodes is not None:
            options["node_limit"] = nodes
        result = milp(
            costs,
            constraints=LinearConstraint(matrix, -np.inf, limits),
            integrality=np.ones(len(costs)),  # z and w too (see the module docstring)
            bounds=Bounds(low, 1),
            options=options,
        )
        return max(proven, _ceil(getattr(result, "mip_dual_bound", None)))


def _costly(a: int, b: int) -> bool:
    """Whether a product of factors of kinds ``a`` and ``b`` costs a multiplication."""
    return min(a, b) >= CONSTANT and GENERAL in (a, b)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """File descriptor 1 to /dev/null: some HiGHS builds printf from the branch and bound,
    which would land in the middle of ``--json`` output."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _ceil(value: float | None) -> int:
    """The least integer at or above a solver's lower bound on an integer optimum, less
    the solver's tolerance (absolute, and relative to the value), so that a bound a hair
    above the optimum is not rounded up past it; 0 where there is none."""
    if value is None or not math.isfinite(value):
        return 0
    return max(0, math.ceil(value - 1e-5 - 1e-9 * abs(value)))
