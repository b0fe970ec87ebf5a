"""Hessian chain bracketing: the second-order analogue of matrix-free Jacobian chaining
(Naumann and Burela, *Hessian chain bracketing*, J. Combinatorics 14(4), 2023; seed 002).

For f = F_q ∘ ⋯ ∘ F_1, factor i mapping R^{n_i} to R^{m_i}, the second-order chain rule

    (G ∘ F)'' = G''×(F', F') + G'·F''      (G'' is m × k × k, F' is k × n, F'' is k × n × n)

composes the pairs (F'_{j,i}, F''_{j,i}) of subchains F_j ∘ ⋯ ∘ F_i. A bracketing is a
binary tree over the chain; each node computes the pair of its subchain by one of

- ``given``: a factor's F'_i and F''_i are given (dense tensors): no cost;
- ``tangent`` (second-order tangent, tangent over tangent): the code of F_j ⋯ F_{k+1}
  pushes the c = n_i columns of F'_{k,i} and their c(c+1)/2 pairs (with F''_{k,i} as
  second-order seed) forward; from the identity (no split) it runs over all of F_j ⋯ F_i;
- ``adjoint`` (second-order adjoint, tangent over reverse): the code of F_k ⋯ F_i is swept
  back once per row of F'_{j,k+1} (r = m_j) and, as second-order adjoint, once per row and
  input direction (r·n_i sweeps, each seeded with F''_{j,k+1}[row]·ż, m_k² fma); from the
  identity it runs over all of F_j ⋯ F_i — the forward-over-reverse baseline;
- ``product``: both pairs preaccumulated, combined as dense tensors by the chain rule.

Cost model (multiplications, each addition fused; the invariant part — primal values and
local partials — excluded, as in seed 002). Factor i costs e_i (= ``|E_i|``) per first-order
tangent or adjoint direction and e_i + s_i per second-order direction, s_i being the
multiplications of one second-order term F''_i×(u, v) or z̄ᵀF''_i×(·, u) in its code. A
dense factor (F'_i and F''_i given as tensors) has e_i = m_i·n_i, s_i = m_i·n_i·(n_i + 1).
With P(c) = c(c+1)/2 (the Hessian is symmetric: only pairs a ≤ b are formed), E and S the
sums of e_ν and e_ν + s_ν over the factors a run sweeps:

    tangent run, c columns            c·E + P(c)·S
    adjoint run, r rows, c columns    (r + c)·E + r·c·(S + m_k²)   (m_k² only when seeded)
    product (j, k, i)                 m_j·m_k·(m_k·n_i + 2·P(n_i)) + m_j·m_k·n_i
                                      (H_o×₃J_i, then J_iᵀ·, and J_o·H_i over a ≤ b; the last
                                      term forms F'_{j,i}, which the root does not need)

The dynamic program over subchains is exact over this space of bracketings (the cost of a
node depends only on its subchain and its children's costs); the general problem (any
order of the chain rule's terms, shared subterms) is NP-complete (the paper).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.files import read_text
from ..errors import InputError
from .notation import post_order
from .problem import ChainProblem, content_lines, integers, random_problem

__all__ = [
    "OPS",
    "HNode",
    "HessianProblem",
    "HessianSolution",
    "forward_over_reverse",
    "hessian_notation",
    "hessian_tree_text",
    "parse_hessian_problem",
    "product_cost",
    "random_hessian_problem",
    "read_hessian_problem",
    "second_order_tangent",
    "solve_hessian",
]

Op = Literal["given", "tangent", "adjoint", "product"]
OPS: tuple[str, ...] = ("given", "tangent", "adjoint", "product")
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def pairs(c: int, symmetric: bool = True) -> int:
    """Pairs of c directions formed: a <= b (the entries of a symmetric c × c block), or
    all c² when symmetry is not exploited."""
    return c * (c + 1) // 2 if symmetric else c * c


@dataclass(frozen=True)
class HessianProblem:
    """Sizes and per-factor costs: factor i (1-based) maps R^{n[i-1]} to R^{m[i-1]}, costs
    ``edges[i-1]`` per first-order and ``edges + second`` per second-order direction in its
    code, and has its F'_i, F''_i given as dense tensors when ``given[i-1]``.
    ``symmetric=False`` counts every entry (a, b) of a Hessian block, not only a <= b (the
    paper's reference implementation counts this way).

    >>> p = HessianProblem.dense([(4, 3), (1, 4)])
    >>> p.q, p.edges, p.second
    (2, (12, 4), (48, 20))
    """

    m: tuple[int, ...]
    n: tuple[int, ...]
    edges: tuple[int, ...]
    second: tuple[int, ...]
    given: tuple[bool, ...]
    name: str = field(default="", compare=False)
    symmetric: bool = True

    def __post_init__(self) -> None:
        ChainProblem(self.m, self.n, self.edges)  # shapes and edge counts, one clear line
        if len(self.second) != self.q or len(self.given) != self.q:
            raise InputError("second-order costs and the given flags need one entry per factor")
        for i, s in enumerate(self.second, start=1):
            if s < 0:
                raise InputError(f"factor {i}: the second-order cost {s} must not be negative")

    @classmethod
    def dense(
        cls, sizes: Iterable[Sequence[int]], name: str = "", symmetric: bool = True
    ) -> HessianProblem:
        """Factors with given dense F'_i and F''_i, from ``(m, n)`` pairs, factor 1 first."""
        rows = [(int(a), int(b)) for a, b in sizes]
        m = tuple(r[0] for r in rows)
        n = tuple(r[1] for r in rows)
        return cls(
            m,
            n,
            tuple(a * b for a, b in rows),
            tuple(a * b * (b + 1) for a, b in rows),
            (True,) * len(rows),
            name,
            symmetric,
        )

    @classmethod
    def from_chain(cls, chain: ChainProblem, second: Sequence[int] | None = None) -> HessianProblem:
        """Code-only factors from a first-order chain problem; the second-order term costs
        ``second`` (default ``|E_i|``: about one multiplication per edge — a product v = a·b
        adds u_a·v_b + u_b·v_a over its two edges, sin adds −sin(a)·u·v over one, a
        linear operation nothing)."""
        s = tuple(chain.edges) if second is None else tuple(int(x) for x in second)
        return cls(chain.m, chain.n, chain.edges, s, (False,) * chain.q, chain.name)

    @property
    def q(self) -> int:
        return len(self.m)

    def sizes(self) -> list[tuple[int, int]]:
        return list(zip(self.m, self.n, strict=True))

    def to_text(self) -> str:
        """The text format: q, then ``m n`` (given dense factor) or ``m n |E| S``."""
        lines = [str(self.q)]
        for m, n, e, s, g in zip(self.m, self.n, self.edges, self.second, self.given, strict=True):
            lines.append(f"{m} {n}" if g else f"{m} {n} {e} {s}")
        return "\n".join(lines) + "\n"


def _numbers(line: str, where: str) -> list[int]:
    try:
        return integers(line, "'m n', 'm n |E|' or 'm n |E| S'", digits=15)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def parse_hessian_problem(text: str, source: str = "<problem>") -> HessianProblem:
    """Read a Hessian chain: the number of factors q, then per factor (factor 1 first)
    ``m n`` (F'_i, F''_i given dense), ``m n |E|`` (code; second-order term cost ``|E|``) or
    ``m n |E| S``. Blank lines and ``#`` comments are skipped.

    >>> parse_hessian_problem("2\\n4 3\\n1 4 9 5\\n").given
    (True, False)
    """
    lines = content_lines(text)
    if not lines:
        raise InputError(f"{source}: line 1: empty file; expected the number of factors q")
    head = _numbers(lines[0][1], f"{source}: line {lines[0][0]}")
    if len(head) != 1 or head[0] < 1:
        raise InputError(f"{source}: line {lines[0][0]}: expected the number of factors q >= 1")
    q = head[0]
    m, n, e, s, g = [], [], [], [], []
    for number, line in lines[1:]:
        where = f"{source}: line {number}"
        if len(m) == q:
            raise InputError(f"{where}: more than q = {q} factors")
        values = _numbers(line, where)
        if len(values) not in (2, 3, 4):
            raise InputError(f"{where}: expected 'm n', 'm n |E|' or 'm n |E| S'")
        if min(values) < 0 or min(values[:2]) < 1:
            raise InputError(f"{where}: sizes must be positive and costs not negative")
        a, b = values[:2]
        m.append(a)
        n.append(b)
        if len(values) == 2:
            e.append(a * b)
            s.append(a * b * (b + 1))
        else:
            e.append(values[2])
            s.append(values[3] if len(values) == 4 else values[2])
        g.append(len(values) == 2)
        if len(m) > 1 and b != m[-2]:
            raise InputError(
                f"{where}: factor {len(m)} takes n = {b} inputs but factor {len(m) - 1}"
                f" gives m = {m[-2]} outputs; neighbouring shapes must match"
            )
    if len(m) < q:
        raise InputError(f"{source}: q = {q} factors announced, {len(m)} given")
    return HessianProblem(tuple(m), tuple(n), tuple(e), tuple(s), tuple(g), name=Path(source).stem)


def read_hessian_problem(path: str | Path) -> HessianProblem:
    """Read a Hessian chain file (see :func:`parse_hessian_problem`)."""
    return parse_hessian_problem(read_text(path), str(path))


def random_hessian_problem(
    q: int, max_size: int, seed: int | None = None, scalar: bool = True
) -> HessianProblem:
    """A dense chain with sizes uniform in [1, max_size] (the paper's generator draws its
    chains this way), scalar output unless ``scalar=False``."""
    chain = random_problem(q, max_size, seed)
    sizes = list(zip(chain.m, chain.n, strict=True))
    if scalar:
        sizes[-1] = (1, sizes[-1][1])
    return HessianProblem.dense(sizes, name=f"random-{q}-{max_size}")


# --- costs -------------------------------------------------------------------------------


class _Sums:
    """Prefix sums of e_ν and e_ν + s_ν, for the sums over a run's factors a..b (1-based)."""

    def __init__(self, p: HessianProblem) -> None:
        self.e = [0]
        self.es = [0]
        for e, s in zip(p.edges, p.second, strict=True):
            self.e.append(self.e[-1] + e)
            self.es.append(self.es[-1] + e + s)

    def first(self, a: int, b: int) -> int:
        return self.e[b] - self.e[a - 1]

    def second(self, a: int, b: int) -> int:
        return self.es[b] - self.es[a - 1]


def tangent_run(p: HessianProblem, sums: _Sums, c: int, a: int, b: int) -> int:
    """Second-order tangents of factors a..b on c columns and their P(c) pairs."""
    return c * sums.first(a, b) + pairs(c, p.symmetric) * sums.second(a, b)


def adjoint_run(p: HessianProblem, sums: _Sums, r: int, c: int, a: int, b: int, seeded: bool):
    """Second-order adjoints of factors a..b for r rows and c input directions; a seeded
    run first multiplies each row's m_b × m_b Hessian block by each tangent."""
    seed = p.m[b - 1] ** 2 if seeded else 0
    return (r + c) * sums.first(a, b) + r * c * (sums.second(a, b) + seed)


def product_cost(p: HessianProblem, j: int, k: int, i: int, jacobian: bool = True) -> int:
    """The dense second-order chain rule for (F'_{j,k+1}, F''_{j,k+1}) and (F'_{k,i},
    F''_{k,i}); ``jacobian=False`` leaves out forming F'_{j,i}."""
    mj, mk, ni = p.m[j - 1], p.m[k - 1], p.n[i - 1]
    return mj * mk * (mk * ni + 2 * pairs(ni, p.symmetric)) + (mj * mk * ni if jacobian else 0)


def forward_over_reverse(p: HessianProblem) -> int:
    """The baseline every AD tool has: n_1 second-order adjoint sweeps (tangent over
    reverse) per output through the whole chain's code."""
    return adjoint_run(p, _Sums(p), p.m[-1], p.n[0], 1, p.q, seeded=False)


def second_order_tangent(p: HessianProblem) -> int:
    """Second-order tangents (tangent over tangent) of the whole chain: n_1 tangents and
    their n_1(n_1+1)/2 pairs."""
    return tangent_run(p, _Sums(p), p.n[0], 1, p.q)


# --- solutions ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class HNode:
    """How the pair (F'_{j,i}, F''_{j,i}) (1-based, j >= i) is computed: ``cost`` covers the
    subtree; ``split`` is k (last factor of the lower part), None for a given leaf or a
    run from the identity. Children: product (upper, lower); tangent (lower,); adjoint
    (upper,). Traversals are iterative (trees nest as deep as the chain is long)."""

    op: Op
    j: int
    i: int
    split: int | None
    cost: int
    children: tuple[HNode, ...] = ()

    def __repr__(self) -> str:
        return f"<HNode F({self.j},{self.i}) {self.op} split={self.split} cost={self.cost}>"

    @property
    def own_cost(self) -> int:
        return self.cost - sum(c.cost for c in self.children)

    def walk(self) -> list[HNode]:
        """Every node, children before parents (an evaluation order)."""
        return post_order(self)

    def operations(self) -> list[dict[str, Any]]:
        """The operations in evaluation order (flat, for JSON)."""
        return [
            {
                "subchain": [x.j, x.i],
                "op": x.op,
                "split": x.split,
                "cost": x.cost,
                "own_cost": x.own_cost,
                "children": [[c.j, c.i] for c in x.children],
            }
            for x in self.walk()
        ]


def node_cost(
    p: HessianProblem, sums: _Sums, op: str, j: int, i: int, k: int | None, root: bool
) -> int:
    """One operation's own cost (without its children's)."""
    if op == "given":
        return 0
    if op == "tangent":
        return tangent_run(p, sums, p.n[i - 1], i if k is None else k + 1, j)
    if op == "adjoint":
        top = j if k is None else k
        return adjoint_run(p, sums, p.m[j - 1], p.n[i - 1], i, top, seeded=k is not None)
    assert k is not None
    return product_cost(p, j, k, i, jacobian=not root)


@dataclass(frozen=True, eq=False)
class HessianSolution:
    """The table of the recurrence, keyed by 1-based subchains (j, i): least cost, the
    operation and its split; ``cost`` is the whole chain's, F'_{q,1} not formed."""

    problem: HessianProblem
    table: dict[tuple[int, int], tuple[int, str, int | None]]
    root: tuple[int, str, int | None]
    ops: tuple[str, ...]

    @property
    def cost(self) -> int:
        return self.root[0]

    def _entry(self, j: int, i: int, root: bool) -> tuple[int, str, int | None]:
        return self.root if root else self.table[j, i]

    def tree(self) -> HNode:
        """The optimal bracketing as a tree (built without recursion)."""
        q = self.problem.q
        built: dict[tuple[int, int, bool], HNode] = {}
        stack = [(q, 1, True)]
        while stack:
            j, i, root = stack[-1]
            _, op, k = self._entry(j, i, root)
            kids = _children(op, j, i, k)
            missing = [(a, b, False) for a, b in kids if (a, b, False) not in built]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            built[j, i, root] = HNode(
                op,  # type: ignore[arg-type]
                j,
                i,
                k,
                self._entry(j, i, root)[0],
                tuple(built[a, b, False] for a, b in kids),
            )
        return built[q, 1, True]

    def bracketing(self, latex: bool = False) -> str:
        return hessian_notation(self.tree(), self.problem, latex=latex)

    def rows(self) -> list[dict[str, Any]]:
        """Every subchain's entry (j ascending, i descending), then the root."""
        out = [
            {"j": j, "i": i, "op": op, "split": k, "cost": c}
            for (j, i), (c, op, k) in sorted(self.table.items(), key=lambda t: (t[0][0], -t[0][1]))
        ]
        c, op, k = self.root
        out.append({"j": self.problem.q, "i": 1, "op": op, "split": k, "cost": c, "root": True})
        return out


def _children(op: str, j: int, i: int, k: int | None) -> list[tuple[int, int]]:
    if k is None:
        return []
    return {"product": [(j, k + 1), (k, i)], "tangent": [(k, i)], "adjoint": [(j, k + 1)]}[op]


def _options(
    p: HessianProblem, sums: _Sums, cost: dict, j: int, i: int, ops: Sequence[str], root: bool
):
    """Every (cost, op, split) for the subchain (j, i), children taken from the table."""
    if i == j and "given" in ops and p.given[i - 1]:
        yield 0, "given", None
    for op in ("tangent", "adjoint"):
        if op in ops:
            yield node_cost(p, sums, op, j, i, None, root), op, None
    for k in range(i, j):
        if "product" in ops:
            yield (
                cost[j, k + 1] + cost[k, i] + node_cost(p, sums, "product", j, i, k, root),
                "product",
                k,
            )
        if "tangent" in ops:
            yield cost[k, i] + node_cost(p, sums, "tangent", j, i, k, root), "tangent", k
        if "adjoint" in ops:
            yield cost[j, k + 1] + node_cost(p, sums, "adjoint", j, i, k, root), "adjoint", k


def solve_hessian(p: HessianProblem, ops: Sequence[str] = OPS) -> HessianSolution:
    """The least-cost bracketing over subchains, O(q³): the pair of every subchain from its
    cheapest operation; ties go to the earlier option (given, tangent, adjoint, then by
    split: product, tangent, adjoint).

    ``ops`` restricts the operations (e.g. ``("given", "product")``: dense tensor
    products only).

    >>> p = HessianProblem.dense([(4, 3), (1, 4)])
    >>> s = solve_hessian(p)
    >>> s.cost, s.bracketing()
    (96, '(F″₂)∘(F″₁)')
    """
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        raise InputError(f"unknown operation {unknown[0]!r}; choose from {', '.join(OPS)}")
    sums = _Sums(p)
    table: dict[tuple[int, int], tuple[int, str, int | None]] = {}
    cost: dict[tuple[int, int], float] = {}
    for length in range(1, p.q + 1):
        for i in range(1, p.q - length + 2):
            j = i + length - 1
            best = min(_options(p, sums, cost, j, i, ops, False), key=lambda t: t[0], default=None)
            if best is None:
                raise InputError(
                    f"no operation in {', '.join(ops)} computes factor {i}"
                    " (its derivatives are not given)"
                )
            table[j, i] = best
            cost[j, i] = best[0]
    root = min(_options(p, sums, cost, p.q, 1, ops, True), key=lambda t: t[0])
    return HessianSolution(p, table, root, tuple(ops))


# --- notation ----------------------------------------------------------------------------


def _f(kind: str, v: int, latex: bool) -> str:
    if latex:
        return {"tangent": r"\ddot{F}", "adjoint": r"\dot{\bar{F}}", "given": "F''"}[
            kind
        ] + f"_{{{v}}}"
    return {"tangent": "F̈", "adjoint": "F̄̇", "given": "F″"}[kind] + str(v).translate(_SUB)


def _identity(k: int, latex: bool) -> str:
    return f"I_{{{k}}}" if latex else "I" + str(k).translate(_SUB)


def _run(kind: str, top: int, bottom: int, latex: bool) -> str:
    dot = r" \cdot " if latex else "·"
    return dot.join(_f(kind, v, latex) for v in range(top, bottom - 1, -1))


def hessian_notation(node: HNode, p: HessianProblem, *, latex: bool = False) -> str:
    """The bracketing in seed 002's style, second order: F̈ a second-order tangent,
    F̄̇ a second-order adjoint, F″ a given factor (F'_i, F''_i), I an identity seed;
    ∘ the dense second-order chain rule on two preaccumulated pairs. A run is one sweep
    over the factors it names; its seed, unless a given factor, is bracketed (a seeded
    run costs differently from one continued from the identity).

    >>> p = HessianProblem.dense([(4, 3), (1, 4)])
    >>> hessian_notation(solve_hessian(p, ("tangent",)).tree(), p)
    'F̈₂·F̈₁·I₃'
    """
    dot = r" \cdot " if latex else "·"
    comp = r" \circ " if latex else "∘"
    text: dict[int, tuple[str, str]] = {}
    for x in node.walk():
        parts = [text[id(c)] for c in x.children]
        if x.op == "given":
            text[id(x)] = _f("given", x.i, latex), "leaf"
        elif x.op == "product":
            text[id(x)] = f"({parts[0][0]}){comp}({parts[1][0]})", "product"
        elif x.op == "tangent":
            if x.split is None:
                seed = _identity(p.n[x.i - 1], latex)
                bottom = x.i
            else:
                seed = parts[0][0] if parts[0][1] == "leaf" else f"({parts[0][0]})"
                bottom = x.split + 1
            text[id(x)] = _run("tangent", x.j, bottom, latex) + dot + seed, "tangent"
        else:
            if x.split is None:
                seed, top = _identity(p.m[x.j - 1], latex), x.j
            else:
                seed = parts[0][0] if parts[0][1] == "leaf" else f"({parts[0][0]})"
                top = x.split
            text[id(x)] = seed + dot + _run("adjoint", top, x.i, latex), "adjoint"
    return text[id(node)][0]


def hessian_tree_text(node: HNode, p: HessianProblem) -> str:
    """One operation per line, indented, with its cost."""
    lines: list[str] = []
    stack: list[tuple[HNode, int]] = [(node, 0)]
    while stack:
        x, depth = stack.pop()
        own = f" (own {x.own_cost})" if x.children else ""
        what = _step(x) if x.children else hessian_notation(x, p)
        lines.append(
            f"{'  ' * depth}F({x.j},{x.i}) = {what}"
            f"  [{x.op}{'' if x.split is None else f'({x.split})'}]  cost {x.cost}{own}"
        )
        stack.extend((c, depth + 1) for c in reversed(x.children))
    return "\n".join(lines)


def _step(x: HNode) -> str:
    k = x.split
    assert k is not None
    if x.op == "product":
        return f"F({x.j},{k + 1})∘F({k},{x.i})"
    if x.op == "tangent":
        return _run("tangent", x.j, k + 1, False) + f"·F({k},{x.i})"
    return f"F({x.j},{k + 1})·" + _run("adjoint", k, x.i, False)
