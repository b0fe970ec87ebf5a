"""The expression set: the one result type of every accumulation method.

A set of algebraic expressions connected by reference variables (Zhou): named references
``r1 = ...`` in the order they are computed, and Jacobian entries ``(output, input) ->
expression``, all noncommutative sums and products of edge symbols and earlier
references, written in matrix order (output end first). It also carries the steps that
produced it, its costs, and, once checked, its verification against Bauer's formula.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import sympy

from .algebra import nc_symbol
from .costs import Cost, expression_set_cost
from .graph import DGraph
from .verify import Verification, verify

__all__ = ["ExpressionSet", "Step", "reference_symbol"]


def reference_symbol(k: int) -> sympy.Symbol:
    """The k-th reference variable ``r<k>``."""
    return nc_symbol(f"r{k}")


@dataclass(frozen=True)
class Step:
    """One step of an accumulation: what was done to which vertex or edge, at what cost.

    ``op`` is ``vertex`` (vertex elimination), ``forward``/``backward`` (edge
    elimination), or another method's own operation.
    """

    op: str
    target: str | tuple[str, str]
    mults: int

    def to_dict(self) -> dict[str, Any]:
        target = list(self.target) if isinstance(self.target, tuple) else self.target
        return {"op": self.op, "target": target, "mults": self.mults}

    def __str__(self) -> str:
        target = " -> ".join(self.target) if isinstance(self.target, tuple) else self.target
        return f"{self.op} {target} ({self.mults})"


@dataclass
class ExpressionSet:
    """References and Jacobian entries over edge symbols, with steps, costs and checks."""

    graph: DGraph
    references: dict[sympy.Symbol, sympy.Expr]
    jacobian: dict[tuple[str, str], sympy.Expr]
    steps: list[Step] = field(default_factory=list)
    method: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    verification: Verification | None = None
    pairs: list[tuple[str, str]] | None = None  # the entries it computes; None: all
    # the same set before single-use references were inlined: every product grouped as
    # the method computed it (inlining makes products of several factors, whose
    # association is then free); the face check reads it
    as_computed: ExpressionSet | None = field(default=None, repr=False, compare=False)

    # -- costs -------------------------------------------------------------------------

    @cached_property
    def cost(self) -> Cost:
        return expression_set_cost(self)

    @property
    def mults(self) -> int:
        """Structural multiplications: every label a general value."""
        return self.cost.mults

    @property
    def adds(self) -> int:
        return self.cost.adds

    @property
    def mults_effective(self) -> int:
        """Multiplications with +-1 labels free and constants folded."""
        return self.cost.mults_effective

    # -- verification ------------------------------------------------------------------

    def verify(self, mode: str = "auto") -> Verification:
        """Check against Bauer's formula (see :mod:`dgraph.core.verify`) and remember it."""
        self.verification = verify(self, mode)
        return self.verification

    @property
    def verified(self) -> bool:
        """True only when a verification has run and matched."""
        return bool(self.verification)

    # -- rewriting ---------------------------------------------------------------------

    def inline_single_use(self) -> ExpressionSet:
        """Substitute references used exactly once; the costs do not change."""
        uses: Counter[sympy.Symbol] = Counter()
        for expr in [*self.references.values(), *self.jacobian.values()]:
            for s in _symbols_in_order(expr):
                if s in self.references:
                    uses[s] += 1
        inline = {r for r in self.references if uses[r] == 1}
        kept = [r for r in self.references if r not in inline]
        # one substitution per expression: kept references renumbered, inlined ones
        # replaced by their (already substituted) definitions
        mapping: dict[sympy.Symbol, sympy.Expr] = {
            old: reference_symbol(k) for k, old in enumerate(kept, start=1)
        }
        references: dict[sympy.Symbol, sympy.Expr] = {}
        for name, definition in self.references.items():
            definition = definition.xreplace(mapping)
            if name in inline:
                mapping[name] = definition
            else:
                references[mapping[name]] = definition
        result = ExpressionSet(
            self.graph,
            references,
            {k: e.xreplace(mapping) for k, e in self.jacobian.items()},
            list(self.steps),
            self.method,
            dict(self.info),
            pairs=self.pairs,
        )
        result.as_computed = self.as_computed or self
        return result

    def resolved(self) -> dict[tuple[str, str], sympy.Expr]:
        """Jacobian entries with every reference substituted (noncommutative)."""
        resolved: dict[sympy.Symbol, sympy.Expr] = {}
        for name, definition in self.references.items():
            resolved[name] = definition.xreplace(resolved)
        return {k: e.xreplace(resolved) for k, e in self.jacobian.items()}

    # -- values ------------------------------------------------------------------------

    def substitute(self) -> dict[tuple[str, str], sympy.Expr]:
        """Jacobian entries as ordinary sympy expressions of the inputs (scalar labels)."""
        values = self.graph.values()
        labels: dict[sympy.Symbol, sympy.Expr] = {}
        for sym, (u, v) in self.graph.edge_symbols.items():
            partial = self.graph.partial(u, v)
            if partial is None:
                raise ValueError(f"edge {u} -> {v} has no known local partial")
            labels[sym] = partial.xreplace({sympy.Symbol(w): values[w] for w in values})
        for name, definition in self.references.items():
            labels[name] = definition.xreplace(labels)
        return {k: e.xreplace(labels) for k, e in self.jacobian.items()}

    def evaluate(self, point: Iterable[float]):
        """The Jacobian as a NumPy array at ``point`` (shape (n,) -> (m, n); (B, n) ->
        (B, m, n))."""
        from .numeric import evaluate_expression_set

        return evaluate_expression_set(self, point)

    # -- output ------------------------------------------------------------------------

    def to_text(self) -> str:
        lines = [f"{name} = {sympy.sstr(d)}" for name, d in self.references.items()]
        lines += [f"d{y}/d{x} = {sympy.sstr(e)}" for (y, x), e in self.jacobian.items()]
        return "\n".join(lines)

    def to_latex(self) -> str:
        """An ``align`` environment, references first; labels as ``c_{target,source}``."""
        names = {
            sym: f"c_{{{_tex_id(v)},{_tex_id(u)}}}"
            for sym, (u, v) in self.graph.edge_symbols.items()
        }
        names.update({r: f"r_{{{str(r)[1:]}}}" for r in self.references})

        def tex(e: sympy.Expr) -> str:
            return sympy.latex(e, symbol_names=names)

        rows = [f"{names[n]} &= {tex(d)}" for n, d in self.references.items()]
        rows += [
            rf"\frac{{\partial {_tex_id(y)}}}{{\partial {_tex_id(x)}}} &= {tex(e)}"
            for (y, x), e in self.jacobian.items()
        ]
        return "\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}"

    def _repr_latex_(self) -> str:
        return "$$" + self.to_latex().replace("align", "aligned") + "$$"

    def to_markdown(self, math: bool = True) -> str:
        """A costs line and one equation per row, references first; ``math`` writes
        ``$...$`` LaTeX (Jupyter and GitHub typeset it), else the text form."""
        from ..render.notebook import expression_set_markdown

        return expression_set_markdown(self, math)

    def _repr_html_(self) -> str:
        from ..render.notebook import expression_set_html

        return expression_set_html(self)

    def summary(self) -> dict[str, Any]:
        """The costs and checks, without expressions (``compare`` rows)."""
        data: dict[str, Any] = {
            "method": self.method,
            "mults": self.mults,
            "adds": self.adds,
            "mults_effective": self.mults_effective,
            "verified": self.verified,
        }
        if self.verification is not None:
            data["verification"] = self.verification.mode
        data.update((k, v) for k, v in self.info.items() if not isinstance(v, (list, dict)))
        return data

    def to_dict(self) -> dict[str, Any]:
        """The ``accumulate --json`` object of INTERFACE.md."""
        data = self.summary()
        data.update(self.info)
        data["steps"] = [s.to_dict() for s in self.steps]
        data["references"] = [[str(n), sympy.sstr(d)] for n, d in self.references.items()]
        data["jacobian"] = [[y, x, sympy.sstr(e)] for (y, x), e in self.jacobian.items()]
        return data

    def __repr__(self) -> str:
        check = "verified" if self.verified else "unverified"
        return (
            f"<ExpressionSet {self.method or '?'}: {len(self.references)} references,"
            f" {len(self.jacobian)} entries, {self.mults} mults, {check}>"
        )


def _tex_id(v: str) -> str:
    head, _, tail = v.partition("_")
    m = re.match(r"([A-Za-z]+)(\d+)\Z", head)
    if m and not tail:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    return sympy.latex(sympy.Symbol(v))


def _symbols_in_order(expr: sympy.Expr) -> list[sympy.Symbol]:
    """Every symbol occurrence (with multiplicity) in ``expr``."""
    out: list[sympy.Symbol] = []
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
            out.append(e)
        elif e.is_Pow and e.exp.is_Integer:
            stack.extend([e.base] * int(e.exp))
        else:
            stack.extend(e.args)
    return out


def make_expression_set(
    graph: DGraph,
    references: Mapping[sympy.Symbol, sympy.Expr],
    jacobian: Mapping[tuple[str, str], sympy.Expr],
    steps: Iterable[Step] = (),
    method: str = "",
) -> ExpressionSet:
    """An expression set with its Jacobian entries in row-major order of the graph."""
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: i for i, x in enumerate(graph.inputs)}
    ordered = dict(sorted(jacobian.items(), key=lambda kv: (rows[kv[0][0]], cols[kv[0][1]])))
    return ExpressionSet(graph, dict(references), ordered, list(steps), method)
