"""The ``dgraph`` command line: one module per command family over the library, which
never imports this package (see docs/architecture.md)."""

from .main import main

__all__ = ["main"]
