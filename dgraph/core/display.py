"""Output formats are downstream: the renderer registers one printer per format and the
core types look theirs up here, so the core never imports a drawing or a table.

This is the extension pattern of FastDifferentiation.jl's plotting: ``dgraph.render``
installs its printers when it is imported (``import dgraph`` does), and without them a
core object still has its ``repr`` and ``to_dict``.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import DGraphError

__all__ = ["FORMATS", "Printable", "formatted", "register", "rich"]

FORMATS = ("text", "latex", "markdown", "html", "svg", "png")


class _Printer(Protocol):
    def supports(self, obj: Any) -> bool: ...

    def __call__(self, obj: Any, **settings: Any) -> str: ...


_PRINTERS: dict[str, _Printer] = {}


def register(fmt: str, printer: _Printer) -> None:
    """Install ``printer`` for ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    _PRINTERS[fmt] = printer


def formatted(obj: Any, fmt: str, **settings: Any) -> str:
    """``obj`` in format ``fmt``; an error when no printer handles it."""
    printer = _PRINTERS.get(fmt)
    if printer is None or not printer.supports(obj):
        raise DGraphError(
            f"no {fmt} printer for {type(obj).__name__}; import dgraph.render to install them"
        )
    return printer(obj, **settings)


def rich(obj: Any, fmt: str, **settings: Any) -> str | None:
    """``obj`` in ``fmt`` for Jupyter's ``_repr_*_`` hooks: None where the type does not
    offer that format (its ``rich_formats``) or no printer handles it."""
    if fmt not in getattr(obj, "rich_formats", ()):
        return None
    printer = _PRINTERS.get(fmt)
    return printer(obj, **settings) if printer is not None and printer.supports(obj) else None


class Printable:
    """Text, LaTeX and Markdown forms and notebook display, by the registered printers;
    a subclass names the formats Jupyter may show in ``rich_formats``."""

    rich_formats: tuple[str, ...] = ()

    def to_text(self) -> str:
        return formatted(self, "text")

    def to_latex(self) -> str:
        return formatted(self, "latex")

    def to_html(self) -> str:
        return formatted(self, "html")

    def to_markdown(self, math: bool = True) -> str:
        """Markdown; ``math`` writes ``$...$`` LaTeX, else the text form."""
        return formatted(self, "markdown", math=math)

    def _repr_html_(self) -> str | None:
        return rich(self, "html")

    def _repr_latex_(self) -> str | None:
        return rich(self, "latex", notebook=True)

    def _repr_markdown_(self) -> str | None:
        return rich(self, "markdown")

    def _repr_svg_(self) -> str | None:
        return rich(self, "svg", notebook=True)

    def _repr_png_(self) -> bytes | None:
        """The same drawing as PNG: Jupyter shows no SVG from an untrusted notebook."""
        return rich(self, "png")
