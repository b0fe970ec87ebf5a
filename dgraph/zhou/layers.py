"""Local-Jacobian accumulation: the method ``layers`` (Zhou 2020, §3-4, Eq. 4.6).

Cut the graph into layers — by default its depth levels, or any sequence of vertex sets
the user gives — and the Jacobian is the product of the local Jacobians between
consecutive cuts: J = J1 J2 ... Jm (roots first, matrix order). An edge that jumps over
a cut is segmented by copies of its lower vertex whose labels are 1 (a copy passes its
value through, so multiplying by it is free). Vertices strictly between two cuts are
eliminated inside their layer to give that local Jacobian's entries.

Every bracketing of the chain is a factorization (left to right ~ forward factorization,
right to left ~ backward); the cheapest is chosen by the matrix-chain dynamic program with
sparse costs: multiplying A by B costs one multiplication per pair of nonzeros
A[i, k] B[k, j] with neither factor a pass-through 1. The sparsity and pass-through
patterns of every sub-product do not depend on the bracketing, so they are computed once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import sympy

from ..core.algebra import nc_product, nc_sum
from ..core.cuts import cut_members, cut_positions
from ..core.expressions import ExpressionSet, Step, as_factor, make_expression_set
from ..core.graph import DGraph
from ..elimination.labeled import LabeledGraph
from .segment import copy_name

__all__ = ["Layers", "layer_chain", "layers"]

Matrix = dict[tuple[str, str], sympy.Expr]  # sparse: (upper vertex, lower vertex) -> entry


@dataclass
class Layers:
    """The chain of local Jacobians: ``cuts[k]`` holds the vertices of cut k (cut 0 = the
    roots, the last = the terminals, copies included); ``jacobians[k]`` is J between cut k
    and cut k + 1."""

    cuts: list[list[str]]
    jacobians: list[Matrix]
    references: dict[sympy.Symbol, sympy.Expr]
    steps: list[Step]


def layer_chain(graph: DGraph, cuts: Sequence[Sequence[str]] | None = None) -> Layers:
    """The local Jacobians between consecutive cuts (default: the depth levels)."""
    position = cut_positions(graph, cuts)
    members = cut_members(graph, position)
    last = len(members) - 1
    regions = [nx.DiGraph() for _ in range(last)]

    def add(layer: int, a: str, b: str, label: sympy.Expr) -> None:
        for w in (a, b):
            p = position[w]
            role = "output" if p == layer else "input" if p == layer + 1 else "intermediate"
            regions[layer].add_node(w, role=role)
        regions[layer].add_edge(a, b, label=label)

    taken = set(graph.order())
    copies: dict[tuple[str, int], str] = {}
    for u, v in graph.edges():  # data flow: u (lower) -> v (upper)
        layer = math.floor(position[v])  # the layer the edge arrives from
        below = u
        for c in range(math.ceil(position[u]) - 1, layer, -1):  # the cuts it jumps over
            if (u, c) not in copies:
                name = copies[u, c] = copy_name(u, c + 1, taken)
                taken.add(name)
                position[name] = float(c)
                members[c].append(name)
                add(c, below, name, sympy.Integer(1))
            below = copies[u, c]
        add(layer, below, v, graph.symbol(u, v))

    references: dict[sympy.Symbol, sympy.Expr] = {}
    steps: list[Step] = []
    jacobians: list[Matrix] = []
    order = {v: i for i, v in enumerate(graph.order())}
    for k, region in enumerate(regions):
        lg = LabeledGraph.from_structure(graph, region, references)
        inner = [v for v, r in region.nodes(data="role") if r == "intermediate"]
        while inner:  # Markowitz inside the layer
            v = min(inner, key=lambda w: (lg.markowitz(w), order[w]))
            lg.eliminate_vertex(v, op="layer", region=str(k + 1))
            inner.remove(v)
        steps.extend(lg.steps)
        jacobians.append({(b, a): label for a, out in lg.succ.items() for b, label in out.items()})
    return Layers(members, jacobians, references, steps)


# Chains of local Jacobians up to this length get the cheapest bracketing (the
# matrix-chain program is cubic in it);
# longer ones the cheaper of the left-to-right and right-to-left products, linear in it.
SEARCH_LIMIT = 100


def _bracketing(
    chain: Layers, search_limit: int = SEARCH_LIMIT
) -> tuple[int, dict[tuple[int, int], int]]:
    """The cheapest bracketing (the cheaper end-to-end one beyond ``search_limit`` local
    Jacobians): its cost and the split point of every sub-chain."""
    nonzero, unit = _patterns(chain)
    if len(nonzero) > search_limit:
        return _end_to_end(nonzero, unit)
    return _searched(nonzero, unit)


def _patterns(chain: Layers) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each local Jacobian's nonzeros and pass-through 1s, as 0/1 matrices."""
    index = [{v: i for i, v in enumerate(cut)} for cut in chain.cuts]
    nonzero, unit = [], []
    for k, jac in enumerate(chain.jacobians):
        # float32: exact here (counts below 2^24), and matmul runs in BLAS, where
        # integer matmul is a plain loop (minutes on layers a few hundred wide)
        n = np.zeros((len(index[k]), len(index[k + 1])), dtype=np.float32)
        u = np.zeros_like(n)
        for (a, b), entry in jac.items():
            n[index[k][a], index[k + 1][b]] = 1
            u[index[k][a], index[k + 1][b]] = int(entry == 1)
        nonzero.append(n)
        unit.append(u)
    return nonzero, unit


