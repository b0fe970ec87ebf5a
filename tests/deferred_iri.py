"""jsonschema's IRI format check, loaded when first used instead of at import.

``jsonschema`` (imported by ``nbformat`` in every process that runs a notebook, and by
``jupyter_events`` in a Jupyter server) binds ``rfc3987_syntax.is_valid_syntax`` at its own
import when that package is installed (``jupyter-events`` installs it), and
``rfc3987_syntax`` builds an Earley parser of RFC 3987's grammar at *its* import: 1.8 CPU-s
per process, for a check of the ``iri`` formats that neither notebooks nor the server's
schemas ask for. :func:`defer_iri_grammar` puts a stand-in module in its place whose
``is_valid_syntax`` (and any other name) imports the real package on first use and answers
as it does: the same checks, the grammar built only if one runs.

``python -m tests.deferred_iri MODULE ARGS...`` runs ``python -m MODULE ARGS...`` with the
stand-in installed (the JupyterLab server of tests/test_explore_browser.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
import sys
import types

NAME = "rfc3987_syntax"


def _real() -> types.ModuleType:
    module = sys.modules.get(NAME)
    if module is None or getattr(module, "_dgraph_deferred", False):
        sys.modules.pop(NAME, None)
        module = importlib.import_module(NAME)
    return module


def defer_iri_grammar() -> None:
    """Install the stand-in (once, before anything imports jsonschema); nothing where
    ``rfc3987_syntax`` is already imported or not installed."""
    if NAME in sys.modules or importlib.util.find_spec(NAME) is None:
        return
    stand_in = types.ModuleType(NAME, "rfc3987_syntax, imported on first use")
    stand_in._dgraph_deferred = True

    def is_valid_syntax(term: str, value: str) -> bool:
        return _real().is_valid_syntax(term, value)

    stand_in.is_valid_syntax = is_valid_syntax

    def __getattr__(name: str):  # PEP 562; not the import system's probes (__path__)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real(), name)

    stand_in.__getattr__ = __getattr__
    sys.modules[NAME] = stand_in


if __name__ == "__main__":
    defer_iri_grammar()
    module, sys.argv = sys.argv[1], sys.argv[1:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
