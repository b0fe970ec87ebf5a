"""Checks for Hessian chain bracketing: every bracketing of a short chain (to test the
dynamic program's optimum against), and the numerical value of a bracketing, each
operation carried out as the sweep it models (to test it computes the Hessian).

Costs here are recounted from the shapes of the tensors each operation sees, one factor
at a time, not from :mod:`dgraph.chain.hessian`'s prefix sums.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from ..errors import SearchTooLarge
from .hessian import HessianProblem, HNode, pairs

__all__ = [
    "MAX_HESSIAN_FACTORS",
    "brute_force_hessian",
    "chain_rule_hessian",
    "count_bracketings",
    "evaluate_hessian",
    "hessian_solutions",
    "random_factors",
    "recount",
]

MAX_HESSIAN_FACTORS = 6
Factors = Sequence[tuple[np.ndarray, np.ndarray]]


@cache
def count_bracketings(length: int, given: bool = True) -> int:
    """How many bracketings a chain of ``length`` factors has: two runs from the
    identity, plus per split a product of two, a tangent over the lower or an adjoint
    under the upper; a factor alone can also be given (3, 17, … with every factor given)."""
    total = 2 + (1 if length == 1 and given else 0)
    for upper in range(1, length):
        a, b = count_bracketings(upper, given), count_bracketings(length - upper, given)
        total += a * b + a + b
    return total


def _own(p: HessianProblem, op: str, j: int, i: int, k: int | None, kids, root: bool) -> int:
    """The operation's own cost from the shapes of its seeds, factor by factor."""
    if op == "given":
        return 0
    if op == "tangent":
        cols = p.n[i - 1] if k is None else kids[0][1]  # F'_{k,i} is n_{k+1} × cols
        bottom = i if k is None else k + 1
        return sum(
            cols * p.edges[v - 1] + pairs(cols, p.symmetric) * (p.edges[v - 1] + p.second[v - 1])
            for v in range(bottom, j + 1)
        )
    if op == "adjoint":
        rows = p.m[j - 1] if k is None else kids[0][0]
        width = 0 if k is None else kids[0][1]  # the seed block F''_{j,k+1}[row] is width²
        top = j if k is None else k
        cols = p.n[i - 1]
        first = sum(p.edges[v - 1] for v in range(i, top + 1))
        second = sum(p.edges[v - 1] + p.second[v - 1] for v in range(i, top + 1))
        return (rows + cols) * first + rows * cols * (second + width * width)
    (a, b), (b2, c) = kids
    assert b == b2
    return a * b * (b * c + 2 * pairs(c, p.symmetric)) + (0 if root else a * b * c)


def _make(p: HessianProblem, op: str, j: int, i: int, k: int | None, children, root: bool):
    kids = [(p.m[c.j - 1], p.n[c.i - 1]) for c in children]
    own = _own(p, op, j, i, k, kids, root)
    return HNode(op, j, i, k, own + sum(c.cost for c in children), tuple(children))  # type: ignore[arg-type]


def hessian_solutions(p: HessianProblem) -> list[HNode]:
    """Every bracketing of the whole chain (q <= MAX_HESSIAN_FACTORS)."""
    if p.q > MAX_HESSIAN_FACTORS:
        raise SearchTooLarge(
            f"brute force over q = {p.q} factors would list {count_bracketings(p.q)}"
            f" bracketings; limit q <= {MAX_HESSIAN_FACTORS}"
        )

    @cache
    def table(j: int, i: int, root: bool) -> tuple[HNode, ...]:
        found = []
        if i == j and p.given[i - 1]:
            found.append(_make(p, "given", j, i, None, (), root))
        found.append(_make(p, "tangent", j, i, None, (), root))
        found.append(_make(p, "adjoint", j, i, None, (), root))
        for k in range(i, j):
            uppers, lowers = table(j, k + 1, False), table(k, i, False)
            for upper in uppers:
                found.extend(_make(p, "product", j, i, k, (upper, lower), root) for lower in lowers)
                found.append(_make(p, "adjoint", j, i, k, (upper,), root))
            found.extend(_make(p, "tangent", j, i, k, (lower,), root) for lower in lowers)
        return tuple(found)

    return list(table(p.q, 1, True))


def brute_force_hessian(p: HessianProblem) -> HNode:
    """The cheapest bracketing by enumeration."""
    return min(hessian_solutions(p), key=lambda s: s.cost)