def _general(terms: np.ndarray, through: np.ndarray) -> np.ndarray:
    """The entries a product multiplies: neither zero nor a pass-through."""
    return (terms > 0) & (through == 0)


def _searched(
    nonzero: list[np.ndarray], unit: list[np.ndarray]
) -> tuple[int, dict[tuple[int, int], int]]:
    """The matrix-chain dynamic program over every bracketing."""
    m = len(nonzero)
    import scipy.sparse  # here: `import dgraph` stays free of SciPy (tests/test_api.py)

    # a layer has a few entries per row: its products with the dense patterns below are
    # sparse-times-dense, O(entries x width) where a dense matmul is O(width^3)
    nonzero_sparse = [scipy.sparse.csr_array(n) for n in nonzero]
    unit_sparse = [scipy.sparse.csr_array(u) for u in unit]

    # column and row sums of the general entries (neither zero nor a pass-through) of
    # every Ji ... Jj: a product G @ H makes sum(G @ H) multiplications, which is
    # colsum(G) . rowsum(H), so the search needs only these; the patterns of each j are
    # built from the right, keeping one at a time (all of them take O(m^2 n^2) memory)
    sums: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    for j in range(m):
        terms, through = nonzero[j], unit[j]  # terms per entry (clipped at 2), pass-throughs
        for i in range(j, -1, -1):
            if i < j:
                terms = np.minimum(nonzero_sparse[i] @ terms, 2)
                through = ((np.minimum(unit_sparse[i] @ through, 2) == 1) & (terms == 1)).astype(
                    np.float32
                )
            general = _general(terms, through)
            sums[i, j] = general.sum(axis=0, dtype=np.int64), general.sum(axis=1, dtype=np.int64)

    cost = {(i, i): 0 for i in range(m)}
    split: dict[tuple[int, int], int] = {}
    for length in range(2, m + 1):
        for i in range(m - length + 1):
            j = i + length - 1
            options = [
                (cost[i, k] + cost[k + 1, j] + int(sums[i, k][0] @ sums[k + 1, j][1]), k)
                for k in range(i, j)
            ]
            cost[i, j], split[i, j] = min(options)
    return cost[0, m - 1], split


def _end_to_end(
    nonzero: list[np.ndarray], unit: list[np.ndarray]
) -> tuple[int, dict[tuple[int, int], int]]:
    """The cheaper of ((J1 J2) J3) ... and J1 (... (Jm-1 Jm)) (the first on a tie), each
    priced as :func:`_searched` prices a product, one pattern product a step."""
    m = len(nonzero)
    forward = backward = 0
    terms, through = nonzero[0], unit[0]
    for k in range(1, m):
        forward += int(
            _general(terms, through).sum(axis=0, dtype=np.int64)
            @ _general(nonzero[k], unit[k]).sum(axis=1, dtype=np.int64)
        )
        terms, through = _extended(terms, through, nonzero[k], unit[k])
    terms, through = nonzero[m - 1].T, unit[m - 1].T  # transposed: the same recurrence
    for k in range(m - 2, -1, -1):
        backward += int(
            _general(nonzero[k], unit[k]).sum(axis=0, dtype=np.int64)
            @ _general(terms, through).sum(axis=0, dtype=np.int64)
        )
        terms, through = _extended(terms, through, nonzero[k].T, unit[k].T)
    if forward <= backward:
        return forward, {(0, j): j - 1 for j in range(1, m)}
    return backward, {(i, m - 1): i for i in range(m - 1)}


