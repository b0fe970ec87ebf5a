"""One elimination kernel: vertex, front and back edge elimination, each written once.

A state holds a c-graph's edges as adjacency dicts (``succ[u][v]`` and ``pred[v][u]``,
both the label of u -> v) and applies Naumann's rules with a *label algebra* as its
parameter (:class:`Algebra`):

* :class:`Symbolic`: noncommutative sympy labels; a compound label becomes a reference
  the first time it is a factor, so the expression set computes what the elimination
  does (:class:`dgraph.elimination.labeled.LabeledGraph`);
* :data:`COUNT`: no labels, every product one multiplication (structural counts);
* :data:`VALUES`: label values, every product priced by the rule a built expression set
  is counted by (:func:`dgraph.core.kinds.product`: effective counts).

The searches price their moves on :data:`VALUES` and :data:`COUNT` states, the methods
build on :class:`Symbolic` ones: the same moves, so a price is what the built result
counts (:func:`move_costs`).

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421 (vertex
elimination); U. Naumann, "Efficient calculation of Jacobian matrices by optimized
application of the chain rule to computational graphs", PhD thesis, TU Dresden, 1999
(front and back edge elimination).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import networkx as nx
import sympy

from .. import blocks
from ..blocks import Product
from ..core import kinds
from ..core.algebra import nc_product, nc_sum
from ..core.expressions import Step, as_factor
from ..core.graph import DGraph
from ..errors import DGraphError, SearchTooLarge

__all__ = [
    "BLOCKS",
    "COUNT",
    "UNION_MOST",
    "VALUES",
    "Algebra",
    "Closure",
    "Costed",
    "Elimination",
    "Move",
    "MoveCosts",
    "Symbolic",
    "effective_cost",
    "move_costs",
    "priced_below",
    "pricing",
]

# A move: ("vertex", v), ("forward", (i, j)) or ("backward", (i, j)).
Move = tuple[str, Any]
# The labels of the edges a move changed, before and after it (:meth:`Algebra.settle`).
Change = tuple[list[Any], list[Any]]
# Every vertex's in-edge labels and out-edge labels (by index in graph.order()), after
# eliminating a set (:class:`Closure`).
Labels = tuple[list[dict[int, Any]], list[dict[int, Any]]]


class Algebra:
    """What labels are and what a product costs: :meth:`multiply` gives ``c_upper ·
    c_lower`` (upper nearer the outputs) and its multiplications, :meth:`add` a sum."""

    names = False  # whether compound labels are named (:meth:`factor`) before a product
    keeps = False  # whether :meth:`settle` is given the labels each move changed

    def leaf(self, graph: DGraph, u: str, v: str) -> Any:
        """The label of the edge u -> v before any elimination."""
        raise NotImplementedError

    def multiply(self, upper: Any, lower: Any) -> Product:
        """``upper · lower`` and what it costs in this algebra's multiplications.

        Parameters
        ----------
        upper, lower
            Labels of this algebra: ``upper`` on the edge nearer the outputs.

        Returns
        -------
        Product
            ``cost`` and ``product``; a tuple, so ``cost, label = multiply(...)`` works.
        """
        raise NotImplementedError

    def add(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def cost(self, upper: Any, lower: Any) -> int:
        """What :meth:`multiply` would cost, without the product."""
        return self.multiply(upper, lower).cost

    def factor(self, label: Any) -> Any:
        """``label`` as a factor (see :attr:`names`)."""
        return label

    def copy(self) -> Algebra:
        return self

    def settle(self, succ: dict[str, dict[str, Any]], change: Change | None = None) -> None:
        """After a move: ``succ`` holds every label still in use; ``change`` (where
        :attr:`keeps`): the labels of the edges the move changed, before and after it."""

    def relabelled(self) -> None:
        """Labels changed outside a move: the next :meth:`settle` looks at every edge."""


_ONE_GENERAL = Product(1, None)  # every product of Count's


class Count(Algebra):
    """Structure only: every product one multiplication."""

    def leaf(self, graph: DGraph, u: str, v: str) -> None:
        return None

    def multiply(self, upper: None, lower: None) -> Product:
        return _ONE_GENERAL

    def add(self, a: None, b: None) -> None:
        return None


class Values(Algebra):
    """Label values (:mod:`dgraph.core.kinds`): None for a general label, a constant's
    exact value otherwise; products priced in effective multiplications."""

    def leaf(self, graph: DGraph, u: str, v: str) -> kinds.Value:
        return kinds.value_of(graph.constant_label(u, v))

    multiply = staticmethod(kinds.multiply)  # type: ignore[assignment]
    add = staticmethod(kinds.add)  # type: ignore[assignment]


class Symbolic(Algebra):
    """Noncommutative sympy labels, compound ones named as references in ``references``
    (shared by the working graphs of one method, so that names stay unique). A product
    costs one multiplication unless a factor is the literal 1 of a copy; on a tensor
    graph, what its blocks' product costs (each label's block kept beside it), unless
    ``priced`` is False (a replay of steps already priced: the labels are the same, the
    blocks' products are not formed again)."""

    names = True

    def __init__(
        self,
        references: dict[sympy.Symbol, sympy.Expr] | None = None,
        tensor: dict[int, tuple[sympy.Expr, Any]] | None = None,
        priced: bool = True,
    ) -> None:
        self.references: dict[sympy.Symbol, sympy.Expr] = {} if references is None else references
        # each label's block on a tensor graph (None: a zero block), by the label's
        # identity, the label kept beside it (so its id is not reused while it is here):
        # keyed by the expression, every new product hashed all its factors, and a
        # chain's products are as long as the chain (quadratic: 14 of 47 CPU-s of
        # codegen at 4,000 statements)
        self.tensor = tensor
        self.priced = priced  # False: no blocks kept, a product costs as on a scalar graph
        self.held: Counter | None = None  # the edges holding each label (settle's count)
        self.fresh: list[sympy.Expr] = []  # the labels given blocks since the last settle

    @property
    def keeps(self) -> bool:  # type: ignore[override]
        return bool(self.tensor)

    def _keep(self, label: sympy.Expr, block: Any) -> None:
        self.tensor[id(label)] = (label, block)  # type: ignore[index]
        self.fresh.append(label)

    def _kept(self, label: sympy.Expr) -> bool:
        return self.tensor is not None and id(label) in self.tensor

    def leaf(self, graph: DGraph, u: str, v: str) -> sympy.Expr:
        sym = graph.symbol(u, v)
        if graph.is_tensor and self.priced:
            if self.tensor is None:
                self.tensor = {}
            self._keep(sym, graph.block(u, v))
        return sym

    def factor(self, label: sympy.Expr) -> sympy.Expr:
        named = as_factor(self.references, label)
        if self._kept(label):
            self._keep(named, self.tensor[id(label)][1])  # type: ignore[index]
        return named

    def multiply(self, upper: sympy.Expr, lower: sympy.Expr) -> Product:
        a, b = upper, lower
        product = nc_product(a, b)
        if not (self._kept(a) and self._kept(b)):
            return Product(int(a != 1 and b != 1), product)
        cost, block = BLOCKS.multiply(self._block(a), self._block(b))
        self._keep(product, block)
        return Product(cost, product)

    def add(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        total = nc_sum(a, b)
        if self._kept(a) and self._kept(b):
            self._keep(total, BLOCKS.add(self._block(a), self._block(b)))
        return total

    def _block(self, label: sympy.Expr) -> Any:
        block = self.tensor[id(label)][1]  # type: ignore[index]
        return Blocks.ZERO if block is None else block

    def settle(self, succ: dict[str, dict[str, Any]], change: Change | None = None) -> None:
        """The blocks of labels no edge holds any more forgotten (a product or a sum
        summed into another, a label replaced by its name): only an edge's label is ever
        multiplied, added or named, and an elimination's blocks, some 10⁷ entries each at
        10⁶ unknowns, would otherwise all be kept to its end. Each label's edges are
        counted (:attr:`held`, by the label's identity) once, then kept up to date from
        each move's ``change``: only the labels it took off edges and those given blocks
        since are looked at, not every edge after every move (which made an elimination
        quadratic in its moves)."""
        fresh, self.fresh = self.fresh, []
        if not self.tensor:
            self.held = None
            return
        if change is None or self.held is None:
            self.held = Counter(id(label) for out in succ.values() for label in out.values())
            looked = list(self.tensor)
        else:
            before, after = change
            self.held.subtract(map(id, before))
            self.held.update(map(id, after))
            looked = [*map(id, before), *map(id, fresh)]
        held, tensor = self.held, self.tensor
        for key in looked:
            if held[key] <= 0:
                held.pop(key, None)
                tensor.pop(key, None)

    def relabelled(self) -> None:
        self.held = None

    def copy(self) -> Symbolic:
        """Its own references, continuing the numbering."""
        tensor = None if self.tensor is None else dict(self.tensor)
        other = Symbolic(dict(self.references), tensor, self.priced)
        other.held = None if self.held is None else Counter(self.held)
        other.fresh = list(self.fresh)
        return other


class Blocks(Algebra):
    """Jacobian blocks of a tensor graph (:mod:`dgraph.blocks`): products priced in
    scalar multiplications of the structured product, the structure kept; ``ZERO`` for a
    product of selections that pick disjoint parts."""

    ZERO = "zero"

    def leaf(self, graph: DGraph, u: str, v: str) -> blocks.Block:
        return graph.block(u, v)

    def multiply(self, upper: Any, lower: Any) -> Product:
        if upper is self.ZERO or lower is self.ZERO:
            return Product(0, self.ZERO)
        cost, product = blocks.multiply(upper, lower)
        return Product(cost, self.ZERO if product is None else product)

    def add(self, a: Any, b: Any) -> Any:
        if a is self.ZERO:
            return b
        if b is self.ZERO:
            return a
        _refuse_large_union(a, b)
        return blocks.add(a, b)


UNION_MOST = 10**7
"""Entries a sum of two blocks of different structure may hold as a pattern in
a search (at least the larger summand's): its indices, four to eight bytes an entry, and
the summands' patterns formed to merge them (three times eight bytes an entry each).
Markowitz's order on the Hessian of ``Σ c·eigvalsh(D + 0.1 x xᵀ)`` sums the two
Kronecker blocks of ``V·C·Vᵀ`` by V, 2n³ entries (some 7 GB formed at n = 512), where
reverse mode forms no such sum: at n = 256 (n³ = 1.7·10⁷ entries a summand) the sum held
1.15 GB at its peak (tracemalloc; 69 bytes a summand's entry), the build's largest
allocation once its cancellation pass is evaluated in slices (:mod:`~dgraph.codegen.tensor.slices`).
At 10⁷ the search holds at most some 0.7 GB for it."""


def _refuse_large_union(a: Any, b: Any) -> None:
    """Refuse (:class:`~dgraph.errors.SearchTooLarge`: the method is dropped, the
    others priced) a sum whose pattern would hold more than :data:`UNION_MOST` entries,
    before any of it is formed: blocks of different structure, neither full (a sum
    with a full block is dense, no pattern)."""
    if not all(isinstance(x, (blocks.Labelled, blocks.Sparse)) for x in (a, b)):
        return
    if blocks.same_structure(a, b) or blocks.full(a) or blocks.full(b):
        return
    if max(a.nnz, b.nnz) > UNION_MOST:
        raise SearchTooLarge(
            f"a sum of two blocks {a.out_shape} x {a.in_shape} of different structure"
            f" ({a.nnz:,} and {b.nnz:,} entries): its pattern of more than"
            f" {UNION_MOST:,} entries would not fit in memory"
        )


COUNT, VALUES, BLOCKS = Count(), Values(), Blocks()


def pricing(graph: DGraph) -> Algebra:
    """The algebra a search prices ``graph``'s moves in: label values (effective
    multiplications) on a scalar graph, Jacobian blocks on a tensor graph."""
    return BLOCKS if graph.is_tensor else VALUES


class Elimination:
    """A c-graph under vertex, front and back edge elimination, its labels in
    ``algebra``. A vertex is present while it has edges: an intermediate left without
    successors (front) or predecessors (back) goes with its remaining edges."""

    records_steps = False  # whether the moves are kept in ``steps``
    # whether a vertex elimination names only the labels its products use more than once
    # (the others go into their one product at once, as inlining them later would)
    names_only_shared = False

    def __init__(
        self,
        graph: DGraph,
        algebra: Algebra,
        edges: Iterable[tuple[str, str]] | None = None,
        labels: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        """A working copy of ``graph``, or of a part of it (``edges``: only the vertices
        they touch), its labels the algebra's leaves unless ``labels`` gives some."""
        order = graph.order()
        self.graph, self.algebra = graph, algebra
        self.role = dict(_roles(graph))
        if edges is None:
            edges = graph.edges()
        else:  # a part keeps only the vertices its edges touch (Zhou's pages: many small
            # parts of one graph, each built in the size of its edges, not the graph's)
            edges = list(edges)
            touched = {w for e in edges for w in e}
            order = [v for v in order if v in touched]
        self.succ: dict[str, dict[str, Any]] = {v: {} for v in order}
        self.pred: dict[str, dict[str, Any]] = {v: {} for v in order}
        for u, v in edges:
            given = labels is not None and (u, v) in labels
            label = labels[u, v] if given else algebra.leaf(graph, u, v)
            self.succ[u][v] = self.pred[v][u] = label
        self.steps: list[Step] = []
        self.version = 0  # counts the changes, for views of the state
        self.spent = 0  # the recorded steps' multiplications

    @classmethod
    def from_networkx(cls, graph: DGraph, g: nx.DiGraph, algebra: Algebra) -> Elimination:
        """A state of any structure: ``g``'s vertices with a ``role``, its edges with a
        ``label`` (e.g. a region between two cuts, with copies of vertices); ``graph`` is
        the function's graph the labels belong to."""
        state = cls.__new__(cls)
        state.graph, state.algebra, state.steps, state.version = graph, algebra, [], 0
        state.spent = 0
        state.role = dict(g.nodes(data="role"))
        state.succ = {v: {} for v in g}
        state.pred = {v: {} for v in g}
        for u, v, label in g.edges(data="label"):
            state.succ[u][v] = state.pred[v][u] = label
        return state

    def copy(self) -> Elimination:
        """An independent copy (the algebra copied too: a symbolic one keeps its own
        references, continuing the numbering)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.algebra = self.algebra.copy()
        other.succ = {v: dict(out) for v, out in self.succ.items()}
        other.pred = {v: dict(into) for v, into in self.pred.items()}
        other.steps = list(self.steps)
        other.spent = self.spent
        return other

    # -- queries -------------------------------------------------------------------------

    def is_intermediate(self, v: str) -> bool:
        return self.role[v] == "intermediate"

    def intermediates(self) -> list[str]:
        """The intermediates left, in the order of the graph."""
        return [v for v in self.succ if self.role[v] == "intermediate"]

    def done(self) -> bool:
        """Whether the graph is bipartite between inputs and outputs."""
        return not any(self.role[v] == "intermediate" for v in self.succ)

    def entries(self) -> dict[tuple[str, str], Any]:
        """The labels of the input -> output edges, keyed (output, input)."""
        role = self.role
        return {
            (y, x): label
            for x, out in self.succ.items()
            if role[x] == "input"
            for y, label in out.items()
            if role[y] == "output"
        }

    def markowitz(self, v: str) -> int:
        """|P_v| * |S_v|: the products eliminating v now makes."""
        return len(self.pred[v]) * len(self.succ[v])

    def fill_in(self, v: str) -> int:
        """The new edges eliminating ``v`` now would create."""
        return sum(1 for i in self.pred[v] for k in self.succ[v] if k not in self.succ[i])

    def vertex_cost(self, v: str) -> int:
        """What eliminating ``v`` now would cost in the algebra."""
        cost = self.algebra.cost
        return sum(
            cost(upper, lower) for upper in self.succ[v].values() for lower in self.pred[v].values()
        )

    def edge_cost(self, i: str, j: str, direction: str) -> int:
        """What front- (``forward``) or back-eliminating i -> j now would cost."""
        cost, label = self.algebra.cost, self.succ[i][j]
        if direction == "forward":
            return sum(cost(label, lower) for lower in self.pred[i].values())
        return sum(cost(upper, label) for upper in self.succ[j].values())

    def products(self, move: Move) -> int:
        """The products ``move`` makes: its structural count."""
        op, target = move
        if op == "vertex":
            return self.markowitz(target)
        i, j = target
        return len(self.pred[i]) if op == "forward" else len(self.succ[j])

    # -- Naumann's rules -----------------------------------------------------------------

    def eliminate_vertex(self, v: str, op: str = "vertex", region: str | None = None) -> int:
        """For every predecessor i and successor k: c_ki += c_kv · c_vi; v goes (the step
        recorded as ``op`` within ``region``: :class:`dgraph.core.expressions.Step`)."""
        if v not in self.succ or self.role[v] != "intermediate":
            raise DGraphError(f"cannot eliminate {v!r}: not a remaining intermediate vertex")
        changed = self._changing(v, list(self.pred[v]), list(self.succ[v]))
        cost = self._chain_rule(v)
        self._drop_vertex(v)
        return self._record(op, v, cost, region, changed)

    def eliminate_edge(self, i: str, j: str, direction: str) -> int:
        """Front (``forward``) elimination of i -> j, i intermediate: c_jk += c_ji · c_ik
        for every predecessor k of i, and i goes when it has no successor left; or back
        (``backward``), j intermediate: c_ki += c_kj · c_ji for every successor k of j,
        and j goes when it has no predecessor left."""
        forward = direction == "forward"
        v = i if forward else j
        if j not in self.succ.get(i, ()) or self.role[v] != "intermediate":
            end = "source" if forward else "target"
            raise DGraphError(
                f"cannot {direction}-eliminate {i} -> {j}: needs an intermediate {end}"
            )
        if forward:
            changed = self._changing(i, list(self.pred[i]), [j])
        else:
            changed = self._changing(j, [i], list(self.succ[j]))
        cost = self._chain_rule(i, upper=j) if forward else self._chain_rule(j, lower=i)
        self._drop_edge(i, j)
        if not (self.succ[i] if forward else self.pred[j]):
            self._drop_vertex(v)
        return self._record(direction, (i, j), cost, None, changed)

    def eliminate_forward(self, i: str, j: str) -> int:
        return self.eliminate_edge(i, j, "forward")

    def eliminate_backward(self, i: str, j: str) -> int:
        return self.eliminate_edge(i, j, "backward")

    def apply(self, move: Move) -> int:
        op, target = move
        if op == "vertex":
            return self.eliminate_vertex(target)
        if op in ("forward", "backward"):
            return self.eliminate_edge(*target, op)
        raise DGraphError(f"unknown elimination {op!r}")

    def name_references(self) -> None:
        """Name every compound label (a symbolic algebra's), so that working graphs built
        from this one share its values."""
        self._name([(u, v) for u, out in self.succ.items() for v in out])
        self.algebra.relabelled()
        self.version += 1

    # -- bookkeeping ---------------------------------------------------------------------

    def _chain_rule(self, v: str, upper: str | None = None, lower: str | None = None) -> int:
        """c_ki += c_kv · c_vi for every successor k of v (only ``upper`` if given) and
        every predecessor i (only ``lower``): the rule of every move; what it costs."""
        succ, pred, algebra = self.succ, self.pred, self.algebra
        if algebra.names:  # in the order the products use them
            ks = list(succ[v]) if upper is None else [upper]
            lows = list(pred[v]) if lower is None else [lower]
            if ks and lows:
                named = [(v, ks[0]), *((i, v) for i in lows), *((v, k) for k in ks[1:])]
                if self.names_only_shared and upper is None and lower is None:
                    # c_vi is a factor of |ks| products, c_kv of |lows|
                    named = [e for e in named if len(lows if e[0] == v else ks) > 1]
                self._name(named)
        uppers = succ[v] if upper is None else {upper: succ[v][upper]}
        lowers = pred[v] if lower is None else {lower: pred[v][lower]}
        multiply, add = algebra.multiply, algebra.add
        total = 0
        for k, c_kv in uppers.items():
            into = pred[k]
            for i, c_vi in lowers.items():
                cost, term = multiply(c_kv, c_vi)
                total += cost
                out = succ[i]
                out[k] = into[i] = add(out[k], term) if k in out else term
        return total

    def _name(self, edges: Iterable[tuple[str, str]]) -> None:
        factor = self.algebra.factor
        for u, v in edges:
            label = self.succ[u][v]
            named = factor(label)
            if named is not label:
                self.succ[u][v] = self.pred[v][u] = named

    def _changing(
        self, v: str, lows: list[str], ks: list[str]
    ) -> tuple[list[tuple[str, str]], list[Any]] | None:
        """Where the algebra :attr:`~Algebra.keeps` the changed labels: the edges the rule
        at ``v`` for the predecessors ``lows`` and successors ``ks`` may change (named,
        summed into, dropped; a vertex that goes has no other edge left), and their labels
        now."""
        if not self.algebra.keeps:
            return None
        edges = [(i, v) for i in lows] + [(v, k) for k in ks]
        edges += [(i, k) for i in lows for k in ks]
        return edges, self._labels(edges)

    def _labels(self, edges: list[tuple[str, str]]) -> list[Any]:
        """The labels of those of ``edges`` that are present."""
        succ = self.succ
        return [succ[u][w] for u, w in edges if u in succ and w in succ[u]]

    def _drop_edge(self, i: str, j: str) -> None:
        del self.succ[i][j], self.pred[j][i]

    def _drop_vertex(self, v: str) -> None:
        for i in self.pred[v]:
            del self.succ[i][v]
        for k in self.succ[v]:
            del self.pred[k][v]
        del self.succ[v], self.pred[v]

    def _record(
        self,
        op: str,
        target: str | tuple[str, str],
        cost: int,
        region: str | None = None,
        changed: tuple[list[tuple[str, str]], list[Any]] | None = None,
    ) -> int:
        if self.records_steps:
            self.steps.append(Step(op, target, cost, region))
            self.spent += cost
            ceiling = CEILING.get()
            if ceiling is not None and self.spent > ceiling:
                self.algebra.relabelled()  # not settled: the next settle counts afresh
                raise SearchTooLarge(f"its steps cost more than {ceiling:,} multiplications")
        if changed is None:
            self.algebra.settle(self.succ)
        else:
            edges, before = changed
            self.algebra.settle(self.succ, (before, self._labels(edges)))
        self.version += 1
        return cost


CEILING: contextvars.ContextVar[int | None] = contextvars.ContextVar("CEILING", default=None)
"""A bound on the multiplications of a recorded elimination (:func:`priced_below`)."""


@contextlib.contextmanager
def priced_below(ceiling: int | None) -> Iterator[None]:
    """Within this block an elimination that records its steps raises
    :class:`SearchTooLarge` as soon as they cost more than ``ceiling`` multiplications
    (None: no bound): a candidate priced against the cheapest so far stops there, before
    its larger products are formed."""
    token = CEILING.set(ceiling)
    try:
        yield
    finally:
        CEILING.reset(token)


class Closure:
    """The labels after eliminating any set of vertices (a mask over ``graph.order()``),
    straight from the graph's: the label of u -> v is then the sum, over the paths from
    u to v whose inner vertices are all eliminated, of their products — whatever order
    eliminated them. What A* over eliminated sets prices its moves with."""

    def __init__(self, graph: DGraph, algebra: Algebra) -> None:
        state = Elimination(graph, algebra)
        self.algebra = algebra
        self.names = graph.order()
        index = {v: i for i, v in enumerate(self.names)}
        self.inner = [index[v] for v in graph.intermediates]
        self.preds = [[(index[u], label) for u, label in state.pred[v].items()] for v in self.names]

    def labels(self, done: int) -> Labels:
        """Every vertex's in- and out-edge labels after eliminating ``done``."""
        multiply, add = self.algebra.multiply, self.algebra.add
        into: list[dict[int, Any]] = []
        for preds in self.preds:
            row: dict[int, Any] = {}
            for u, label in preds:
                if done >> u & 1:  # through u: this edge times each of u's in-edges
                    for w, below in into[u].items():
                        term = multiply(label, below).product
                        row[w] = add(row[w], term) if w in row else term
                else:
                    row[u] = add(row[u], label) if u in row else label
            into.append(row)
        out: list[dict[int, Any]] = [{} for _ in self.names]
        for v, row in enumerate(into):
            if not done >> v & 1:
                for u, label in row.items():
                    out[u][v] = label
        return into, out

    def after(self, labels: Labels, v: int) -> Labels:
        """The labels (:meth:`labels`) of a set that leaves ``v``, once ``v`` is eliminated
        too: v's in-edges times its out-edges added into its successors' rows (a vertex
        elimination), the rest shared with ``labels``, which stay as they are. The same
        values as :meth:`labels` of the larger set where they do not depend on the order
        (:meth:`exact`): each is then the sum of its paths' products however bracketed.
        Only the rows of vertices not eliminated are kept up to date."""
        multiply, add = self.algebra.multiply, self.algebra.add
        into, out = labels
        below, above = into[v], out[v]
        into, out = list(into), list(out)
        for k, upper in above.items():
            row = dict(into[k])
            del row[v]
            for i, lower in below.items():
                term = multiply(upper, lower).product
                row[i] = add(row[i], term) if i in row else term
            into[k] = row
        for i in below:
            row = dict(out[i])
            del row[v]
            for k in above:
                row[k] = into[k][i]
            out[i] = row
        out[v] = {}
        return into, out

    def exact(self) -> bool:
        """Whether a label's value depends on the eliminated set alone, as the built
        expression sets count it. Not where two paths whose labels are all constant join
        the same two vertices: the closure adds their products first (``2 - 2 = 0``),
        while an order that eliminates their last vertex first multiplies each by a
        general label before the sum (general + general), which the built set counts,
        and an order that eliminates them first gets the 0 before any general label
        multiplies it. The closure's prices are then neither above nor below every order's
        built count: they prove nothing."""
        if self.algebra is not VALUES:
            return True
        paths: list[dict[int, int]] = []  # all-constant paths into each vertex, by source
        for preds in self.preds:
            row: dict[int, int] = {}
            for u, label in preds:
                if label is None:
                    continue
                for w, n in [(u, 1), *paths[u].items()]:
                    row[w] = row.get(w, 0) + n
                    if row[w] > 1:
                        return False
            paths.append(row)
        return True

    def price(self, v: int, into: list[dict[int, Any]], out: list[dict[int, Any]]) -> int:
        """What eliminating ``v`` costs, given the labels (:meth:`labels`)."""
        cost = self.algebra.cost
        return sum(cost(upper, lower) for lower in into[v].values() for upper in out[v].values())


def effective_cost(graph: DGraph | Elimination, order: Iterable[str]) -> int:
    """Effective multiplications of vertex elimination in ``order`` (from ``graph``, or
    from a state of label values, which stays as it is).

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> effective_cost(g, ["v1", "v2"]), effective_cost(g, ["v2", "v1"])
    (4, 3)
    """
    state = Elimination(graph, pricing(graph)) if isinstance(graph, DGraph) else graph.copy()
    return sum(state.eliminate_vertex(v) for v in order)


class Costed(NamedTuple):
    """What a search found: its cost in the search's objective and the order (vertex
    names) or the moves."""

    cost: int
    order: list[Any]


class MoveCosts(NamedTuple):
    """The multiplications of a sequence of moves: ``effective`` (a product by ±1 free,
    what ``es.mults_effective`` counts) and ``structural`` (every product, ``es.mults``)."""

    effective: int
    structural: int


def move_costs(graph: DGraph, moves: Iterable[Move]) -> MoveCosts:
    """The effective and structural multiplications of vertex moves ``("vertex", v)`` and
    edge moves ``("forward" | "backward", (i, j))``: what the built expression set counts.

    >>> from dgraph.frontends import bundled
    >>> move_costs(bundled("naumann_sin.trace"), [("vertex", "v2"), ("vertex", "v1")])
    MoveCosts(effective=3, structural=3)
    """
    state = Elimination(graph, pricing(graph))
    effective = structural = 0
    for move in moves:
        structural += state.products(move)
        effective += state.apply(move)
    return MoveCosts(effective, structural)


def _roles(graph: DGraph) -> dict[str, str]:
    """Every vertex's role, in evaluation order: read once per graph (``graph.derived``,
    cleared when the graph changes), copied by each working copy."""
    roles = graph.derived.get("elimination_roles")
    if roles is None:
        roles = graph.derived["elimination_roles"] = {v: graph.role(v) for v in graph.order()}
    return roles  # type: ignore[return-value]
