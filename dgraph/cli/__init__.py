"""The ``dgraph`` command line: one module per command family over the library, which
never imports this package (see docs/architecture.md)."""

from .main import _parser, main  # noqa: F401  (_parser: the hostile-input tests)

__all__ = ["main"]
