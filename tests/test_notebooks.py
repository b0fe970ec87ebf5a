"""The notebooks in examples/ run top to bottom (their own asserts check the numbers), one
after another in one kernel per process, each as in a fresh kernel (tests/notebook_kernel.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .deferred_iri import defer_iri_grammar
from .notebook_kernel import EXAMPLES, shared_kernel
from .test_browser import NOTEBOOKS as BROWSER_NOTEBOOKS
from .test_browser import browser_available

NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


@pytest.fixture(scope="module")
def kernel(request):
    """The process's kernel for notebooks, tests/test_browser.py's too (started on its
    first notebook)."""
    # imported here, with jsonschema's IRI grammar deferred (tests/deferred_iri.py): paid
    # by the processes that run a notebook, not by every worker that collects this file
    defer_iri_grammar()
    return shared_kernel(request.config)


def test_there_are_notebooks():
    assert NOTEBOOKS, "examples/ has no notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, request):
    if path.name in BROWSER_NOTEBOOKS and browser_available():
        pytest.skip("executed, with the same check for errors, by tests/test_browser.py")
    defer_iri_grammar()
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for module in nb.metadata.get("dgraph", {}).get("requires", []):  # an optional extra
        pytest.importorskip(module, reason=f"{path.name} needs {module}")
    request.getfixturevalue("kernel").execute(nb)
    errors = [
        o
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors


def test_the_reset_empties_the_namespace_with_the_heap_frozen(tmp_path, monkeypatch):
    """The code run before each notebook (tests/notebook_kernel.py), here with a stand-in
    for IPython's shell: ``%reset -f`` runs while the heap is frozen (its two full
    collections walk nothing), nothing stays frozen after it, and the namespace is the
    fresh one, in examples/' stand-in directory."""
    import gc
    import sys

    from .notebook_kernel import RESET

    frozen_during: list[int] = []

    class Shell:
        user_ns = {"__name__": "__main__", "left_over": 1}  # noqa: RUF012

        def run_line_magic(self, name, line):
            assert (name, line) == ("reset", "-f")
            frozen_during.append(gc.get_freeze_count())
            self.user_ns.clear()

    shell = Shell()
    monkeypatch.setattr(sys, "_dgraph_fresh", {"__name__": "__main__"}, raising=False)
    for module in ("jax", "matplotlib.pyplot"):  # this worker's own: left as they are
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.chdir(tmp_path)
    namespace = {"get_ipython": lambda: shell}
    exec(RESET, namespace)
    namespace["_dgraph_reset"](str(EXAMPLES))
    assert len(frozen_during) == 1 and frozen_during[0] > 1000  # this process's heap
    assert gc.get_freeze_count() == 0
    assert shell.user_ns == {"__name__": "__main__"}
    assert Path.cwd() == EXAMPLES
