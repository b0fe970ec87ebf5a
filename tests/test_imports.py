"""dgraph's modules import each other without a circle, and no module takes another's
private name: every import statement counts, wherever it stands (inside a function, under
``TYPE_CHECKING``), since each ties the two modules together. See docs/architecture.md."""

from __future__ import annotations

import ast

import networkx as nx
import pytest

from tests.source_nodes import nodes
from tests.test_layers import package_sources

Sources = dict[str, tuple[str, bool]]


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module a ``from`` import names, relative levels resolved."""
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def module_edges(sources: Sources) -> list[tuple[str, str, list[str]]]:
    """Each import between two of ``sources``' modules: importer, imported, names taken.

    ``from p import x`` names the module ``p.x`` where that is a module, else ``p``."""
    edges = []
    for module, (source, is_package) in sources.items():
        for node in nodes(source)[0]:
            if isinstance(node, ast.Import):
                edges += [(module, a.name, []) for a in node.names if a.name in sources]
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_package, node)
                for alias in node.names:
                    if f"{target}.{alias.name}" in sources:
                        edges.append((module, f"{target}.{alias.name}", []))
                    elif target in sources:
                        edges.append((module, target, [alias.name]))
    return [(a, b, names) for a, b, names in edges if a != b]


def module_graph(sources: Sources) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(sources)
    graph.add_edges_from((a, b) for a, b, _ in module_edges(sources))
    return graph


def circles(sources: Sources) -> list[list[str]]:
    """The strongly connected sets of two or more modules, each sorted."""
    found = nx.strongly_connected_components(module_graph(sources))
    return sorted(sorted(c) for c in found if len(c) > 1)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(sources: Sources) -> list[str]:
    """``from m import _x`` and ``m._x`` where ``m`` is another dgraph module."""
    bad = [
        f"{a} takes {b}.{n}" for a, b, names in module_edges(sources) for n in names if _private(n)
    ]
    for module, (source, is_package) in sources.items():
        imports, attributes = nodes(source)
        aliases: dict[str, str] = {}
        for node in imports:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in sources and a.asname:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_package, node)
                for a in node.names:
                    if f"{target}.{a.name}" in sources:
                        aliases[a.asname or a.name] = f"{target}.{a.name}"
        for node in attributes:
            if (
                isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and aliases[node.value.id] != module
                and _private(node.attr)
            ):
                bad.append(f"{module} takes {aliases[node.value.id]}.{node.attr}")
    return sorted(set(bad))


def test_no_circle_of_imports():
    assert circles(package_sources()) == []


def test_no_private_name_is_imported_across_modules():
    assert private_imports(package_sources()) == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("dgraph.core.graph", "def f():\n    from .expressions import ExpressionSet\n"),
        ("dgraph.core.costs", "from .expressions import ExpressionSet\n"),
        (
            "dgraph.blocks",
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from .arrays import ArrayOp\n",
        ),
        ("dgraph.core.paths", "from dgraph.core import cuts\n"),
        ("dgraph.frontends.array_tracer", "from . import functions\n"),
    ],
)
def test_a_circle_is_caught(module, source):
    """The checker itself: one added import closes a new circle through ``module``, even
    inside a function or under ``TYPE_CHECKING``."""
    sources = package_sources()
    before = circles(sources)
    sources[module] = (sources[module][0] + "\n" + source, sources[module][1])
    new = [c for c in circles(sources) if c not in before]
    assert len(new) == 1 and module in new[0]


@pytest.mark.parametrize(
    "source",
    [
        "from .graph import _private_helper\n",
        "from dgraph.core import graph\nx = graph._private_helper\n",
        "import dgraph.core.graph as g\ndef f():\n    return g._private_helper\n",
    ],
)
def test_a_private_import_is_caught(source):
    sources = package_sources()
    before = set(private_imports(sources))
    sources["dgraph.core.extra"] = (source, False)
    new = set(private_imports(sources)) - before
    assert new == {"dgraph.core.extra takes dgraph.core.graph._private_helper"}


def test_a_module_may_use_its_own_private_names():
    sources = {"dgraph.x": ("_a = 1\ndef f():\n    return _a\n", False)}
    assert private_imports(sources) == []
