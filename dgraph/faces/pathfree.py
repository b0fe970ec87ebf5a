"""Face elimination without paths: the line graph with each vertex's label read as nodes
of the expression DAG, and the stacks of open products at every face (Zhou 2020, §5).

An expression set is a grammar: every input-output path has one derivation, a tree of
products (its parentheses) over the edge symbols. At a vertex ``m`` of a path, the
products whose span holds ``m`` strictly inside form a *stack*; the top one is the
multiplication that joins the path at ``m``. The paths through a face ``(i, j)`` are the
left parts routed through ``i`` times the right parts routed through ``j``, and the
paths with one stack are its left parts times its right parts, so the stacks of the
face are ``Λ(i) ∩ Ρ(j)``: the stacks some left part through ``i`` reaches, read left to
right over the labels' items, met with those some right part through ``j`` reaches. Sets
of stacks are kept as a graph-structured stack (GLR parsing), hash-consed, so their
size follows the expression DAG and the line graph, never the number of paths.
Eliminating ``(i, j)`` keeps every parenthesis iff each top ``Y`` of the face has the
outer ends of ``i`` and ``j`` among its factor boundaries (Lemma 2's wait otherwise).

References
----------
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
Y. Zhou, *Notes on Computational Graph and Jacobian Accumulation*, arXiv:2012.15034,
2020, §5 (multiplication relations, Lemmas 1-2, Proposition 1).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Generator
from typing import Any

import sympy

from ..core.expressions import ExpressionSet, Step
from ..core.graph import DGraph
from ..core.kinds import Value, add, multiply, value_of
from ..core.nesting import run_nested
from ..errors import DGraphError
from .line_graph import SUPER_SINK, SUPER_SOURCE
from .state import Face, LineGraphState

__all__ = ["ExprDag", "LineState", "Stacks", "Undecided", "creation_order"]

Frame = tuple[int, int]  # (product node, boundary index at the top / factor index below)
Item = tuple  # ("node", Z) or ("run", X, a, c): what a label holds, as DAG nodes


class Undecided(Exception):
    """The path-free check cannot read this expression set (a value without one span)."""


class ExprDag:
    """An expression set as a DAG: leaves (edges), products (factors in path order, with
    the graph vertices at their boundaries) and sums; references are shared nodes, and
    each written product is its own node, as the expression set's cost counts it."""

    def __init__(self, es: ExpressionSet) -> None:
        edge_of = es.graph.edge_symbols
        self.kind: list[str] = []
        self.kids: list[list[int]] = []
        self.span: list[tuple[str, str]] = []
        self.bounds: list[list[str]] = []
        self.index: list[dict[str, int]] = []
        self.trans: list[frozenset[int]] = []
        self.root: list[bool] = []
        self.entry: dict[int, tuple[str, str]] = {}  # root node -> (y, x)
        self.formula: dict[int, sympy.Expr] = {}  # root node -> its entry, printed on demand
        leaves: dict[sympy.Symbol, int] = {}
        refs: dict[sympy.Symbol, int | None] = {}

        def walk(e: sympy.Expr) -> Generator:
            """The node of ``e`` (None for the factor 1); ``yield walk(a)`` reads an
            argument's, on :func:`~dgraph.core.nesting.run_nested`'s stack: references
            nest as deep as the graph."""
            if e.is_Symbol:
                if e in edge_of:
                    if e not in leaves:
                        leaves[e] = self._new("leaf", [], edge_of[e], list(edge_of[e]))
                    return leaves[e]
                if e not in es.references:
                    raise Undecided(f"unknown symbol {e}")
                if e not in refs:
                    refs[e] = yield walk(es.references[e])
                return refs[e]
            if e.is_Number:
                if e != 1:
                    raise DGraphError(
                        f"faces: a numeric factor {e} has no face-elimination meaning"
                    )
                return None
            if e.is_Add:
                terms = []
                for a in e.args:
                    terms.append((yield walk(a)))
                if any(t is None for t in terms) or len({self.span[t] for t in terms}) != 1:
                    raise Undecided("a sum whose terms span different vertices")
                return self._new("add", terms, self.span[terms[0]], [])
            if e.is_Mul or (e.is_Pow and e.exp.is_Integer and e.exp > 0):
                if e.is_Mul:
                    factors = []
                    for a in e.args:
                        factors.append((yield walk(a)))
                else:
                    factors = [(yield walk(e.base))] * int(e.exp)
                factors = [f for f in reversed(factors) if f is not None]  # path order
                if not factors:
                    raise Undecided("an empty product")
                if len(factors) == 1:
                    return factors[0]
                bounds = [self.span[factors[0]][0]] + [self.span[f][1] for f in factors]
                if any(self.span[a][1] != self.span[b][0] for a, b in itertools.pairwise(factors)):
                    raise Undecided("a product whose factors do not meet")
                if len(set(bounds)) != len(bounds):
                    raise Undecided("a product that passes a vertex twice")
                return self._new("mul", factors, (bounds[0], bounds[-1]), bounds)
            raise Undecided(f"unsupported term {e}")

        for (y, x), entry in es.jacobian.items():
            node = run_nested(walk(entry))
            if node is None or self.span[node] != (x, y):
                raise Undecided(f"the entry d{y}/d{x} does not span {x} -> {y}")
            r = self._new("mul", [node], (x, y), [x, y], root=True)
            self.entry[r] = (y, x)
            self.formula[r] = entry

    def text(self, r: int) -> str:
        """Root ``r``'s Jacobian entry as printed in a dependency (only a cycle's are)."""
        y, x = self.entry[r]
        return f"d{y}/d{x} = {self.formula[r]}"

    def _new(self, kind: str, kids: list[int], span, bounds: list[str], root=False) -> int:
        n = len(self.kind)
        self.kind.append(kind)
        self.kids.append(kids)
        self.span.append(tuple(span))
        self.bounds.append(bounds)
        self.index.append({v: t for t, v in enumerate(bounds)})
        self.root.append(root)
        if kind == "add":
            self.trans.append(frozenset().union(*(self.trans[k] for k in kids)))
        else:
            self.trans.append(frozenset({n}))
        return n

    def size(self, node: int) -> int:
        """The number of factors of a product."""
        return len(self.kids[node])

    def products(self, expr: int) -> list[int]:
        """The products a factor can be, through sums and references."""
        return sorted(n for n in self.trans[expr] if self.kind[n] == "mul")

    def word(self, node: int, want: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        """One path the node derives, as edges: in each sum the term that passes most of
        the vertices ``want`` (the first such term)."""
        return run_nested(self._word(node, want))

    def _word(self, node: int, want: frozenset[str]) -> Generator:
        if self.kind[node] == "leaf":
            return [self.span[node]]
        if self.kind[node] == "add":
            best = max(self.kids[node], key=lambda k: (len(self.vertices(k) & want), -k))
            return (yield self._word(best, want))
        out = []
        for k in self.kids[node]:
            out += yield self._word(k, want)
        return out

    def vertices(self, node: int) -> frozenset[str]:
        """The graph vertices some path the node derives passes."""
        if not hasattr(self, "_vertices"):
            self._vertices: dict[int, frozenset[str]] = {}
        return run_nested(self._vertices_of(node))

    def _vertices_of(self, node: int) -> Generator:
        if node not in self._vertices:
            if self.kind[node] == "leaf":
                out = frozenset(self.span[node])
            else:
                parts = []
                for k in self.kids[node]:
                    parts.append((yield self._vertices_of(k)))
                out = frozenset().union(*parts)
            self._vertices[node] = out
        return self._vertices[node]


class Stacks:
    """Sets of stacks of open products as a hash-consed graph-structured stack: a node is
    a top frame and the set of nodes below it; node 0 is the bottom. Reading a label's
    items moves, pushes or pops frames; two sets meet node by node."""

    def __init__(self, dag: ExprDag) -> None:
        self.dag = dag
        self.frame: list[Frame | None] = [None]
        self.parents: list[frozenset[int]] = [frozenset()]
        self._ids: dict[tuple[Frame, frozenset[int]], int] = {}
        self._meet: dict[tuple[int, int], int | None] = {}
        self._regions: dict[tuple[int, int, str], dict[int, list[int | None]]] = {}
        self._outer: dict[tuple[int, int, str], dict[int, list[int]]] = {}
        self._belows: dict[tuple[int, str], dict[int, frozenset[int]]] = {}
        self._unions: dict[frozenset[int], frozenset[int]] = {}
        self._tops: dict[tuple[int, int, str], frozenset[int]] = {}

    def union(self, nodes) -> frozenset[int]:
        """The same stacks with one node per top frame (their parents united), which keeps
        every set as small as the frames it can have. Uniting a frame's parents is another
        union, done first (an explicit stack: the stacks nest as deep as the graph)."""
        nodes = frozenset(nodes)
        found = self._unions.get(nodes)
        if found is not None:  # most asks: every node made over a union met before
            return found
        todo = [nodes]
        while todo:
            top = todo[-1]
            if top in self._unions:
                todo.pop()
                continue
            groups = self._by_frame(top)
            below = {
                f: frozenset().union(*(self.parents[n] for n in same))
                for f, same in groups.items()
                if len(same) > 1
            }
            missing = [u for u in below.values() if u not in self._unions]
            if missing:
                todo.extend(missing)
                continue
            out = {same[0] for same in groups.values() if len(same) == 1}
            out.update(self._node(f, self._unions[u]) for f, u in below.items())
            self._unions[top] = frozenset(out)
            todo.pop()
        return self._unions[nodes]

    def _by_frame(self, nodes: frozenset[int]) -> dict[Frame | None, list[int]]:
        by_frame: dict[Frame | None, list[int]] = defaultdict(list)
        for n in nodes:
            by_frame[self.frame[n]].append(n)
        return by_frame

    def node(self, frame: Frame, parents: frozenset[int]) -> int:
        return self._node(frame, self.union(parents))

    def _node(self, frame: Frame, parents: frozenset[int]) -> int:
        """The node of ``frame`` over ``parents``, a union already."""
        key = (frame, parents)
        n = self._ids.get(key)
        if n is None:
            n = self._ids[key] = len(self.frame)
            self.frame.append(frame)
            self.parents.append(parents)
        return n

    def meet(self, a: int, b: int) -> int | None:
        """The stacks both ``a`` and ``b`` hold (None if none): the meets of their parents
        first, on an explicit stack (parents are older nodes, so it ends)."""
        if a == b:
            return a
        key = (min(a, b), max(a, b))
        todo = [key]
        while todo:
            a, b = pair = todo[-1]
            if pair in self._meet:
                todo.pop()
                continue
            if a == 0 or self.frame[a] != self.frame[b]:
                self._meet[pair] = None
                todo.pop()
                continue
            pairs = [(p, q) for p in self.parents[a] for q in self.parents[b]]
            missing = [(min(p, q), max(p, q)) for p, q in pairs if p != q]
            missing = [m for m in missing if m not in self._meet]
            if missing:
                todo.extend(missing)
                continue
            below = {p if p == q else self._meet[min(p, q), max(p, q)] for p, q in pairs}
            below.discard(None)
            self._meet[pair] = self.node(self.frame[a], frozenset(below)) if below else None
            todo.pop()
        return self._meet[key]

    def meet_sets(self, left: set[int], right: set[int]) -> set[int]:
        by_frame: dict[Frame, list[int]] = defaultdict(list)
        for b in right:
            by_frame[self.frame[b]].append(b)
        out = set()
        for a in left:
            for b in by_frame.get(self.frame[a], ()):
                m = self.meet(a, b)
                if m is not None:
                    out.add(m)
        return set(self.union(out))

    # -- reading a label -------------------------------------------------------------------

    def _region(self, node: int, slot: int, side: str) -> dict[int, list[int | None]]:
        """Products reachable from factor ``slot`` of ``node`` by descending into first
        (side "left") or last (side "right") factors, each with where it is reached from
        (None: the slot itself)."""
        key = (node, slot, side)
        if key not in self._regions:
            dag = self.dag
            region: dict[int, list[int | None]] = {}
            todo = []
            for w in dag.products(dag.kids[node][slot]):
                region.setdefault(w, []).append(None)
                todo.append(w)
            seen = set(todo)
            while todo:
                w = todo.pop()
                inner = dag.kids[w][0 if side == "left" else -1]
                for w2 in dag.products(inner):
                    region.setdefault(w2, []).append(w)
                    if w2 not in seen:
                        seen.add(w2)
                        todo.append(w2)
            self._regions[key] = region
        return self._regions[key]

    def _opened_by(self, z: int, node: int, slot: int, side: str) -> list[int]:
        """The products of a region whose outer factor (first for side "left", last for
        "right") can be the DAG node ``z``, in the region's order: those a label's item
        ``z`` opens. Indexed once per region rather than testing each product on every
        read: a left-nested chain's region holds all its levels."""
        key = (node, slot, side)
        if key not in self._outer:
            dag, outer = self.dag, defaultdict(list)
            for w in self._region(node, slot, side):
                for u in dag.trans[dag.kids[w][0 if side == "left" else -1]]:
                    outer[u].append(w)
            self._outer[key] = dict(outer)
        return self._outer[key].get(z, [])

    def _below(self, n: int, side: str) -> Any:
        """The stacks under each product of a region pushed on ``n`` (its frame read as
        the factor the region descends into); those of the products it is reached from
        first, on an explicit stack. Nodes never change, so what is found is kept for the
        next read from ``n``: a left-nested chain's region is read again from the same
        stack by every label that opens a level of it."""
        dag, region = self.dag, self._region(*self.frame[n], side)
        memo = self._belows.setdefault((n, side), {})

        def below(w: int) -> frozenset[int]:
            todo = [w]
            while todo:
                u = todo[-1]
                if u in memo:
                    todo.pop()
                    continue
                missing = [f for f in region[u] if f is not None and f not in memo]
                if missing:
                    todo.extend(missing)
                    continue
                out = set()
                for f in region[u]:
                    if f is None:
                        out.add(n)
                    else:
                        inner = 0 if side == "left" else dag.size(f) - 1
                        out.add(self.node((f, inner), memo[f]))
                memo[u] = frozenset(out)
                todo.pop()
            return memo[w]

        return below

    def _top(self, n: int, c: int, side: str) -> frozenset[int]:
        """``n`` with its top product read up to boundary ``c`` (side "left": popped when
        complete) or back to it (side "right": popped at its start); a popped product's
        parents are read on, on an explicit stack."""
        left = side == "left"
        first = (n, c, side)
        todo = [(n, c)]
        while todo:
            n, c = todo[-1]
            key = (n, c, side)
            if key in self._tops:
                todo.pop()
                continue
            y, _ = self.frame[n]
            if (c < self.dag.size(y) if left else c > 0) or self.dag.root[y]:
                self._tops[key] = self.union({self.node((y, c), self.parents[n])})
                todo.pop()
                continue
            after = [
                (p, self.frame[p][1] + 1 if left else self.frame[p][1]) for p in self.parents[n]
            ]
            missing = [(p, d) for p, d in after if (p, d, side) not in self._tops]
            if missing:
                todo.extend(missing)
                continue
            out: set[int] = set()
            for p, d in after:
                out |= self._tops[p, d, side]
            self._tops[key] = self.union(out)
            todo.pop()
        return self._tops[first]

    def _top_left(self, n: int, c: int) -> frozenset[int]:
        """``n`` with its top product read up to boundary ``c`` (popped when complete)."""
        return self._top(n, c, "left")

    def _top_right(self, n: int, c: int) -> frozenset[int]:
        """``n`` with its top product read back to boundary ``c`` (popped at its start)."""
        return self._top(n, c, "right")

    def read_left(self, n: int, items: set[Item]) -> set[int]:
        """The stacks after a label holding ``items``, from the stack ``n`` at its start."""
        dag = self.dag
        y, t = self.frame[n]
        if t >= dag.size(y):
            return set()
        region = self._region(y, t, "left")
        below = self._below(n, "left")
        out: set[int] = set()
        for item in items:
            if item[0] == "run":
                _, x, a, c = item
                if x == y and a == t:
                    out |= self._top_left(n, c)
                elif a == 0 and x in region:
                    out.add(self.node((x, c), below(x)))
            else:
                z = item[1]
                if z in dag.trans[dag.kids[y][t]]:
                    out |= self._top_left(n, t + 1)
                for w in self._opened_by(z, y, t, "left"):
                    out.add(self.node((w, 1), below(w)))
        return set(self.union(out))

    def read_right(self, n: int, items: set[Item]) -> set[int]:
        """The stacks before a label holding ``items``, from the stack ``n`` at its end."""
        dag = self.dag
        y, t = self.frame[n]
        if t <= 0:
            return set()
        region = self._region(y, t - 1, "right")
        below = self._below(self.node((y, t - 1), self.parents[n]), "right")
        out: set[int] = set()
        for item in items:
            if item[0] == "run":
                _, x, a, c = item
                if x == y and c == t:
                    out |= self._top_right(n, a)
                elif c == dag.size(x) and x in region:
                    out.add(self.node((x, a), below(x)))
            else:
                z = item[1]
                if z in dag.trans[dag.kids[y][t - 1]]:
                    out |= self._top_right(n, t - 1)
                for w in self._opened_by(z, y, t - 1, "right"):
                    out.add(self.node((w, dag.size(w) - 1), below(w)))
        return set(self.union(out))

    def witness(self, n: int, want: frozenset[str] = frozenset()) -> tuple[int, list[str]]:
        """One full stack under ``n`` as a path of its expression, passing what it can of
        ``want``: (root, vertices)."""
        chain = []
        while n != 0:
            chain.append(self.frame[n])
            n = min(self.parents[n])
        chain.reverse()
        dag = self.dag
        left: list[tuple[str, str]] = []
        right: list[tuple[str, str]] = []
        for depth, (y, t) in enumerate(chain):
            top = depth == len(chain) - 1
            kids = dag.kids[y]
            left += [e for k in kids[:t] for e in dag.word(k, want)]
            after = kids[t:] if top else kids[t + 1 :]
            right = [e for k in after for e in dag.word(k, want)] + right
        edges = left + right
        return chain[0][0], [edges[0][0], *(v for _, v in edges)]


def creation_order(graph: DGraph) -> list[tuple[str, str]]:
    """The line-graph vertices in the order :class:`FaceState` creates them (walking every
    input-output path as networkx lists them), found by one depth-first search."""
    g = graph.nx
    outputs = set(graph.outputs)
    reach = set(outputs)
    for v in reversed(list(graph.order())):
        if any(w in reach for w in g.successors(v)):
            reach.add(v)
    order: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    explored: set[str] = set()

    def create(spans: list[tuple[str, str]]) -> None:
        for s in spans:
            if s not in seen:
                seen.add(s)
                order.append(s)

    # an iterative depth-first search (a graph is as deep as it is long): each frame is a
    # vertex's successor iterator and the spans pending since the last output, kept as a
    # linked list (span, rest) so that a step does not copy them
    Pending = tuple | None

    def spans_of(pending: Pending) -> list[tuple[str, str]]:
        out = []
        while pending is not None:
            span, pending = pending
            out.append(span)
        return out[::-1]

    for x in graph.inputs:
        if x not in reach:
            continue
        stack: list[tuple[Any, str, Pending]] = [
            (iter(g.successors(x)), x, ((SUPER_SOURCE, x), None))
        ]
        while stack:
            successors, u, pending = stack[-1]
            for v in successors:
                if v not in reach:
                    continue
                spans: Pending = ((u, v), pending)
                if v in outputs:
                    create([*spans_of(spans), (v, SUPER_SINK)])
                    spans = None
                if v in explored:
                    create(spans_of(spans))
                    continue
                explored.add(v)
                stack.append((iter(g.successors(v)), v, spans))
                break
            else:
                stack.pop()
    return order


class LineState(LineGraphState):
    """A line graph under face elimination by Naumann's rules, without paths: faces are
    adjacency, every label is the set of DAG items it holds, and each vertex keeps the
    stacks reached at its end from the left (``left``) and at its start from the right
    (``right``). Vertex ids, names, merges and labels are those :class:`FaceState` gives
    for the same eliminations."""

    def __init__(self, graph: DGraph, dag: ExprDag, symbolic: bool = True) -> None:
        self.graph, self.dag, self.symbolic = graph, dag, symbolic
        self.stacks = Stacks(dag)
        self.succ: dict[int, dict[int, None]] = {}
        self.pred: dict[int, dict[int, None]] = {}
        self.span: dict[int, tuple[str, str]] = {}
        self.name: dict[int, str] = {}
        self.label: dict[int, sympy.Expr] = {}
        self._sums: dict[int, list[sympy.Expr]] = {}  # label: the terms added, not yet one Add
        self.kind: dict[int, Value] = {}
        self.items: dict[int, set[Item]] = {}
        self.length: dict[int, int] = {}  # edges in the longest path segment a label holds
        self.left: dict[int, set[int]] = {}
        self.right: dict[int, set[int]] = {}
        self.touched: set[Frame] = set()  # multiplications done on some paths already
        self.at: dict[str, dict[Face, None]] = defaultdict(dict)  # faces by vertex joined
        self.moved: set[str] = set()  # vertices whose faces changed (see take_moved)
        self._version: dict[int, int] = defaultdict(int)  # bumped when left/right change
        self._joins: dict[Face, tuple[tuple[int, int], frozenset[int]]] = {}
        self.references: dict[sympy.Symbol, sympy.Expr] = {}
        self.steps: list[Step] = []
        self.mults = 0
        self.mults_effective = 0
        self._ids = itertools.count()
        self._span_count: dict[tuple[str, str], int] = defaultdict(int)
        self._alive: dict[tuple[str, str], set[int]] = defaultdict(set)
        self._terminal: set[int] = set()
        leaf = {dag.span[n]: n for n in range(len(dag.kind)) if dag.kind[n] == "leaf"}
        vertex_of: dict[tuple[str, str], int] = {}
        for span in creation_order(graph):
            terminal = SUPER_SOURCE in span or SUPER_SINK in span
            label = None if terminal else graph.symbol(*span)
            kind = 1 if terminal else value_of(graph.constant_label(*span))
            v = vertex_of[span] = self._new(span, label, kind)
            if not terminal:
                if span not in leaf:
                    raise Undecided(f"the edge {span[0]} -> {span[1]} is in no expression")
                self.items[v] = {("node", leaf[span])}
                self.length[v] = 1
        for (a, b), v in vertex_of.items():  # faces: consecutive line-graph vertices
            if b == SUPER_SINK:
                continue
            for w in self.graph.successors(b):
                if (b, w) in vertex_of:
                    self._link(v, vertex_of[b, w])
            if (b, SUPER_SINK) in vertex_of and a != SUPER_SOURCE:
                self._link(v, vertex_of[b, SUPER_SINK])
        roots = defaultdict(list)
        for r, (y, x) in dag.entry.items():
            roots[x].append(self.stacks.node((r, 0), frozenset({0})))
            roots[y].append(self.stacks.node((r, 1), frozenset({0})))
        for v in self._topological():
            if self.is_terminal(v):
                self.left[v] = (
                    set(roots[self.span[v][1]]) if SUPER_SOURCE in self.span[v] else set()
                )
            else:
                self.left[v] = self._read_left(v)
        for v in reversed(self._topological()):
            if self.is_terminal(v):
                self.right[v] = set(roots[self.span[v][0]]) if SUPER_SINK in self.span[v] else set()
            else:
                self.right[v] = self._read_right(v)

    # -- bookkeeping -----------------------------------------------------------------------

    def _new(self, span: tuple[str, str], label: sympy.Expr | None, kind: Value) -> int:
        v = super()._new(span, label, kind)
        if SUPER_SOURCE in span or SUPER_SINK in span:
            self._terminal.add(v)
        return v

    def _link(self, a: int, b: int) -> None:
        self.succ[a][b] = None
        self.pred[b][a] = None
        if not self.is_terminal(a) and not self.is_terminal(b):
            self.at[self.span[a][1]][a, b] = None

    def _unlink(self, a: int, b: int) -> None:
        del self.succ[a][b], self.pred[b][a]
        self.at[self.span[a][1]].pop((a, b), None)

    def _topological(self) -> list[int]:
        indeg = {v: len(self.pred[v]) for v in self.succ}
        todo = sorted(v for v, d in indeg.items() if d == 0)
        out = []
        while todo:
            v = todo.pop()
            out.append(v)
            for w in self.succ[v]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    todo.append(w)
        return out

    def _read_left(self, v: int) -> set[int]:
        out: set[int] = set()
        for p in self.pred[v]:
            for n in self.left[p]:
                out |= self.stacks.read_left(n, self.items[v])
        return set(self.stacks.union(out))

    def _read_right(self, v: int) -> set[int]:
        out: set[int] = set()
        for s in self.succ[v]:
            for n in self.right[s]:
                out |= self.stacks.read_right(n, self.items[v])
        return set(self.stacks.union(out))

    def _drop_if_dead(self, v: int) -> None:
        if v in self.succ and not self.pred[v] and not self.succ[v]:
            del self.succ[v], self.pred[v]
            for d in (
                self.label,
                self._sums,
                self.kind,
                self.items,
                self.length,
                self.left,
                self.right,
            ):
                d.pop(v, None)
            self._alive[self.span[v]].discard(v)

    # -- queries ---------------------------------------------------------------------------

    def is_terminal(self, v: int) -> bool:
        return v in self._terminal

    def _faces_at(self, m: str):
        return self.at.get(m, {})

    def take_moved(self) -> set[str]:
        """The graph vertices whose faces may have changed since the last call: the ends
        of every vertex an elimination or merge made, changed or removed. A face's stacks
        change only with its own vertices', and a product is touched at the vertex where
        its face joins, so no other face's reading changes."""
        moved, self.moved = self.moved, set()
        return moved

    def face_stacks(self, i: int, j: int) -> set[int]:
        """The stacks of the paths through the face ``(i, j)``."""
        return self.stacks.meet_sets(self.left[i], self.right[j])

    def joins(self, i: int, j: int) -> frozenset[int]:
        """The products that join the paths through ``(i, j)`` where ``i`` meets ``j``
        (kept until the stacks of ``i`` or ``j`` change)."""
        key = (self._version[i], self._version[j])
        cached = self._joins.get((i, j))
        if cached is None or cached[0] != key:
            tops = frozenset(self.stacks.frame[n][0] for n in self.face_stacks(i, j))
            cached = self._joins[i, j] = (key, tops)
        return cached[1]

    def keeps(self, i: int, j: int, y: int) -> bool:
        """Whether joining ``i`` and ``j`` forms a run of the product ``y``."""
        index = self.dag.index[y]
        return self.span[i][0] in index and self.span[j][1] in index

    def width(self, i: int, j: int) -> int:
        return self.length[i] + self.length[j]

    # -- Naumann's rules -------------------------------------------------------------------

    def eliminate(self, i: int, j: int) -> int:
        """Eliminate the face ``(i, j)``: ``c_k (+)= c_j · c_i``, one multiplication."""
        if j not in self.succ.get(i, ()) or self.is_terminal(i) or self.is_terminal(j):
            raise DGraphError("only a face between two edge vertices can be eliminated")
        dag = self.dag
        lo, hi = self.span[i][0], self.span[j][1]
        items = set()
        for y in self.joins(i, j):
            a, c = dag.index[y][lo], dag.index[y][hi]
            items.add(("node", y) if (a, c) == (0, dag.size(y)) else ("run", y, a, c))
            self.touched.add((y, dag.index[y][self.span[i][1]]))
        preds, succs = set(self.pred[i]), set(self.succ[j])
        span = (lo, hi)
        term = self._factor(j) * self._factor(i) if self.symbolic else None
        effective, kind = multiply(self.kind[j], self.kind[i])
        k = self._find(span, preds, succs)
        if k is None:
            k = self._new(span, term, kind)
            self.items[k], self.length[k] = set(), 0
        else:
            self.kind[k] = add(self.kind[k], kind)
            if self.symbolic:
                self._added(k, term)
        self.items[k] |= items
        self.length[k] = max(self.length[k], self.length[i] + self.length[j])
        self.steps.append(Step("face", (self.name[i], self.name[j]), 1))
        self._unlink(i, j)
        if not self.succ[i]:
            for p in list(self.pred[i]):
                self._unlink(p, i)
        if not self.pred[j]:
            for s in list(self.succ[j]):
                self._unlink(j, s)
        for p in sorted(preds):
            self._link(p, k)
        for s in sorted(succs):
            self._link(k, s)
        for v in (i, j):
            self._drop_if_dead(v)
        self.left[k] = self._read_left(k)
        self.right[k] = self._read_right(k)
        if j in self.succ:
            self.left[j] = self._read_left(j)
        if i in self.succ:
            self.right[i] = self._read_right(i)
        for v in (i, j, k):
            self._version[v] += 1
        self.moved.update((lo, self.span[i][1], hi))
        self._merge_around({i, j, k} | preds | succs)
        self.mults += 1
        self.mults_effective += effective
        return 1

    def _added(self, v: int, term: sympy.Expr) -> None:
        """``label[v] += term``, the sum made once when the label is read (:meth:`_sum`):
        a reverse sweep's adjoint of an input used n times absorbs n terms, and growing
        sympy's ``Add`` by one term at a time sorts its terms each time (n² compares:
        ``faces -m reverse`` on a running value grew as n^1.6)."""
        self._sums.setdefault(v, [self.label[v]]).append(term)

    def _sum(self, v: int) -> sympy.Expr:
        """``label[v]`` with the terms added since it was last read."""
        terms = self._sums.pop(v, None)
        if terms is not None:
            self.label[v] = sympy.Add(*terms)
        return self.label[v]

    def _factor(self, v: int) -> sympy.Expr:
        self._sum(v)
        return super()._factor(v)

    def _merge(self, keep: int, gone: int) -> None:
        self.kind[keep] = add(self.kind[keep], self.kind[gone])
        if self.symbolic:
            self._added(keep, self._sum(gone))
        self.steps.append(Step("merge", (self.name[keep], self.name[gone]), 0))
        self.items[keep] |= self.items[gone]
        self.length[keep] = max(self.length[keep], self.length[gone])
        self._version[keep] += 1
        self.moved.update(self.span[keep])
        self.left[keep] = set(self.stacks.union(self.left[keep] | self.left[gone]))
        self.right[keep] = set(self.stacks.union(self.right[keep] | self.right[gone]))
        for p in list(self.pred[gone]):
            self._unlink(p, gone)
        for s in list(self.succ[gone]):
            self._unlink(gone, s)
        self._drop_if_dead(gone)

    # -- result ----------------------------------------------------------------------------

    def entries(self) -> dict[tuple[str, str], sympy.Expr]:
        result: dict[tuple[str, str], sympy.Expr] = {}
        for v in self.succ:
            if self.is_terminal(v):
                continue
            (src,), (snk,) = self.pred[v], self.succ[v]
            x, y = self.span[src][1], self.span[snk][0]
            result[(y, x)] = self._sum(v)
        return result
