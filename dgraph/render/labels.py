"""Labels as readable math, in three forms from one source: plain text (sympy's ``sstr``),
graphviz HTML-like labels (italic names, subscripts, powers as superscripts) and LaTeX
for TikZ.

Vertex names split like sympy splits symbol names (``x0``, ``x_2`` -> x with subscript);
an edge symbol ``d_<target>_<source>`` becomes ``c_{target,source}`` as in
:meth:`ExpressionSet.to_latex <dgraph.core.expressions.ExpressionSet.to_latex>`, a
reference ``r<k>`` becomes ``r_k``. Products keep their noncommutative order.
"""

from __future__ import annotations

import functools
import html as _html
import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy
from sympy.printing.conventions import split_super_sub
from sympy.printing.pretty.pretty_symbology import greek_unicode
from sympy.printing.str import StrPrinter

from ..core.graph import DGraph

__all__ = [
    "Label",
    "SymbolNames",
    "adjoint_pairs",
    "adjoint_stem",
    "expr_label",
    "hessian_entry",
    "name_edge_symbols",
    "symbol_names",
    "text_label",
    "vertex_label",
]

_REFERENCE = re.compile(r"r(\d+)\Z")
# an adjoint's name (dgraph.core.hessian_graph): ``x_bar`` (``x_bar2``, ... where taken)
_ADJOINT = re.compile(r"(.+)_bar(\d*)\Z")
_GREEK_TEX = {name for name in greek_unicode if name.isalpha()}


@dataclass(frozen=True)
class Label:
    """One label in every output form: ``text``, ``html`` (graphviz HTML-like, without
    the enclosing ``<>``) and ``tex`` (LaTeX math mode, without ``$``)."""

    text: str
    html: str
    tex: str
    math: bool = True  # whether ``tex`` is math mode (else text mode)


# LaTeX for each character text mode treats specially, replaced in one pass so that no
# replacement is escaped again (``\`` after the braces would print ``\textbackslash\{\}``)
_TEX_TEXT = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "->": r"$\to$",
    "→": r"$\to$",
    "\n": r"\\",
}
_TEX_SPECIAL = re.compile("|".join(re.escape(k) for k in sorted(_TEX_TEXT, key=len, reverse=True)))


def text_label(text: str) -> Label:
    r"""A label that is words, not math (titles, cluster names).

    >>> text_label("a\\b {c}_1 -> d").tex
    'a\\textbackslash{}b \\{c\\}\\_1 $\\to$ d'
    """
    html = _html.escape(text.replace("->", "→")).replace("\n", "<BR/>")
    tex = _TEX_SPECIAL.sub(lambda m: _TEX_TEXT[m.group()], text)
    return Label(text, html, tex, math=False)


def adjoint_stem(name: str) -> str | None:
    """The vertex whose adjoint ``name`` names (``x_bar`` -> ``x``), drawn as x̄; None
    for any other name.

    >>> adjoint_stem("x1_bar"), adjoint_stem("v_bar2"), adjoint_stem("bar")
    ('x1', 'v', None)
    """
    m = _ADJOINT.match(name)
    return m.group(1) if m and _parts(m.group(1)) is not None else None


def adjoint_pairs(graph: DGraph) -> dict[str, str] | None:
    """``{x_bar: x}`` when ``graph`` is a Hessian graph: its outputs are its inputs'
    adjoints, in order (:func:`dgraph.core.hessian_graph.hessian_graph`), so that entry
    ``(x̄_i, x_j)`` of its Jacobian is ``∂²f/∂x_i∂x_j``; None for any other graph."""
    inputs, outputs = graph.inputs, graph.outputs
    if not inputs or len(inputs) != len(outputs) or not outputs[0].startswith(inputs[0]):
        return None
    suffix = outputs[0][len(inputs[0]) :]
    if not re.fullmatch(r"_bar\d*", suffix):
        return None
    if any(y != x + suffix for x, y in zip(inputs, outputs, strict=True)):
        return None
    return dict(zip(outputs, inputs, strict=True))


def hessian_entry(x: str, y: str, tex_of: Callable[[str], str] | None = None) -> Label:
    r"""The entry ``(x̄, y)`` of a Hessian graph's Jacobian as the second partial
    ``∂²f/∂x∂y`` (``∂²f/∂x²`` on the diagonal); ``tex_of`` prints a vertex name in LaTeX
    (default: as drawings do). ``f`` is the function, or ``λᵀy`` for weighted outputs.

    >>> hessian_entry("x", "x").tex
    '\\frac{\\partial^{2} f}{\\partial x^{2}}'
    >>> hessian_entry("x1", "y").text
    '∂²f/∂x1∂y'
    """
    tex_of = tex_of or _vertex_tex
    if x == y:
        return Label(
            f"∂²f/∂{x}²",
            f"∂²<I>f</I>/∂{_vertex_html(x)}<SUP>2</SUP>",
            rf"\frac{{\partial^{{2}} f}}{{\partial {tex_of(x)}^{{2}}}}",
        )
    return Label(
        f"∂²f/∂{x}∂{y}",
        f"∂²<I>f</I>/∂{_vertex_html(x)}∂{_vertex_html(y)}",
        rf"\frac{{\partial^{{2}} f}}{{\partial {tex_of(x)}\,\partial {tex_of(y)}}}",
    )


