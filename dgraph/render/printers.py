"""The output formats of dgraph's results as printers, one ``_print_<Type>`` method per
result type (sympy's printer convention), installed into :mod:`dgraph.core.display` when
:mod:`dgraph.render` is imported. An unknown setting raises, as in sympy.

>>> import dgraph
>>> es = dgraph.accumulate(dgraph.bundled("naumann_sin.trace"), "reverse")
>>> TextPrinter().doprint(es) == es.to_text()
True
>>> LatexPrinter(notebok=True)
Traceback (most recent call last):
...
dgraph.errors.DGraphError: Unknown setting 'notebok' for LatexPrinter; known: notebook
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..core import display
from ..errors import DGraphError
from . import notebook, text

__all__ = [
    "HtmlPrinter",
    "LatexPrinter",
    "MarkdownPrinter",
    "PngPrinter",
    "Printer",
    "SvgPrinter",
    "TextPrinter",
    "install",
]


class Printer:
    """Dispatch on the object's class (and its bases) to ``_print_<ClassName>``."""

    format: ClassVar[str]
    _default_settings: ClassVar[dict[str, Any]] = {}

    def __init__(self, **settings: Any) -> None:
        unknown = set(settings) - set(self._default_settings)
        if unknown:
            known = ", ".join(self._default_settings) or "none"
            raise DGraphError(
                f"Unknown setting {sorted(unknown)[0]!r} for {type(self).__name__}; known: {known}"
            )
        self._settings = {**self._default_settings, **settings}

    def _method(self, obj: Any):
        for cls in type(obj).__mro__:
            method = getattr(self, f"_print_{cls.__name__}", None)
            if method is not None:
                return method
        return None

    def supports(self, obj: Any) -> bool:
        return self._method(obj) is not None

    def doprint(self, obj: Any) -> str:
        method = self._method(obj)
        if method is None:
            raise DGraphError(f"{type(self).__name__} cannot print {type(obj).__name__}")
        return method(obj)


class TextPrinter(Printer):
    format = "text"

    def _print_ExpressionSet(self, es) -> str:
        return text.expression_set_text(es)

    def _print_DGraph(self, graph) -> str:
        return text.graph_summary(graph)

    def _print_Comparison(self, comparison) -> str:
        return text.comparison_text(comparison)

    def _print_FaceCheck(self, check) -> str:
        return text.face_check_text(check)


class LatexPrinter(Printer):
    format = "latex"
    _default_settings: ClassVar[dict[str, Any]] = {"notebook": False}

    def _print_ExpressionSet(self, es) -> str:
        return text.expression_set_latex(es, self._settings["notebook"])


class MarkdownPrinter(Printer):
    format = "markdown"
    _default_settings: ClassVar[dict[str, Any]] = {"math": True}

    def _print_ExpressionSet(self, es) -> str:
        return notebook.expression_set_markdown(es, self._settings["math"])

    def _print_Comparison(self, comparison) -> str:
        return notebook.comparison_markdown(comparison)


class HtmlPrinter(Printer):
    format = "html"

    def _print_ExpressionSet(self, es) -> str:
        return notebook.expression_set_html(es)

    def _print_Comparison(self, comparison) -> str:
        return notebook.comparison_html(comparison)


class SvgPrinter(Printer):
    """Graphs and face-elimination states drawn in the paper style (graphviz on use);
    ``notebook``: scaled down to the width of the page (:func:`~.drawing.fit_width`)."""

    format = "svg"
    _default_settings: ClassVar[dict[str, Any]] = {"notebook": False}

    def _print_DGraph(self, graph) -> str:
        from .drawing import draw

        return self._fit(draw(graph).svg())

    def _print_FaceState(self, state) -> str:
        from .drawing import draw

        return self._fit(draw(state, "line").svg())

    def _fit(self, svg: str) -> str:
        from .drawing import fit_width

        return fit_width(svg) if self._settings["notebook"] else svg


class PngPrinter(Printer):
    """The SVG printer's drawings as PNG bytes (graphviz renders them)."""

    format = "png"

    def _print_DGraph(self, graph) -> bytes:
        from .drawing import draw

        return draw(graph).pipe("png")

    def _print_FaceState(self, state) -> bytes:
        from .drawing import draw

        return draw(state, "line").pipe("png")


class _Installed:
    """A printer class as :mod:`dgraph.core.display` calls it: settings per call."""

    def __init__(self, cls: type[Printer]) -> None:
        self.cls = cls
        self.probe = cls()

    def supports(self, obj: Any) -> bool:
        return self.probe.supports(obj)

    def __call__(self, obj: Any, **settings: Any) -> str:
        return (self.cls(**settings) if settings else self.probe).doprint(obj)


def install() -> None:
    """Register every printer here with :mod:`dgraph.core.display`."""
    for cls in (TextPrinter, LatexPrinter, MarkdownPrinter, HtmlPrinter, SvgPrinter, PngPrinter):
        display.register(cls.format, _Installed(cls))
