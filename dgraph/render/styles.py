"""Drawing styles: fonts, fills, the highlight palette and the layout limits for large graphs.

The default, ``paper``, is meant for print: a serif font (Times, as in most papers),
fills in shades of gray, and a highlight palette whose colors differ in lightness as well
as in hue, each paired with its own line pattern, so that regions stay apart when
printed in black and white. The palette is Paul Tol's *high-contrast* scheme, designed
for exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import DGraphError

__all__ = [
    "BLOCK_FAMILIES",
    "PALETTE",
    "STYLES",
    "Highlight",
    "Style",
    "block_family",
    "block_line",
    "get_style",
]

# Paul Tol's high-contrast scheme (dark blue, red, yellow): distinct when printed in gray
# (relative luminance about 0.06, 0.20, 0.42), with black first for the strongest mark.
PALETTE = ("#000000", "#004488", "#BB5566", "#DDAA33")
_TINTS = ("#ececec", "#dce6f0", "#f2dfe3", "#f7ecd6")
_PATTERNS = ("solid", "dashed", "dotted")


@dataclass(frozen=True)
class Highlight:
    """How the k-th highlighted region is drawn: a color, a tint for its cluster and a
    line pattern, cycling through the palette and then through the patterns."""

    color: str
    tint: str
    pattern: str

    @classmethod
    def nth(cls, k: int) -> Highlight:
        n = len(PALETTE)
        return cls(PALETTE[k % n], _TINTS[k % n], _PATTERNS[(k // n) % len(_PATTERNS)])


@dataclass(frozen=True)
class Style:
    """Everything a drawing takes from its style; ``math`` draws labels as math
    (italic names, subscripts, ``c_{y,x}`` for edge symbols), else as plain text."""

    name: str = "paper"
    font: str = "Times"
    fontsize: float = 12.0
    edge_fontsize: float = 10.0
    math: bool = True
    fills: dict[str, str] = field(
        default_factory=lambda: {
            "input": "#e6e6e6",
            "intermediate": "#ffffff",
            "output": "#cccccc",
            "copy": "#ffffff",
            "terminal": "#d9d9d9",
        }
    )
    edge_color: str = "#333333"
    dpi: int = 150
    nodesep: float = 0.3
    ranksep: float = 0.4
    edge_labels: str = "auto"  # auto | partial | symbol | none
    label_limit: int = 150  # auto: no edge labels on graphs with more edges than this
    large: int = 300  # edges above which dot gets its fast settings
    max_label: int = 40  # characters of an edge label before a sum is broken into lines
    inline_labels: bool = True  # edge labels as nodes on their edge: nothing crosses them

    def with_font(self, font: str) -> Style:
        """The same style in ``serif`` or ``sans`` (or any graphviz font name)."""
        return replace(self, font=_FONTS.get(font, font))


_FONTS = {"serif": "Times", "sans": "Arial"}

STYLES: dict[str, Style] = {
    "paper": Style(),
    "screen": Style(name="screen", font="Arial", fontsize=11.0, edge_fontsize=9.0),
    # labels exactly as the text output writes them (d_y_x, sstr partials)
    "plain": Style(name="plain", math=False),
}


def get_style(style: str | Style | None = None, font: str | None = None) -> Style:
    """A style by name (``paper``, ``screen``, ``plain``) or as given; ``font`` switches
    between ``serif`` and ``sans``."""
    if style is None:
        chosen = STYLES["paper"]
    elif isinstance(style, Style):
        chosen = style
    elif style in STYLES:
        chosen = STYLES[style]
    else:
        raise DGraphError(f"unknown style {style!r}: use {', '.join(STYLES)}")
    return chosen.with_font(font) if font else chosen


# -- tensor graphs: one line style per structure family of a Jacobian block ----------------

# family: (the block types in it, what it is, graphviz line attributes). Distinct in gray
# print too: solid, dashed, dotted, and the dense ones heavy.
BLOCK_FAMILIES: dict[str, tuple[tuple[str, ...], str, dict[str, str]]] = {
    "diagonal": (("diagonal", "scaled identity", "identity"), "elementwise", {}),
    "kronecker": (("kronecker", "block diagonal", "outer"), "⊗ with I", {"style": "dashed"}),
    "move": (
        (
            "selection",
            "embedding",
            "reduction",
            "broadcast",
            "permutation",
            "run-time permutation",
            "zero",
        ),
        "moves, free",
        {"style": "dotted"},
    ),
    "dense": (("dense",), "", {"penwidth": "2.2"}),
    "sparse": (("sparse",), "fixed pattern", {"style": "dashed", "penwidth": "2.2"}),
}
_FAMILY_OF = {t: name for name, (types, _, _) in BLOCK_FAMILIES.items() for t in types}


def block_family(type_name: str) -> str:
    """The structure family of a block type (:attr:`dgraph.blocks.Labelled.type_name`).

    >>> block_family("kronecker"), block_family("reduction"), block_family("identity")
    ('kronecker', 'move', 'diagonal')
    """
    return _FAMILY_OF.get(type_name, "dense")


def block_line(type_name: str) -> dict[str, str]:
    """Graphviz edge attributes of a block of this type: its family's line style."""
    return dict(BLOCK_FAMILIES[block_family(type_name)][2])
