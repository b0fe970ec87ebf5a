"""Sphinx configuration of dgraph's documentation site: ``sh setup.sh docs``.

The source directory is the repository itself (``sphinx-build -c docs . docs/_build/html``),
so that the pages in docs/, the notebooks in examples/ and benchmarks/RESULTS.md keep the
relative links they have on GitHub; ``include_patterns`` picks the pages. The API reference
(docs/api/) lists every name in ``dgraph.__all__`` and in the public subpackages'
``__all__``; its tables are written here from those lists at each build, so a new public
name gets its page without an edit. Why Sphinx: docs/site.md.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import dgraph  # noqa: E402

project = "dgraph"
author = "the dgraph authors"
copyright = "the dgraph authors"
release = version = dgraph.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: it renders offline too
]

root_doc = "docs/index"
include_patterns = [
    "docs/**.md",
    "docs/api/**",
    "examples/*.ipynb",
    "examples/README.md",
    "benchmarks/RESULTS.md",
]
exclude_patterns = [
    "docs/_build/**",
    "docs/README.md",  # shown on GitHub; the site's home includes it (docs/index.md)
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# MyST: GitHub's Markdown plus $...$ math; headings get anchors, as on GitHub
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 4

# notebooks: stored outputs are shown; a notebook without outputs is executed once and
# its outputs kept in docs/_build/.jupyter_cache, so a rebuild does not run it again
nb_execution_mode = "cache"
nb_execution_excludepatterns = [  # those with outputs stored: shown as they are, not run
    f"examples/{nb.name}"
    for nb in sorted((ROOT / "examples").glob("*.ipynb"))
    if any(c.get("outputs") for c in json.loads(nb.read_text())["cells"])
]
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# API reference: autosummary writes one page per public name; numpydoc reads the docstrings
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True}  # a class page documents its methods
autodoc_typehints = "none"  # the signature shows them; numpydoc's sections say the rest
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "pydata_sphinx_theme"
html_title = f"dgraph {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
    "secondary_sidebar_items": ["page-toc"],
}
# the guide and the notebooks are flat (no section to navigate): their pages take the width
html_sidebars = {"docs/*": [], "docs/gallery/**": [], "examples/*": [], "benchmarks/*": []}
html_extra_path = ["_extra"]  # index.html at the site's root: a link to docs/index.html
suppress_warnings = ["mystnb.unknown_mime_type"]

#: the packages whose ``__all__`` the reference covers, with a line about each
PACKAGES = {
    "dgraph": "Graphs in, verified Jacobian formulas out: the names most programs need.",
    "dgraph.methods": "The accumulation methods by name, and comparing them.",
    "dgraph.codegen": "Generated code: NumPy, C, CUDA and JAX from expression sets.",
    "dgraph.render": "Drawings, step-by-step views, TikZ and notebook display.",
    "dgraph.chain": "Jacobian chain products (Naumann) and their dynamic programs.",
    "dgraph.second_order": (
        "Hessians on Dixon's graph: edge pushing, symmetric pairs, forward-over-reverse."
    ),
    "dgraph.inverse": "Inverse accumulation: J⁻¹v without J (Pearlmutter & Siskind).",
    "dgraph.cli": "The command line.",
}


def api_page(package: str) -> str:
    """The Markdown page of one package: a table of every name in its ``__all__``, each
    with a generated page; a subpackage's name that is the very object of a top-level name
    links to that name's page (one object, one page)."""
    module = importlib.import_module(package)
    names = list(module.__all__)
    top = {id(getattr(dgraph, n)): n for n in dgraph.__all__} if package != "dgraph" else {}
    shared = [n for n in names if id(getattr(module, n)) in top]
    own = [n for n in names if n not in shared]
    lines = [f"# `{package}`", "", PACKAGES[package], ""]
    lines += ["```{eval-rst}", f".. currentmodule:: {package}", "", ".. autosummary::"]
    lines += ["   :toctree: generated", "", *(f"   {name}" for name in own), "```", ""]
    if shared:
        lines += [f"Also in `{package}`, the same objects as in the top-level package:", ""]
        lines += [
            f"- `{package}.{n}`: {{py:obj}}`dgraph.{top[id(getattr(module, n))]}`" for n in shared
        ]
        lines.append("")
    return "\n".join(lines)


def write_api_pages() -> None:
    """docs/api/<package>.md for each package (git-ignored: made from ``__all__``), and the
    generated pages of names no longer listed removed."""
    out = DOCS / "api"
    out.mkdir(exist_ok=True)
    listed = set()
    for package in PACKAGES:
        page = out / f"{package}.md"
        text = api_page(package)
        if not page.exists() or page.read_text() != text:  # unchanged: no rebuild
            page.write_text(text)
        listed |= {f"{package}.{line.strip()}.rst" for line in text.splitlines()[8:]}
    for stale in (out / "generated").glob("*.rst"):
        if stale.name not in listed:
            stale.unlink()


write_api_pages()
