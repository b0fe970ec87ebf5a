"""Labels of tensor graphs: a vertex's shape under its name, an edge's Jacobian block as
the papers write it (``diag(exp(u))``, ``I ⊗ Wᵀ``, ``S[1:4]``:
:func:`dgraph.blocks.arrays.describe`), and the legend of the line style each structure
family of blocks is drawn in (:data:`dgraph.render.styles.BLOCK_FAMILIES`).

Every label comes in the three forms of :class:`~dgraph.render.labels.Label`; the TeX form
writes the Unicode of the block texts (⊗, ᵀ, ×) as math, so that pdfLaTeX typesets it.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterable

from .labels import Label, text_label
from .styles import BLOCK_FAMILIES, Style, block_family

__all__ = [
    "block_label",
    "dims",
    "family_legend",
    "noted",
    "shaped",
]

# Unicode in block texts, as LaTeX text mode writes it (after text_label's escapes)
_TEX_UNICODE = {
    "⊗": r"$\otimes$",
    "ᵀ": r"$^{\mathsf{T}}$",
    "×": r"$\times$",
    "∂": r"$\partial$",
    "·": r"$\cdot$",
    "…": r"\dots{}",
    "−": "-",
    "←": r"$\leftarrow$",
}
_POWER = re.compile(r"\*\*(\d+)")


def dims(shape: tuple[int, ...]) -> str:
    """A shape as the papers write it: ``5×4``; a scalar ``1``.

    >>> dims((5, 4)), dims(())
    ('5×4', '1')
    """
    return "×".join(map(str, shape)) or "1"


def _tex_text(text: str) -> str:
    """``text`` for LaTeX text mode, its Unicode math as math."""
    tex = text_label(_POWER.sub(r"^\1", text).replace("*", "·")).tex
    tex = re.sub(r"\\textasciicircum\{\}(\d+)", r"\\textsuperscript{\1}", tex)
    return "".join(_TEX_UNICODE.get(c, c) for c in tex)


def block_label(text: str, style: Style) -> Label:
    """A block's text as an edge label (powers as superscripts, products as dots); longer
    than the style's ``max_label`` it is cut to its head (``diag(…)``).

    >>> block_label("diag(1 - tanh(h)**2)", Style()).html
    'diag(1 − tanh(h)<SUP>2</SUP>)'
    """
    if len(text) > style.max_label:
        cut = text.find("(")
        text = text[:cut] + "(…)" if 0 < cut < style.max_label else text[: style.max_label] + "…"
    html = _POWER.sub(r"<SUP>\1</SUP>", _html.escape(text)).replace("*", "·")
    return Label(text, html.replace(" - ", " − "), _tex_text(text), math=False)


def shaped(label: Label, shape: tuple[int, ...], style: Style) -> Label:
    """A vertex label with its shape under the name (``h`` over ``5×4``); a scalar's label
    as it is."""
    if not shape:
        return label
    size = max(style.fontsize - 3, 6)
    text = dims(shape)
    gap = '<BR/><FONT POINT-SIZE="3"> </FONT>' if "<SUB>" in label.html else ""
    name_tex = label.tex if label.math else rf"\mbox{{{label.tex}}}"
    shape_tex = text.replace("×", r"\times ")
    return Label(
        f"{label.text}\n{text}",
        f'{label.html}{gap}<BR/><FONT POINT-SIZE="{size:g}">{_html.escape(text)}</FONT>',
        rf"\begin{{array}}{{c}}{name_tex}\\[-2pt]\scriptstyle {shape_tex}\end{{array}}",
    )


def noted(label: Label, note: str, style: Style) -> Label:
    """``label`` over a small second line ``note`` (a step view's edge: its expression
    over the type of the block it holds)."""
    size = max(style.edge_fontsize - 2, 6)
    head_tex = label.tex if label.math else rf"\mbox{{{label.tex}}}"
    # a subscript drops below its line, where graphviz does not measure it: a thin line
    # of room under it keeps it off the note
    gap = '<BR/><FONT POINT-SIZE="3"> </FONT>' if "<SUB>" in label.html else ""
    return Label(
        f"{label.text}\n{note}",
        f'{label.html}{gap}<BR/><FONT POINT-SIZE="{size:g}">{_html.escape(note)}</FONT>',
        rf"\begin{{array}}{{c}}{head_tex}\\[-2pt]\mbox{{\scriptsize {_tex_text(note)}}}"
        r"\end{array}",
    )


def family_legend(types: Iterable[str], style: Style) -> list[tuple[tuple, Label]]:
    """Legend rows (a line sample and its words) for the structure families of ``types``:
    ``kronecker, outer (⊗ with I)``, in the order of :data:`BLOCK_FAMILIES`. A row's key
    is (color, tint, pattern, line width): a line, where a region's key draws a box."""
    present: dict[str, set[str]] = {}
    for t in types:
        present.setdefault(block_family(t), set()).add(t)
    rows = []
    for family, (members, what, attrs) in BLOCK_FAMILIES.items():
        if family not in present:
            continue
        named = [t for t in members if t in present[family]]
        pattern = attrs.get("style", "solid").split(",")[0]
        width = float(attrs.get("penwidth", "1"))
        key = (style.edge_color, "#ffffff", pattern, width)
        words = ", ".join(named) + (f" ({what})" if what else "")
        rows.append((key, Label(words, _html.escape(words), _tex_text(words), math=False)))
    return rows
