"""A generated result as a NumPy array, for the tests' comparisons: dgraph's own
densifier (:func:`dgraph.codegen.tensor.check.densified`: a BCOO by NumPy, its dtype
kept; no XLA kernel compiled per shape, as ``BCOO.todense`` compiles one)."""

from __future__ import annotations

from dgraph.codegen.tensor.check import densified as dense

__all__ = ["dense"]
