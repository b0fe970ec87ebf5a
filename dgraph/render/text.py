"""Plain-text and LaTeX forms of results: expression sets (references first, products in
their noncommutative order), cost lines, comparison tables and face checks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sympy

from ..core.block_costs import post_order
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.label_text import label_latex, label_str
from ..core.paths import count_paths, path_length
from ..methods.structure import block_text
from .labels import adjoint_pairs, adjoint_stem, hessian_entry
from .notebook import COLUMNS, best_text, bound_text, comparison_cells, verification_text

__all__ = [
    "comparison_text",
    "cost_line",
    "counted",
    "expression_set_latex",
    "expression_set_text",
    "face_check_text",
    "graph_summary",
    "latex_rows",
]


def counted(n: int, noun: str) -> str:
    """``1 output``, ``2 outputs``: a count with its noun in the right number (``noun``
    is the plural, ending in s).

    >>> counted(1, "outputs"), counted(0, "paths"), counted(2, "mults")
    ('1 output', '0 paths', '2 mults')
    """
    return f"{n} {noun[:-1] if n == 1 else noun}"


def expression_set_text(es: ExpressionSet) -> str:
    """One line per equation, references first: ``r1 = ...``, ``dy/dx = ...``; on a
    tensor graph, then every block the equations use, with its shape and type."""
    lines = [f"{name} = {label_str(d)}" for name, d in es.references.items()]
    lines += [f"d{y}/d{x} = {label_str(e)}" for (y, x), e in es.jacobian.items()]
    if es.graph.is_tensor:
        lines += ["where", *block_legend(es)]
    return "\n".join(lines)


def _dims(shape: tuple[int, ...]) -> str:
    return "×".join(map(str, shape)) or "1"


def block_legend(es: ExpressionSet) -> list[str]:
    """``d_h_x = I ⊗ Wᵀ   [5×4 ← 5×3, kronecker]`` for each edge symbol ``es`` uses, in
    the graph's edge order."""
    graph = es.graph
    used: set[sympy.Basic] = set()
    for e in (*es.references.values(), *es.jacobian.values()):
        used.update(s for s in post_order(e) if s.is_Symbol)  # no recursion: deep sums
    lines = []
    for u, v in graph.edges():
        sym = graph.symbol(u, v)
        if sym not in used:
            continue
        block, text = graph.block(u, v), block_text(graph, u, v)
        shape = f"{_dims(graph.shape(v))} ← {_dims(graph.shape(u))}"
        lines.append(f"  {sym} = {text}   [{shape}, {block.type_name}]")
    return lines


def _tex_id(v: str) -> str:
    stem = adjoint_stem(v)
    if stem is not None:  # an adjoint x_bar: x with a bar (x_{1} with it over the x)
        inner = _tex_id(stem)
        m = re.match(r"([A-Za-z])(_\{.*\})?\Z", inner)
        return rf"\bar{{{m.group(1)}}}{m.group(2) or ''}" if m else rf"\overline{{{inner}}}"
    head, _, tail = v.partition("_")
    m = re.match(r"([A-Za-z]+)(\d+)\Z", head)
    if m and not tail:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    return sympy.latex(sympy.Symbol(v))


def latex_rows(
    graph: DGraph,
    references: Mapping[sympy.Symbol, sympy.Expr],
    entries: Mapping[tuple[str, str], sympy.Expr],
) -> list[str]:
    """``align`` rows of references and entries (keyed (output, input)) of ``graph``:
    labels as ``c_{target,source}``, references as ``r_{k}``."""
    names = {sym: f"c_{{{_tex_id(v)},{_tex_id(u)}}}" for sym, (u, v) in graph.edge_symbols.items()}
    names.update({r: f"r_{{{str(r)[1:]}}}" for r in references})

    def tex(e: sympy.Expr) -> str:
        return label_latex(e, names)

    rows = [f"{names[n]} &= {tex(d)}" for n, d in references.items()]
    rows += [f"{_entry_tex(graph, y, x)} &= {tex(e)}" for (y, x), e in entries.items()]
    return rows


def _entry_tex(graph: DGraph, y: str, x: str) -> str:
    """The left side of entry (y, x): ``∂y/∂x``, or on a Hessian graph (outputs the
    inputs' adjoints) the second partial ``∂²f/∂x_i∂x_j`` that ``∂x̄_i/∂x_j`` is."""
    pairs = adjoint_pairs(graph)
    if pairs is not None and y in pairs:
        return hessian_entry(pairs[y], x, _tex_id).tex
    return rf"\frac{{\partial {_tex_id(y)}}}{{\partial {_tex_id(x)}}}"


def expression_set_latex(es: ExpressionSet, notebook: bool = False) -> str:
    """An unnumbered ``align*`` environment, references first; labels as
    ``c_{target,source}`` (``notebook``: ``$$\\begin{aligned}...$$`` for Jupyter, under a
    row with the costs and whether it is verified)."""
    rows = latex_rows(es.graph, es.references, es.jacobian)
    if notebook:
        rows.insert(0, rf"&\text{{{_text_mode(_short_status(es))}}}")
        return "$$\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}$$"
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def _short_status(es: ExpressionSet) -> str:
    """Costs and whether the set is verified, on one line (the check's detail is in
    :func:`cost_line`)."""
    check = es.verification
    status = "not verified" if check is None else check.status
    return (
        f"{es.method or 'expression set'}: {es.mults} mults ({es.mults_effective} effective), "
        f"{es.adds} adds, {status}"
    )


