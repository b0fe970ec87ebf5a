"""Rich notebook output for results: expression sets as HTML or Markdown (references
first, products in their noncommutative order), comparisons as tables.

HTML uses only tables, ``<i>``, ``<sub>`` and ``<sup>`` so that it survives the HTML
sanitizers of notebook viewers; Markdown writes math as ``$...$`` (Jupyter and GitHub
typeset it) or, with ``math=False``, the text form in code spans.
"""

from __future__ import annotations

import html as _html
from typing import Any

from ..core.label_text import label_str
from .labels import adjoint_pairs, expr_label, hessian_entry, symbol_names, vertex_label

__all__ = [
    "comparison_html",
    "comparison_markdown",
    "expression_set_html",
    "expression_set_markdown",
    "verification_text",
]


def verification_text(check) -> str:
    """A verification as reports say it: ``verified (mode: detail)``, ``NOT verified:
    detail`` (values not checked anywhere) or ``WRONG (mode): detail``."""
    if check is None:
        return "NOT verified: not checked"
    if check.status == "verified":
        return f"verified ({check.mode}: {check.detail})"
    if check.status == "not verified":
        return f"NOT verified: {check.detail}"
    return f"WRONG ({check.mode}): {check.detail}"


def _status(es) -> str:
    status = verification_text(es.verification)
    return (
        f"{es.method or 'expression set'}: {es.mults} mults ({es.mults_effective} effective), "
        f"{es.adds} adds, {status}"
    )


def _rows(es, form: str) -> list[tuple[str, str]]:
    """(left, right) of every equation, references first, in ``html`` or ``tex``."""
    names = symbol_names(es.graph, es.references)
    rows = [
        (getattr(expr_label(n, names), form), getattr(expr_label(d, names), form))
        for n, d in es.references.items()
    ]
    pairs = adjoint_pairs(es.graph) or {}
    for (y, x), e in es.jacobian.items():
        vy, vx = vertex_label(y), vertex_label(x)
        if y in pairs:  # a Hessian graph's entry: the second partial it is
            lhs = getattr(hessian_entry(pairs[y], x), form)
        elif form == "html":
            lhs = f"∂{vy.html}/∂{vx.html}"
        else:
            lhs = rf"\frac{{\partial {vy.tex}}}{{\partial {vx.tex}}}"
        rows.append((lhs, getattr(expr_label(e, names), form)))
    return rows


def _lower_tags(text: str) -> str:
    """Graphviz HTML-like math (upper-case tags) as ordinary HTML."""
    for tag in ("I", "SUB", "SUP"):
        text = text.replace(f"<{tag}>", f"<{tag.lower()}>").replace(
            f"</{tag}>", f"</{tag.lower()}>"
        )
    # an adjoint's bar (graphviz's <O>): HTML has no overline tag
    return text.replace("<O>", "<span style='text-decoration:overline'>").replace("</O>", "</span>")


def expression_set_html(es) -> str:
    """An expression set as an HTML table under a line with its costs and check."""
    body = "".join(
        f"<tr><td style='text-align:right'>{_lower_tags(lhs)}</td>"
        f"<td style='text-align:left'>= {_lower_tags(rhs)}</td></tr>"
        for lhs, rhs in _rows(es, "html")
    )
    return (
        f"<div><div style='font-family:serif'>{_html.escape(_status(es))}</div>"
        f"<table style='font-family:serif'>{body}</table></div>"
    )


def expression_set_markdown(es, math: bool = True) -> str:
    """An expression set as Markdown: a costs line, then one equation per row."""
    lines = [f"**{_html.escape(_status(es))}**", ""]
    if math:
        lines += ["| | |", "|---:|:---|"]
        lines += [f"| ${lhs}$ | $= {rhs}$ |" for lhs, rhs in _rows(es, "tex")]
    else:
        lines += [f"- `{n} = {label_str(d)}`" for n, d in es.references.items()]
        lines += [f"- `d{y}/d{x} = {label_str(e)}`" for (y, x), e in es.jacobian.items()]
    return "\n".join(lines) + "\n"


COLUMNS = (
    "method",
    "mults",
    "effective",
    "adds",
    "gap",
    "to bound",
    "verified",
    "optimal",
    "seconds",
)


def _signed(k: int | None) -> str:
    """A difference as a table shows it: +3, 0, -1 (blank when unknown)."""
    return "" if k is None else f"+{k}" if k > 0 else str(k)


def _optimal_cell(row: dict[str, Any]) -> str:
    """``proven``, or ``gap N`` from the row's own lower bound (an exact search's, or
    ``best``'s in its objective), ``no`` without one, blank for a heuristic; followed by
    the claim's scope where the row has one (``proven_for``, a Hessian comparison's:
    ``proven (vertex elimination, structural mults, every entry)``), with the count proven
    where the row's cells show another basis (``proven 21 (…, every entry)`` beside a
    lower triangle's 16)."""
    scope = f" ({row['proven_for']})" if row.get("proven_for") else ""
    if row.get("optimal") or row.get("proven_optimal"):
        return "proven" + _claimed(row) + scope
    if row.get("optimal") is False:
        bound = row.get("lower_bound")
        gap = f"gap {row['mults'] - bound}" if isinstance(bound, int) and bound else "no"
        return gap + scope
    if row.get("objective_lower_bound") is not None:
        cost = row["mults"] if row.get("objective") == "structural" else row["mults_effective"]
        return f"gap {cost - row['objective_lower_bound']}{scope}"
    return ""


