"""A source's import statements and attribute reads, parsed once per process.

tests/test_layers.py and tests/test_imports.py each walk every module of the package (3.4 MB
of source; ``ast.parse`` is most of their time): one parse serves both."""

from __future__ import annotations

import ast
import functools


@functools.cache
def nodes(source: str) -> tuple[tuple[ast.Import | ast.ImportFrom, ...], tuple[ast.Attribute, ...]]:
    """``source``'s import statements and its attribute reads, wherever they stand."""
    found = list(ast.walk(ast.parse(source)))
    imports = tuple(n for n in found if isinstance(n, (ast.Import, ast.ImportFrom)))
    return imports, tuple(n for n in found if isinstance(n, ast.Attribute))