def _parts(name: str) -> tuple[str, list[str]] | None:
    """Base and subscripts of a vertex name, or None when it has no math reading."""
    if "__" in name or not name.isidentifier():
        return None
    base, supers, subs = split_super_sub(name)
    return (base, subs) if not supers and base and all(subs) else None  # E_: no subscript


def _base_html(base: str) -> str:
    return greek_unicode[base] if base in greek_unicode else f"<I>{_html.escape(base)}</I>"


def _base_tex(base: str) -> str:
    if base in _GREEK_TEX:
        return "\\" + base
    return base if len(base) == 1 else rf"\mathit{{{base}}}"


@functools.lru_cache(maxsize=1 << 12)  # the same names, frame after frame
def _vertex_html(name: str) -> str:
    stem = adjoint_stem(name)
    parts = _parts(stem or name)
    if parts is None:
        return _html.escape(name)
    base, subs = parts
    head = f"<O>{_base_html(base)}</O>" if stem else _base_html(base)
    return head + (f"<SUB>{','.join(subs)}</SUB>" if subs else "")


@functools.lru_cache(maxsize=1 << 12)
def _vertex_tex(name: str) -> str:
    stem = adjoint_stem(name)
    parts = _parts(stem or name)
    if parts is None:
        return rf"\mathrm{{{name.replace('_', chr(92) + '_')}}}"
    base, subs = parts
    head = _base_tex(base)
    if stem:
        short = len(base) == 1 or base in _GREEK_TEX
        head = rf"\bar{{{head}}}" if short else rf"\overline{{{head}}}"
    sub = ",".join(subs)
    return head + (f"_{{{sub}}}" if sub else "")


@functools.lru_cache(maxsize=1 << 12)
def _flat(name: str) -> str:
    """A vertex name inside a subscript: no nested subscript (x_2 and x2 both read x2;
    an adjoint x_bar reads x̄)."""
    stem = adjoint_stem(name)
    parts = _parts(stem or name)
    if parts is None:
        return name
    base, subs = parts
    return greek_unicode.get(base, base) + ("\u0304" if stem else "") + "".join(subs)


@functools.lru_cache(maxsize=1 << 12)
def vertex_label(name: str, math: bool = True) -> Label:
    """A vertex name as math: ``x0`` -> *x*₀, ``theta`` -> θ, ``x_2`` -> *x*₂, an
    adjoint ``x1_bar`` -> x̄₁."""
    if not math:
        return Label(name, _html.escape(name), rf"\mathrm{{{name.replace('_', chr(92) + '_')}}}")
    return Label(name, _vertex_html(name), _vertex_tex(name))


@dataclass
class SymbolNames:
    """How the symbols of one graph print: edge symbols and references in HTML and TeX."""

    html: dict[sympy.Symbol, str]
    tex: dict[sympy.Symbol, str]


def symbol_names(graph: DGraph | None, references=()) -> SymbolNames:
    """Printed names for ``graph``'s edge symbols (``c_{target,source}``) and for the
    reference symbols given."""
    names = SymbolNames({}, {})
    if graph is not None:
        for sym, (u, v) in graph.edge_symbols.items():
            _edge_names(names, sym, v, u)
    for r in references:
        m = _REFERENCE.match(str(r))
        if m:
            names.html[r] = f"<I>r</I><SUB>{m.group(1)}</SUB>"
            names.tex[r] = f"r_{{{m.group(1)}}}"
    return names


def _edge_names(names: SymbolNames, sym: sympy.Symbol, target: str, source: str) -> None:
    names.html[sym] = (
        f"<I>c</I><SUB>{_html.escape(_flat(target))},{_html.escape(_flat(source))}</SUB>"
    )
    names.tex[sym] = f"c_{{{_vertex_tex(target)},{_vertex_tex(source)}}}"


def name_edge_symbols(names: SymbolNames, exprs, vertices) -> None:
    """Name the edge symbols ``d_<target>_<source>`` found in ``exprs`` that ``names``
    does not know, when their name splits into two of ``vertices`` (labels that belong
    to another graph, e.g. an expression set laid out as a graph)."""
    known = set(vertices)
    for expr in exprs:
        for sym in _symbols(expr):
            name = sym.name
            if sym in names.html or sym.is_commutative or not name.startswith("d_"):
                continue
            rest = name[2:]
            for k in range(1, len(rest) - 1):
                if rest[k] == "_" and rest[:k] in known and rest[k + 1 :] in known:
                    _edge_names(names, sym, rest[:k], rest[k + 1 :])
                    break


