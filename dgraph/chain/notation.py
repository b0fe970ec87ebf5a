"""Jacobian chain solutions as trees, and written in Naumann's notation (Naumann,
matrix-free chaining, §2-3).

Ḟ_i is the tangent of factor i (a Jacobian-free product F'_i·Ż), F̄_i its adjoint
(Z̄·F'_i), I_k an identity seed. A node computes the Jacobian F'_{j,i} = F'_j ⋯ F'_i of a
subchain by one of the three operations of the recurrence: ``tangent`` (GxM in the
reference implementation: Ḟ_j ⋯ Ḟ_{k+1} applied to F'_{k,i}), ``adjoint`` (MxG: F'_{j,k+1}
pushed back through F̄_k ⋯ F̄_i) or ``product`` (MxM: F'_{j,k+1}·F'_{k,i}); a leaf (j = i)
preaccumulates one factor in tangent (Ḟ_i·I_{n_i}) or adjoint (I_{m_i}·F̄_i) mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .problem import ChainProblem

__all__ = ["CODES", "Node", "notation", "post_order", "tree_text"]


def post_order(root: Any) -> list[Any]:
    """Every node of a bracketing tree (anything with ``children``), children before
    parents: an evaluation order, without recursion."""
    out: list[Any] = []
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        x, ready = stack.pop()
        if ready:
            out.append(x)
        else:
            stack.append((x, True))
            stack.extend((c, False) for c in reversed(x.children))
    return out


Op = Literal["tangent", "adjoint", "product"]
CODES: dict[str, str] = {"tangent": "GxM", "adjoint": "MxG", "product": "MxM"}
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


@dataclass(frozen=True, eq=False, repr=False)
class Node:
    """How F'_{j,i} (1-based factors, j >= i) is computed: ``fma`` and ``tape`` cover the
    whole subtree; ``split`` is k (the last factor of the lower part), None for a leaf.
    Children: product (F'_{j,k+1}, F'_{k,i}); adjoint (F'_{j,k+1},); tangent (F'_{k,i},).
    Trees are as deep as the chain is long, so every traversal here is iterative."""

    op: Op
    j: int
    i: int
    split: int | None
    fma: int
    tape: int
    children: tuple[Node, ...] = ()

    def __repr__(self) -> str:
        return f"<Node F'({self.j},{self.i}) {self.op} split={self.split} fma={self.fma}>"

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    @property
    def own_fma(self) -> int:
        """The operation's own cost, without its children's."""
        return self.fma - sum(c.fma for c in self.children)

    def walk(self) -> list[Node]:
        """Every node, children before parents (an evaluation order)."""
        return post_order(self)

    def operations(self) -> list[dict[str, Any]]:
        """The operations in evaluation order, children named by their subchains (flat,
        so that deep trees stay printable as JSON)."""
        return [
            {
                "subchain": [x.j, x.i],
                "op": x.op,
                "code": CODES[x.op],
                "split": x.split,
                "fma": x.fma,
                "own_fma": x.own_fma,
                "tape": x.tape,
                "children": [[c.j, c.i] for c in x.children],
            }
            for x in self.walk()
        ]


def _f(kind: str, i: int, latex: bool) -> str:
    if latex:
        return {"dot": r"\dot{F}", "bar": r"\bar{F}", "jac": "F'"}[kind] + f"_{{{i}}}"
    return {"dot": "Ḟ", "bar": "F̄", "jac": "F′"}[kind] + str(i).translate(_SUB)


def _identity(k: int, latex: bool) -> str:
    return f"I_{{{k}}}" if latex else "I" + str(k).translate(_SUB)


def _run(kind: str, top: int, bottom: int, latex: bool = False) -> str:
    """Factors top down to bottom, e.g. ``Ḟ₃·Ḟ₂`` (a sweep in evaluation order)."""
    dot = r" \cdot " if latex else "·"
    return dot.join(_f(kind, v, latex) for v in range(top, bottom - 1, -1))


def notation(node: Node, problem: ChainProblem, *, latex: bool = False, seeds: bool = True) -> str:
    """The bracketing in the paper's notation, e.g. ``(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)``.

    Runs of tangents or adjoints are written without inner brackets (they are evaluated
    in sweep order); operands of dense products are always bracketed. ``seeds=False``
    writes preaccumulated leaves as the Jacobians F′_i, as for a classical matrix chain.

    >>> from .dynamic import solve
    >>> p = ChainProblem.from_factors([(3, 3, 29), (1, 3, 14), (2, 1, 7)])
    >>> notation(solve(p).tree(), p)
    '(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)'
    """
    written: dict[int, tuple[str, str]] = {}  # id(node) -> (text, kind of run or product)
    for x in node.walk():
        written[id(x)] = _write(x, problem, [written[id(c)] for c in x.children], latex, seeds)
    return written[id(node)][0]


def _write(
    x: Node, problem: ChainProblem, parts: list[tuple[str, str]], latex: bool, seeds: bool
) -> tuple[str, str]:
    """One node's text from its children's; the kind is 'tangent' or 'adjoint' for a run,
    'leaf' or 'product'."""
    dot = r" \cdot " if latex else "·"
    if x.split is None:
        if not seeds:
            return _f("jac", x.i, latex), "leaf"
        if x.op == "tangent":
            return _f("dot", x.i, latex) + dot + _identity(problem.n[x.i - 1], latex), "tangent"
        return _identity(problem.m[x.i - 1], latex) + dot + _f("bar", x.i, latex), "adjoint"
    k = x.split
    if x.op == "tangent":
        text, kind = parts[0]
        seed = text if kind in ("tangent", "leaf") else f"({text})"
        return _run("dot", x.j, k + 1, latex) + dot + seed, "tangent"
    if x.op == "adjoint":
        text, kind = parts[0]
        seed = text if kind in ("adjoint", "leaf") else f"({text})"
        return seed + dot + _run("bar", k, x.i, latex), "adjoint"
    if seeds:
        return f"({parts[0][0]}){dot}({parts[1][0]})", "product"
    return dot.join(t if kind == "leaf" else f"({t})" for t, kind in parts), "product"


def tree_text(node: Node, problem: ChainProblem) -> str:
    """The solution as an indented tree, one operation per line with its cost and tape.

    >>> from .dynamic import solve
    >>> p = ChainProblem.from_factors([(3, 3, 29), (1, 3, 14), (2, 1, 7)])
    >>> print(tree_text(solve(p).tree(), p))
    F′(3,1) = F′(3,3)·F′(2,1)  [MxM(2)]  fma 56 (own 6), tape 29
      F′(3,3) = Ḟ₃·I₁  [GxM(0)]  fma 7, tape 0
      F′(2,1) = F′(2,2)·F̄₁  [MxG(1)]  fma 43 (own 29), tape 29
        F′(2,2) = I₁·F̄₂  [MxG(0)]  fma 14, tape 14
    """
    lines: list[str] = []
    stack: list[tuple[Node, int]] = [(node, 0)]
    while stack:
        x, depth = stack.pop()
        k = x.split
        if k is None:
            what, own = notation(x, problem), ""
        else:
            own = f" (own {x.own_fma})"
            if x.op == "product":
                what = f"F′({x.j},{k + 1})·F′({k},{x.i})"
            elif x.op == "tangent":
                what = _run("dot", x.j, k + 1) + f"·F′({k},{x.i})"
            else:
                what = f"F′({x.j},{k + 1})·" + _run("bar", k, x.i)
        lines.append(
            f"{'  ' * depth}F′({x.j},{x.i}) = {what}  [{CODES[x.op]}({k or 0})]"
            f"  fma {x.fma}{own}, tape {x.tape}"
        )
        stack.extend((c, depth + 1) for c in reversed(x.children))
    return "\n".join(lines)
