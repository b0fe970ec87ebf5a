"""Graphax's cost model for tensor graphs: sparsity types of Jacobian blocks.

AlphaGrad's vertex game (Lohoff & Neftci, "Optimizing automatic differentiation with deep
reinforcement learning", NeurIPS 2024; its runtime is Graphax) forces every array to two
dimensions (a size-1 array is (1, 1), a vector (n, 1)) and gives each Jacobian block
J[a1, a2; c1, c2] (output dims 1, 2 of the target, primal dims 3, 4 of the source) one of
22 *sparsity types*: which output dim is paired with which primal dim, and whether the
pairing is a diagonal with varying values (D) or a Kronecker delta (K: the values repeat
along it):

====  ======================  ====  =========================================
1     dense                   -1    copy (a dtype conversion): free, keeps the other type
2..5  D(1,3) D(2,4) D(1,4)    -2..  K(1,3) K(2,4) K(1,4) K(2,3)
      D(2,3)                  -5
6     D(1,3) D(2,4) diagonal  -6    K(1,3) K(2,4): the identity, free
7     D(1,4) D(2,3)           -7    K(1,4) K(2,3): a permutation, free
8     K(1,3) D(2,4)           -8    D(1,3) K(2,4)
9     K(1,4) D(2,3)           -9    D(1,4) K(2,3)
10    K(1,3) K(2,4) scaled    -10   K(1,4) K(2,3) scaled
11    reshape/slice/concat: free, but the product is dense (type 1)
====  ======================  ====  =========================================

A product of the block u -> v (``lower``) and v -> w (``upper``) joins the six dims
(w1, w2, v1, v2, u1, u2) along the pairings. The result pairs w_i with u_k when they are
joined, K only if every pairing on the way is K. Its price multiplies one size per joined
class along which either factor varies (unpaired, or D): the w dim if the class has one,
else the u dim, else the v dim (:func:`product`). A sum keeps the pairings both terms have
(:func:`sum_type`).

Graphax's tables are written by hand; where they depart from these rules we follow them
(:data:`PRODUCT_QUIRKS`, :data:`SUM_QUIRKS`, and: of the products of two scaled
Kronecker types only 10·10 costs 1, the others nothing; a scaled type times a pure move
after it gives the pure type; in a sum a scaled type 10/-10 counts as diagonal, and equal
types keep their type).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from ..errors import InputError

__all__ = [
    "DIMS",
    "PRODUCT_QUIRKS",
    "SUM_QUIRKS",
    "TYPES",
    "Edge",
    "TypedProduct",
    "edge_types",
    "force_2d",
    "markowitz_weight",
    "product",
    "product_cost",
    "sum_type",
]

Shape2 = tuple[int, int]
DIMS = ("w1", "w2", "v1", "v2", "u1", "u2")  # the six dims of a product, in Graphax's order
_D, _K = "D", "K"

# type -> {(output dim, primal dim): D or K}
TYPES: dict[int, dict[tuple[int, int], str]] = {
    1: {},
    2: {(1, 3): _D},
    3: {(2, 4): _D},
    4: {(1, 4): _D},
    5: {(2, 3): _D},
    6: {(1, 3): _D, (2, 4): _D},
    7: {(1, 4): _D, (2, 3): _D},
    8: {(1, 3): _K, (2, 4): _D},
    9: {(1, 4): _K, (2, 3): _D},
    10: {(1, 3): _K, (2, 4): _K},
    -2: {(1, 3): _K},
    -3: {(2, 4): _K},
    -4: {(1, 4): _K},
    -5: {(2, 3): _K},
    -6: {(1, 3): _K, (2, 4): _K},
    -7: {(1, 4): _K, (2, 3): _K},
    -8: {(1, 3): _D, (2, 4): _K},
    -9: {(1, 4): _D, (2, 3): _K},
    -10: {(1, 4): _K, (2, 3): _K},
}
_PURE = {-6, -7}  # identity and permutation: multiplying by them is moving values
_SCALED = {10, -10}

# (t_lower, t_upper): (result type, multiplied dims) where Graphax's table departs from
# composing the pairings: results of the mixed transposing types 9/-9, and extra (or
# fewer) dims in some products of a Kronecker factor with a mixed one
PRODUCT_QUIRKS: dict[tuple[int, int], tuple[int, str]] = {
    (-10, -9): (-8, "w1 w2"),
    (-10, -8): (-9, "w1 w2"),
    (-9, -8): (7, "w1"),
    (-9, 2): (5, "w1 w2 u1"),
    (-9, 3): (4, "w1 w2 u2"),
    (-9, 4): (3, "w1 w2 u2"),
    (-9, 5): (2, "w1 w2 u1"),
    (-9, 8): (-9, "w1 w2"),
    (-9, 9): (6, "w2"),
    (-8, -9): (-9, "w1 w2"),
    (-8, 9): (7, "w2"),
    (-4, -9): (-3, "w1"),
    (-4, 9): (3, "w1 w2"),
    (-3, -10): (-4, "w2 u1 u2"),
    (-3, 7): (4, "w1 w2 u1 u2"),
    (2, -5): (5, "w1 w2 v2 u1 u2"),
    (2, -4): (4, "w1 w2 u1 u2"),
    (3, -4): (1, "w1 w2 v1 u1"),
    (3, 7): (4, "w1 w2 u1 u2"),
    (4, -9): (3, "w1 w2"),
    (4, 9): (3, "w1 w2"),
    (8, -9): (7, "w1"),
    (8, -5): (-5, "w1 w2 u2"),
    (8, -4): (-4, "w1 w2 u1"),
    (8, 9): (9, "w1 w2"),
    (9, -9): (-9, "w1"),
    (9, -8): (9, "w1 w2"),
    (9, -5): (-3, "w1 w2 u1"),
    (9, 2): (5, "w1 w2 u1"),
    (9, 3): (4, "w1 w2 u2"),
    (9, 4): (3, "w1 w2 u2"),
    (9, 5): (2, "w1 w2 u1"),
    (9, 8): (7, "w2"),
    (10, -9): (-9, "w1 w2"),
    (10, -8): (-8, "w1 w2"),
}
# (existing, new) -> type where Graphax's sum table departs from the rules above
SUM_QUIRKS: dict[tuple[int, int], int] = {(8, 10): 1, (10, -6): 10}


def _type_of(pairs: dict[tuple[int, int], str], scaled: bool) -> int:
    """The type with these pairings; two K pairings: the scaled type or the pure one."""
    two_k = len(pairs) == 2 and all(k == _K for k in pairs.values())
    for t, p in TYPES.items():
        if p == pairs and (not two_k or (t in _SCALED) == scaled):
            return t
    raise AssertionError(pairs)  # every set of pairings a product makes has a type


class TypedProduct(NamedTuple):
    """A product's sparsity type in Graphax's numbering and the dims it multiplies over
    (indices into :data:`DIMS`)."""

    type: int
    dims: tuple[int, ...]


@cache
def product(t_lower: int, t_upper: int) -> TypedProduct:
    """The type of ``upper · lower``, the block v -> w times the block u -> v, and the
    dims its multiplications run over (``()``: free).

    >>> product(6, 6)  # two diagonals: one multiplication per element
    TypedProduct(type=6, dims=(0, 1))
    >>> tuple(product(-3, 6))  # W ⊗ I after exp: the Kronecker factor's dim is kept once
    (3, (0, 1, 4))
    >>> product(11, 6).dims  # a reshape: free, but the result is dense
    ()
    """
    if (t_lower, t_upper) in PRODUCT_QUIRKS:
        t, dims = PRODUCT_QUIRKS[t_lower, t_upper]
        return TypedProduct(t, tuple(DIMS.index(d) for d in dims.split()))
    if 0 in (t_lower, t_upper):
        return TypedProduct(0, ())
    if t_lower == -1 or t_upper == -1:
        return TypedProduct(t_upper if t_lower == -1 else t_lower, ())
    if 11 in (t_lower, t_upper):
        return TypedProduct(11 if t_lower == t_upper else 1, ())
    parent = {d: d for d in DIMS}

    def root(d: str) -> str:
        while parent[d] != d:
            d = parent[d]
        return d

    kinds: dict[str, list[tuple[str, str]]] = {"upper": [], "lower": []}
    for side, t, (out, primal) in (("upper", t_upper, "wv"), ("lower", t_lower, "vu")):
        for (a, b), kind in TYPES[t].items():
            x, y = f"{out}{a}", f"{primal}{b - 2}"
            parent[root(y)] = root(x)
            kinds[side].append((x + y, kind))
    classes: dict[str, list[str]] = {}
    for d in DIMS:
        classes.setdefault(root(d), []).append(d)
    pairs: dict[tuple[int, int], str] = {}
    dims: list[int] = []
    for members in classes.values():
        if _varies(members, kinds["upper"], "wv") or _varies(members, kinds["lower"], "vu"):
            first = next(d for side in "wuv" for d in members if d[0] == side)
            dims.append(DIMS.index(first))
        ws = [d for d in members if d[0] == "w"]
        us = [d for d in members if d[0] == "u"]
        if ws and us:
            on_way = [k for _, pairs_ in kinds.items() for e, k in pairs_ if e[:2] in members]
            pairs[int(ws[0][1]), int(us[0][1]) + 2] = _K if all(k == _K for k in on_way) else _D
    if t_lower in _PURE or t_upper in _PURE:
        dims = []
    # the scale survives unless a pure move comes after it (Graphax's table)
    scaled = t_upper in _SCALED or (t_lower in _SCALED and t_upper not in _PURE)
    return TypedProduct(_type_of(pairs, scaled), tuple(sorted(dims)))


def _varies(members: list[str], kinds: list[tuple[str, str]], sides: str) -> bool:
    """Whether a factor (its dims ``sides``) has values varying along the joined class:
    one of its dims there is unpaired or in a D pairing."""
    for d in members:
        if d[0] not in sides:
            continue
        mine = [k for e, k in kinds if d in (e[:2], e[2:])]
        if not mine or mine[0] == _D:
            return True
    return False


def product_cost(t_lower: int, t_upper: int, w: Shape2, v: Shape2, u: Shape2) -> int:
    """Graphax's multiplications for ``upper · lower`` with these 2-D shapes.

    >>> product_cost(1, 1, (2, 1), (3, 1), (5, 1))
    30
    >>> product_cost(-3, 6, (4, 4), (4, 4), (4, 4))
    64
    """
    if t_lower == t_upper == 10:
        return 1
    dims = product(t_lower, t_upper).dims
    sizes = (*w, *v, *u)
    cost = 1
    for k in dims:
        cost *= max(sizes[k], 1)
    return cost if dims else 0


@cache
def sum_type(existing: int, new: int) -> int:
    """The type of ``existing + new`` (Graphax's order of the terms).

    >>> sum_type(6, -2), sum_type(-2, 2), sum_type(11, 6)
    (2, 2, 1)
    """
    if (existing, new) in SUM_QUIRKS:
        return SUM_QUIRKS[existing, new]
    if new == 0 or existing == new:
        return existing
    if existing == 0:
        return new
    if -1 in (existing, new):
        return new if existing == -1 else existing
    if 1 in (existing, new) or 11 in (existing, new):
        return 1

    def pairs(t: int) -> dict[tuple[int, int], str]:
        return {e: (_D if t in _SCALED else k) for e, k in TYPES[t].items()}

    a, b = pairs(existing), pairs(new)
    both = {e: (_K if a[e] == b[e] == _K else _D) for e in a.keys() & b.keys()}
    return _type_of(both, scaled=False)


@dataclass(frozen=True)
class Edge:
    """A Graphax edge: its type, the target's 2-D shape and the source's."""

    type: int
    out: Shape2
    primal: Shape2


def force_2d(shape: Sequence[int]) -> Shape2:
    """Graphax's 2-D shape: a size-1 array (1, 1), a vector (n, 1), a matrix itself."""
    shape = tuple(int(n) for n in shape)
    if len(shape) > 2:
        raise InputError(f"Graphax's model has no rank-{len(shape)} arrays (shape {shape})")
    if all(n == 1 for n in shape):
        return (1, 1)
    return (shape[0], 1) if len(shape) == 1 else (shape[0], shape[1])


def _kind(shape: Sequence[int]) -> Shape2:
    """The shape Graphax classifies dot_general and reductions by: a vector (n, 0), even
    of size 1 (its second rule overrides the first), other size-1 arrays (0, 0), a matrix
    itself."""
    shape = tuple(shape)
    if len(shape) == 1:
        return (shape[0], 0)
    if all(n == 1 for n in shape):
        return (0, 0)
    return (shape[0], shape[1])


_UNARY = {
    "neg", "abs", "exp", "log", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "integer_pow", "square", "sqrt",
    "rsqrt", "logistic", "erf", "custom_jvp_call",
}  # fmt: skip
_BINARY = {"add", "sub", "mul", "div", "add_any", "eq", "max", "min", "pow"}
_MOVES = {"reshape", "slice", "dynamic_slice", "dynamic_update_slice"}


def edge_types(
    primitive: str,
    params: dict,
    shapes: Sequence[tuple[int, ...]],
    variables: Sequence[bool],
    out: tuple[int, ...],
) -> dict[int, Edge]:
    """Graphax's edges into an equation: operand position -> :class:`Edge`, for the
    operands that are variables (``variables``); ``shapes`` every operand's shape and
    ``out`` the result's, as the jaxpr gives them. Two positions holding one variable
    make one edge, the last position's (Graphax writes the edge twice)."""
    o = force_2d(out)
    vars_ = [k for k, is_var in enumerate(variables) if is_var]
    if primitive == "stop_gradient" or primitive == "iota" or not vars_:
        return {}
    if primitive in _UNARY:  # the first operand only
        s = force_2d(shapes[0])
        t = 1 if s == (1, 1) else 6
        return {0: Edge(t, s, o)} if variables[0] else {}  # Graphax stores (in, out) here
    if primitive in _BINARY:
        edges = {}
        for k in vars_:
            mine, other = force_2d(shapes[k]), force_2d(shapes[1 - k])
            if mine == (1, 1):
                t = 1
            elif mine[1] == 1:  # a column
                t = -2 if o[1] == 1 and other == (1, 1) else 2
            elif mine[0] == 1:  # a row
                t = -3 if o[0] == 1 and other == (1, 1) else 3
            elif other[1] == 1:  # a matrix; the other a column or a scalar (1, 1)
                t = -8
            elif other[0] == 1:
                t = 8
            else:
                t = 6
            edges[k] = Edge(t, o, mine)
        return edges
    if primitive == "dot_general":
        (lc, rc), _ = params["dimension_numbers"]
        ldim, rdim = lc[0], rc[0]
        lhs, rhs = _kind(shapes[0]), _kind(shapes[1])
        types = (1, 1)
        if lhs[0] > 0 and lhs[1] == 0:  # a vector
            if rhs[0] > 0 and rhs[1] == 0:
                types = (1, 1)
            elif rhs[0] == 1 and rhs[1] > 0:
                types = {(0, 1): (-3, -2), (1, 0): (-2, -3)}.get((ldim, rdim), (1, 1))
            else:
                types = (-4, -3)
        elif rhs[0] > 0 and rhs[1] == 0:
            types = (-2, 1)
        elif rhs[0] > 0 and rhs[1] > 0:
            types = {(1, 0): (-2, -3), (1, 1): (-2, -5), (0, 0): (-4, -3), (0, 1): (-4, -5)}[
                ldim, rdim
            ]
        return {k: Edge(types[k], o, force_2d(shapes[k])) for k in vars_}
    s, k0 = force_2d(shapes[vars_[0]]), vars_[0]
    if primitive in ("reduce_sum", "reduce_max", "reduce_min"):
        mine, res = _kind(shapes[k0]), _kind(out)
        t = 1
        if mine[0] > 0 and mine[1] > 0 and res != (0, 0):
            if res[1] == 0:  # a vector
                sums = -4 if params["axes"][0] == 0 else -2
                t = sums if primitive == "reduce_sum" else 2
            elif res[0] == 1 and res[1] > (0 if primitive == "reduce_sum" else 1):
                t = -3 if primitive == "reduce_sum" else 3
        return {k0: Edge(t, o, s)}
    if primitive == "transpose":
        t = 1 if s == (1, 1) else -4 if s[1] == 1 else -5 if s[0] == 1 else -7
        return {k0: Edge(t, o, s)}
    if primitive in ("broadcast_in_dim", "squeeze"):
        return {k0: Edge(-6 if s == o else -7, o, s)}
    if primitive in _MOVES:
        return {k0: Edge(11, o, s)}
    if primitive == "concatenate":  # Graphax stores the first variable's shape for all
        return {k: Edge(11, o, s) for k in vars_}
    if primitive == "convert_element_type":
        return {k0: Edge(-1, o, s)}
    raise InputError(f"Graphax's model has no rule for {primitive!r}")


def markowitz_weight(edge: Edge, outgoing: bool) -> int:
    """What an edge adds to its vertex's count in Graphax's Markowitz degree (the product
    of the in- and out-edge counts): a dense edge the vertex's size (its primal dims when
    ``outgoing``, its output dims otherwise, both the vertex's), a diagonal 1, any other
    type one of the edge's *output* dims, as Graphax's lookup evaluates under JAX
    (negative indices wrap once, then clamp).

    >>> markowitz_weight(Edge(1, (4, 1), (8, 1)), outgoing=True)
    8
    >>> markowitz_weight(Edge(6, (8, 1), (8, 1)), outgoing=True)
    1
    """
    t = edge.type
    if t == 1:
        return (edge.primal if outgoing else edge.out)[0] * (edge.primal if outgoing else edge.out)[
            1
        ]
    if t in (6, 7, 8):
        return 1
    return edge.out[0] if t in (-1, 0, 3, 4) else edge.out[1]