class _HtmlPrinter(StrPrinter):
    """sympy's string printer with HTML-like names, superscript powers and a middle dot
    for products (graphviz draws HTML-like labels; <SUB>/<SUP> need no font support)."""

    def __init__(self, names: dict[sympy.Symbol, str]) -> None:
        super().__init__()
        self._names = names

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        if expr in self._names:
            return self._names[expr]
        m = _REFERENCE.match(expr.name)
        if m and not expr.is_commutative:
            return f"<I>r</I><SUB>{m.group(1)}</SUB>"
        return _vertex_html(expr.name)

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        base, exp = expr.as_base_exp()
        inner = self._print(base)
        if not ((base.is_Atom and not base.is_Rational) or base.is_Integer or base.is_Function):
            inner = f"({inner})"
        if exp == sympy.S.Half:
            return f"√{inner}"
        if exp == -sympy.S.Half:
            return f"1/√{inner}"
        if exp.is_Integer and exp > 0:
            return f"{inner}<SUP>{exp}</SUP>"
        if exp.is_Integer and exp == -1:
            return f"1/{inner}"
        return f"{inner}<SUP>{self._print(exp)}</SUP>"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        return super()._print_Mul(expr).replace("*", "·")

    def _print_Relational(self, expr) -> str:
        # < > & are markup in graphviz's HTML-like labels (a Piecewise's conditions)
        op = {"<": "&lt;", ">": "&gt;", "<=": "≤", ">=": "≥", "==": "=", "!=": "≠"}
        return f"{self._print(expr.lhs)} {op.get(expr.rel_op, expr.rel_op)} {self._print(expr.rhs)}"

    def _print_And(self, expr) -> str:
        return " ∧ ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Or(self, expr) -> str:
        return " ∨ ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Not(self, expr) -> str:
        return f"¬({self._print(expr.args[0])})"

    def _print_Pi(self, expr) -> str:
        return "π"

    def _print_Exp1(self, expr) -> str:
        return "<I>e</I>"


def _symbols(expr: sympy.Expr) -> set[sympy.Symbol]:
    return expr.free_symbols if isinstance(expr, sympy.Basic) else set()


def expr_label(
    expr: sympy.Expr | str, names: SymbolNames | None = None, math: bool = True, limit: int = 0
) -> Label:
    """An expression (a partial, an edge symbol, a sum of products) in every form; with
    ``limit``, text longer than that breaks a sum into one term per line. Printed once
    per expression and names of its symbols (the frames of a step view label the same
    edges and entries over and over)."""
    if isinstance(expr, str):
        return text_label(expr)
    names = names or SymbolNames({}, {})
    if not isinstance(expr, sympy.Basic):
        return _printed(expr, names, math, limit)
    symbols = expr.atoms(sympy.Symbol) if math else ()
    html = frozenset((s, names.html[s]) for s in symbols if s in names.html)
    tex = frozenset((s, names.tex[s]) for s in symbols if s in names.tex)
    return _printed_once(expr, html, tex, math, limit)


@functools.lru_cache(maxsize=1 << 12)
def _printed_once(expr: sympy.Basic, html: frozenset, tex: frozenset, math: bool, limit: int):
    """:func:`_printed` with the names of the expression's symbols alone (sympy's ``==``
    is structural: ``2`` and ``2.0``, or floats of two precisions, are not equal)."""
    return _printed(expr, SymbolNames(dict(html), dict(tex)), math, limit)


def _printed(expr, names: SymbolNames, math: bool, limit: int) -> Label:
    text = sympy.sstr(expr)
    if not math:
        lab = text_label(text)
    else:
        tex_names = dict(names.tex)
        for s in _symbols(expr):
            if s not in tex_names:
                m = _REFERENCE.match(s.name)
                tex_names[s] = f"r_{{{m.group(1)}}}" if m else _vertex_tex(s.name)
        printer = _HtmlPrinter(names.html)
        html = printer.doprint(expr).replace("-", "−")
        tex = sympy.latex(expr, symbol_names=tex_names, mul_symbol=None)
        lab = Label(text, html, tex)
    if limit and len(text) > limit and isinstance(expr, sympy.Add):
        terms = [expr_label(t, names, math) for t in expr.args]
        html = "<BR/>+ ".join(t.html for t in terms).replace("+ −", "− ")
        return Label("\n+ ".join(t.text for t in terms), html, lab.tex, lab.math)
    return lab