def _text_mode(words: str) -> str:
    """``words`` safe inside MathJax's and LaTeX's ``\\text{}``: letters, digits and
    plain punctuation kept, anything else a space."""
    return "".join(c if c.isalnum() or c in " ,.:;()+-=/" else " " for c in words)


def graph_summary(graph: DGraph) -> str:
    """Sizes, paths and the naive cost of a graph, on one line (a linear system's graph
    says that its outputs are residuals, solved for in generated code). The naive cost is
    Naumann's L (the total length of the N input-output paths, his path-by-path count)
    minus N: a path of k edges costs k - 1 multiplications once its first factor is taken
    as it is rather than multiplied into a seed of 1."""
    outputs = "outputs" if not graph.solved else "residual outputs"
    n, length = count_paths(graph), path_length(graph)
    line = (
        f"{graph.name or 'graph'}: {counted(len(graph.inputs), 'inputs')}, "
        f"{counted(len(graph.intermediates), 'intermediates')}, "
        f"{counted(len(graph.outputs), outputs)}, {counted(graph.n_edges, 'edges')}; "
        f"{counted(n, 'paths')} (naive cost L - N = {length} - {n} = {length - n}:"
        " Naumann's L, the first factor of each path free)"
    )
    if graph.solved:
        line += f"; code solves them for {', '.join(graph.solved)}"
    return line


def cost_line(es: ExpressionSet) -> str:
    """Costs, the verification and any optimality claim of a result, on one line."""
    status = verification_text(es.verification)
    extra = ""
    if "optimal" in es.info:
        extra = (
            " — proven optimal"
            if es.info["optimal"]
            else f" — best found; lower bound {es.info['lower_bound']}"
            f" (gap {es.mults - es.info['lower_bound']})"
        )
    if "objective" in es.info:  # best: its lower bound in what it minimized
        objective = es.info["objective"]
        if es.info.get("proven_optimal"):
            extra = f" — proven optimal in {objective} mults among {es.info['optimal_among']}"
        elif es.info.get("objective_lower_bound") is not None:
            bound = es.info["objective_lower_bound"]
            cost = es.mults if objective == "structural" else es.mults_effective
            extra = f" — {objective} lower bound {bound} (gap {cost - bound})"
    if "budget_note" in es.info:
        extra += f" — {es.info['budget_note']}"
    return (
        f"{es.method}: {counted(es.mults, 'mults')} ({es.mults_effective} effective), "
        f"{counted(es.adds, 'adds')}, "
        f"{status}{extra}"
    )


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=False))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def comparison_text(comparison: Any) -> str:
    """A comparison as an aligned table, skipped methods and the best below it."""
    rows = [list(COLUMNS)]
    rows += [comparison_cells(row) for row in comparison.rows() if "skipped" not in row]
    text = _table(rows)
    for method, why in comparison.skipped.items():
        text += f"\n{method}: skipped — {why}"
    text += "\n" + best_text(comparison)
    bound = bound_text(comparison)
    return text + (f"; {bound}" if bound else "")


def selection_text(selection: Any) -> str:
    """The candidates of ``dgraph codegen`` (:func:`dgraph.codegen.selection.select_jacobian`)
    as a table of their Jacobian programs' counted operations, the shipped one marked."""
    rows = [["codegen candidate", "mults", "adds", "divs", "calls", "est. mults"]]
    notes = ["", ""]
    for c in selection.candidates:
        ops = c.ops
        cells = [str(v) for v in (ops.mults, ops.adds, ops.divs, ops.calls)] if ops else ["-"] * 4
        estimate = str(c.estimate.mults) if c.estimate is not None else "-"
        rows.append([("* " if c.shipped else "  ") + c.method, *cells, estimate])
        notes.append(c.note)
    table = _table(rows).split("\n")
    lines = [f"{line}  {note}".rstrip() for line, note in zip(table, notes, strict=True)]
    return "\n".join(lines) + f"\ncodegen ships: {selection.method} (marked *)"


def face_check_text(check: Any) -> str:
    """A readable account of one face check (:func:`dgraph.faces.realize.check_faces`)."""
    es = check.expression_set
    head = f"{es.method}: {es.mults} mults, verified {str(es.verified).lower()}"
    if not check.acyclic:
        lines = [f"{head}; circular elimination dependencies, no face order keeps its parentheses:"]
        lines += [f"  {dep}" for dep in check.cycle or []]
        return "\n".join(lines)
    verdict = (
        "realized"
        if check.realized
        else (
            "face elimination does it cheaper"
            if check.simulated_mults < check.mults
            else "not realized at its cost"
        )
    )
    order = ", ".join(f"[{a}, {b}]" for a, b in check.order or [])
    proof = str(bool(check.realization and check.realization.verified)).lower()
    count = f"{check.simulated_mults} face eliminations"
    if len(check.order or []) != check.simulated_mults:  # blocks: constant faces fold
        count = f"{len(check.order or [])} face eliminations, {check.simulated_mults} mults"
    return f"{head}; acyclic, {verdict}: {count} (simulation verified: {proof})\n  order: {order}"