def _extended(
    terms: np.ndarray, through: np.ndarray, n: np.ndarray, u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The patterns of a product extended on the right by the factor of patterns n, u."""
    terms = np.minimum(terms @ n, 2)
    through = ((np.minimum(through @ u, 2) == 1) & (terms == 1)).astype(np.float32)
    return terms, through


def _notation(split: dict[tuple[int, int], int], i: int, j: int) -> str:
    """``((J1 J2) J3)``: the bracketing of Ji+1 ... Jj+1, written without recursion."""
    out: list[str] = []
    stack: list[tuple[int, int] | str] = [(i, j)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        a, b = item
        if a == b:
            out.append(f"J{a + 1}")
            continue
        k = split[a, b]
        out.append("(")
        stack.extend([")", (k + 1, b), " ", (a, k)])
    return "".join(out)


def _short(split: dict[tuple[int, int], int], i: int, j: int) -> str:
    """The notation of a sub-chain in a step's title: written out up to 8 factors, else
    its ends (a long chain's titles would hold n² characters)."""
    return _notation(split, i, j) if j - i < 8 else f"(J{i + 1} … J{j + 1})"


def _multiply(left: Matrix, right: Matrix, references) -> tuple[Matrix, int]:
    """Sparse product and its multiplications; compound operands become references."""

    def named(entry: sympy.Expr) -> sympy.Expr:
        return as_factor(references, entry)

    by_mid: dict[str, list[tuple[str, sympy.Expr]]] = {}
    for (mid, b), entry in right.items():
        by_mid.setdefault(mid, []).append((b, named(entry)))
    out: Matrix = {}
    mults = 0
    for (a, mid), x in left.items():
        x = named(x)
        for b, y in by_mid.get(mid, ()):
            mults += int(x != 1 and y != 1)
            product = nc_product(x, y)
            out[a, b] = nc_sum(out[a, b], product) if (a, b) in out else product
    return out, mults


def layers(
    graph: DGraph,
    cuts: Sequence[Sequence[str]] | None = None,
    search_limit: int = SEARCH_LIMIT,
) -> ExpressionSet:
    """Accumulate the chain of local Jacobians in the cheapest bracketing (beyond
    ``search_limit`` of them, default :data:`SEARCH_LIMIT`, the cheaper of the
    left-to-right and right-to-left products).

    >>> from dgraph.frontends import bundled
    >>> es = layers(bundled("zhou_two_blocks.json"))
    >>> es.mults, es.info["bracketing"]
    (5, '((J1 J2) (J3 J4))')
    """
    chain = layer_chain(graph, cuts)
    if not chain.jacobians:  # no edge: every output is constant, the Jacobian is zero
        info = {"bracketing": "", "chain_mults": 0, "layers": 0}
        return make_expression_set(graph, {}, {}, chain.steps, "layers", info)
    total, split = _bracketing(chain, search_limit)
    steps = list(chain.steps)
    m = len(chain.jacobians)
    # the products in the order a recursive evaluation makes them (left operand, right
    # operand, then theirs), on an explicit stack: a long chain's bracketing is as deep
    done: dict[tuple[int, int], Matrix] = {(i, i): jac for i, jac in enumerate(chain.jacobians)}
    stack = [(0, m - 1, False)]
    while stack:
        i, j, ready = stack.pop()
        if (i, j) in done:
            continue
        k = split[i, j]
        if not ready:
            stack += [(i, j, True), (k + 1, j, False), (i, k, False)]
            continue
        left, right = done.pop((i, k)), done.pop((k + 1, j))
        done[i, j], mults = _multiply(left, right, chain.references)
        steps.append(Step("product", f"{_short(split, i, k)} {_short(split, k + 1, j)}", mults))
    product = done[0, m - 1]
    info = {
        "bracketing": _notation(split, 0, m - 1) if m <= search_limit else _ends(split, m),
        "chain_mults": total,
        "layers": len(chain.jacobians),
    }
    return make_expression_set(graph, chain.references, product, steps, "layers", info, inline=True)


def _ends(split: dict[tuple[int, int], int], m: int) -> str:
    """The bracketing of a chain beyond the search limit, by its ends."""
    if m == 1:
        return "J1"
    if (0, m - 1) in split and split[0, m - 1] == m - 2:
        return f"left to right: ((J1 J2) … J{m})"
    return f"right to left: (J1 … (J{m - 1} J{m}))"