def _claimed(row: dict[str, Any]) -> str:
    """`` N``, the count a proof is of (as written, in the claim's mults), where the row's
    cells show its counts on another basis (a Hessian comparison's), else ``""``."""
    if not row.get("ranked_on") or row.get("counts") == row["ranked_on"]:
        return ""
    effective = "effective mults" in row.get("proven_for", "")
    return f" {row['mults_effective'] if effective else row['mults']}"


def _verified_cell(row: dict[str, Any]) -> str:
    """``yes``, ``WRONG``, or ``not checked`` (values checked nowhere: not verified)."""
    if row["verified"]:
        return "yes"
    return "not checked" if row.get("verification") == "not verified" else "WRONG"


def _basis(row: dict[str, Any]) -> str:
    """The suffix of a row's counts on its comparison's ranking basis (a Hessian
    comparison's ``ranked_on``, ``"lower triangle"`` -> ``"_lower_triangle"``), or ``""``:
    the counts as written."""
    basis = row.get("ranked_on")
    return "_" + basis.replace(" ", "_") if basis else ""


def comparison_cells(row: dict[str, Any]) -> list[str]:
    """One ``Comparison.rows()`` row as the cells of :data:`COLUMNS` (CLI and notebooks).
    A Hessian comparison's row shows its counts on the ranking basis (``ranked_on``: the
    lower triangle), on which ``gap`` and ``to bound`` are taken too; where the method
    wrote another count (every entry), its note gives that count, which a search's
    ``optimal`` cell is about."""
    optimal = _optimal_cell(row)
    seconds = row.get("seconds")
    basis = _basis(row)
    mults, effective, adds = (row[f"{k}{basis}"] for k in ("mults", "mults_effective", "adds"))
    # who found best's result, and what a Hessian comparison's count as written is of
    notes = [row["found_by"]] if row.get("found_by") else []
    if row.get("counts") and row.get("counts") != row.get("ranked_on", row["counts"]):
        notes.append(
            f"as written, {row['counts']}: {row['mults']} mults, {row['mults_effective']} effective"
        )
    elif row.get("counts"):
        notes.append(row["counts"])
    return [
        row["method"] + (f" ({'; '.join(notes)})" if notes else ""),
        str(mults),
        str(effective),
        str(adds),
        _signed(row.get("gap")),
        _signed(row.get("to_bound")),
        _verified_cell(row),
        optimal,
        "" if seconds is None else f"{seconds:.3f}",
    ]


def best_text(comparison) -> str:
    """``best: <method>``, with the objective when it is not the default effective one,
    and the basis of the ranking where a comparison has one (a Hessian's: ``ranked on the
    lower triangle``)."""
    objective = getattr(comparison, "objective", "effective")
    tail = "" if objective == "effective" else f" ({objective} mults first)"
    basis = getattr(comparison, "ranked_on", None)
    if basis:
        tail += f", ranked on the {basis} (mults, effective, adds, gap, to bound)"
    return f"best: {comparison.best}{tail}"


def bound_text(comparison) -> str:
    """The lower bounds a comparison knows, as one line (empty when none)."""
    parts = []
    bound = comparison.lower_bound
    if bound:
        parts.append(f"lower bound {bound.mults} for {bound.bounds}")
    needs = []
    if comparison.elimination_lower_bound is not None:
        needs.append(f"any elimination ≥ {comparison.elimination_lower_bound}")
    if comparison.effective_lower_bound is not None:
        needs.append(f"any accumulation ≥ {comparison.effective_lower_bound}")
    if needs:
        parts.append(f"effective mults: {', '.join(needs)}")
    search = getattr(comparison, "search_lower_bound", None)  # a Hessian comparison's
    if search:
        parts.append(f"search bound {search.mults} for {search.bounds}")
    return "; ".join(parts)


def comparison_html(comparison) -> str:
    """A comparison as an HTML table, the best method in bold, skipped ones last."""
    best = comparison.best
    head = "".join(f"<th>{c}</th>" for c in COLUMNS)
    rows = []
    for row in comparison.rows():
        if "skipped" in row:
            why = _html.escape(row["skipped"])
            rows.append(
                f"<tr><td>{_html.escape(row['method'])}</td>"
                f"<td colspan='{len(COLUMNS) - 1}'>skipped: {why}</td></tr>"
            )
            continue
        cells = [_html.escape(c) for c in comparison_cells(row)]
        if row["method"] == best:
            cells = [f"<b>{c}</b>" for c in cells]
        tds = "".join(
            f"<td style='text-align:{'left' if k == 0 else 'right'}'>{c}</td>"
            for k, c in enumerate(cells)
        )
        rows.append(f"<tr>{tds}</tr>")
    graph = comparison.graph
    caption = (
        f"{_html.escape(graph.name or 'graph')}: {len(graph.inputs)} inputs, "
        f"{len(graph.intermediates)} intermediates, {len(graph.outputs)} outputs, "
        f"{graph.n_edges} edges; {_html.escape(best_text(comparison))}"
    )
    if bound_text(comparison):
        caption += f"; {_html.escape(bound_text(comparison))}"
    return (
        f"<table><caption style='caption-side:top;text-align:left'>{caption}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def comparison_markdown(comparison) -> str:
    """A comparison as a Markdown table (the best method in bold)."""
    best = comparison.best
    lines = ["| " + " | ".join(COLUMNS) + " |", "|:---|" + "---:|" * (len(COLUMNS) - 1)]
    skipped = []
    for row in comparison.rows():
        if "skipped" in row:
            skipped.append(f"- {row['method']}: skipped — {row['skipped']}")
            continue
        cells = comparison_cells(row)
        if row["method"] == best:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    tail = [best_text(comparison)] + ([bound_text(comparison)] if bound_text(comparison) else [])
    return "\n".join([*lines, "", *skipped, *tail]).rstrip() + "\n"