def recount(node: HNode, p: HessianProblem) -> int:
    """The cost of any bracketing tree, recounted from the shapes."""
    total = 0
    for x in node.walk():
        kids = [(p.m[c.j - 1], p.n[c.i - 1]) for c in x.children]
        total += _own(p, x.op, x.j, x.i, x.split, kids, x is node)
    return total


# --- numbers -----------------------------------------------------------------------------


def random_factors(p: HessianProblem, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random dense F'_i (m × n) and symmetric F''_i (m × n × n)."""
    rng = np.random.default_rng(seed)
    out = []
    for m, n in p.sizes():
        h = rng.standard_normal((m, n, n))
        out.append((rng.standard_normal((m, n)), (h + h.transpose(0, 2, 1)) / 2))
    return out


def _compose(upper, lower):
    """The second-order chain rule on two pairs: (G∘F)'' = G''×(F', F') + G'·F''."""
    (jo, ho), (ji, hi) = upper, lower
    h = np.einsum("rst,sa,tb->rab", ho, ji, ji) + np.einsum("rs,sab->rab", jo, hi)
    return jo @ ji, h


def _tangent(factors: Factors, bottom: int, top: int, seed):
    """Second-order tangents through factors bottom..top (1-based), columns and pairs of
    the seed pushed forward one factor at a time."""
    jac, hess = seed
    for v in range(bottom, top + 1):
        jv, hv = factors[v - 1]
        hess = np.einsum("rst,sa,tb->rab", hv, jac, jac) + np.einsum("rs,sab->rab", jv, hess)
        jac = jv @ jac
    return jac, hess


def _adjoint(factors: Factors, bottom: int, top: int, seed):
    """Second-order adjoints through factors top..bottom: tangents ż forward, then per
    row the adjoint z̄ and, per row and direction, the second-order adjoint back."""
    bar, hbar = seed  # rows × m_top, rows × m_top × m_top
    dots = [np.eye(factors[bottom - 1][0].shape[1])]
    for v in range(bottom, top + 1):
        dots.append(factors[v - 1][0] @ dots[-1])
    bardot = np.einsum("rst,ta->rsa", hbar, dots[-1])
    for v in range(top, bottom - 1, -1):
        jv, hv = factors[v - 1]
        below = dots[v - bottom]
        bardot = np.einsum("rsa,st->rta", bardot, jv) + np.einsum("rs,stu,ua->rta", bar, hv, below)
        bar = bar @ jv
    return bar, bardot


def evaluate_hessian(node: HNode, factors: Factors) -> tuple[np.ndarray, np.ndarray]:
    """The pair (F'_{j,i}, F''_{j,i}) a bracketing computes, each operation as its sweep."""
    value: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for x in node.walk():
        kids = [value[id(c)] for c in x.children]
        if x.op == "given":
            value[id(x)] = factors[x.i - 1]
        elif x.op == "product":
            value[id(x)] = _compose(kids[0], kids[1])
        elif x.op == "tangent":
            if x.split is None:
                n = factors[x.i - 1][0].shape[1]
                seed = (np.eye(n), np.zeros((n, n, n)))
                value[id(x)] = _tangent(factors, x.i, x.j, seed)
            else:
                value[id(x)] = _tangent(factors, x.split + 1, x.j, kids[0])
        else:
            if x.split is None:
                m = factors[x.j - 1][0].shape[0]
                value[id(x)] = _adjoint(factors, x.i, x.j, (np.eye(m), np.zeros((m, m, m))))
            else:
                value[id(x)] = _adjoint(factors, x.i, x.split, kids[0])
    return value[id(node)]


def chain_rule_hessian(factors: Factors) -> np.ndarray:
    """The Hessian as the chain rule's sum of q terms, F'_q ⋯ F'_{k+1} · F''_k ×
    (F'_{k-1} ⋯ F'_1, F'_{k-1} ⋯ F'_1), each term formed on its own."""
    q = len(factors)
    total = None
    for k in range(1, q + 1):
        below = np.eye(factors[0][0].shape[1])
        for v in range(1, k):
            below = factors[v - 1][0] @ below
        above = np.eye(factors[-1][0].shape[0])
        for v in range(q, k, -1):
            above = above @ factors[v - 1][0]
        term = np.einsum("rs,stu,ta,ub->rab", above, factors[k - 1][1], below, below)
        total = term if total is None else total + term
    assert total is not None
    return total
