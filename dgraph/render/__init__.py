"""Drawings and notebook display: graphs in four views (graph, line, levels, pages) with
highlighted regions, Dixon's Hessian graph in its mirror layout, step-by-step views of
accumulations, export to SVG, PDF, PNG, DOT and TikZ, and rich output for expression sets
and comparisons.

>>> from dgraph import bundled
>>> from dgraph.render import draw
>>> draw(bundled("naumann_sin.trace"), "levels").tikz().count("tikzpicture")
2
"""

from __future__ import annotations

import importlib

from .printers import install as _install_printers

_install_printers()

__all__ = [
    "FORMATS",
    "STYLES",
    "VIEWS",
    "Drawing",
    "Exploration",
    "StepViewer",
    "Style",
    "draw",
    "draw_hessian",
    "draw_regions",
    "explore",
    "get_style",
    "hessian_layout",
    "steps",
]

# imported on first use, so that ``dgraph render``'s argument parser stays light
_HOME = {
    "FORMATS": "drawing",
    "VIEWS": "drawing",
    "Drawing": "drawing",
    "draw": "drawing",
    "draw_regions": "branches",
    "draw_hessian": "hessian",
    "hessian_layout": "hessian",
    "Exploration": "explore",
    "explore": "widget",
    "StepViewer": "stepviews",
    "steps": "stepviews",
    "STYLES": "styles",
    "Style": "styles",
    "get_style": "styles",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
