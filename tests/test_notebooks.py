"""The notebooks in examples/ run top to bottom (their own asserts check the numbers), one
after another in one kernel per module, each as in a fresh kernel (tests/notebook_kernel.py)."""

from __future__ import annotations

import pytest

from .deferred_iri import defer_iri_grammar
from .notebook_kernel import EXAMPLES, SharedKernel
from .test_browser import NOTEBOOKS as BROWSER_NOTEBOOKS
from .test_browser import browser_available

NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


@pytest.fixture(scope="module")
def kernel():
    """One kernel for this module's notebooks (started on its first notebook)."""
    # imported here, with jsonschema's IRI grammar deferred (tests/deferred_iri.py): paid
    # by the processes that run a notebook, not by every worker that collects this file
    defer_iri_grammar()
    shared = SharedKernel()
    yield shared
    shared.close()


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
