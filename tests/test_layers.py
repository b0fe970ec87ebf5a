"""The package's layers hold: core < method families < search < methods < codegen <
render < bench < cli, with no import running back up, not even inside a function, and
no cycle between the method families. See docs/architecture.md."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "dgraph"

FAMILIES = ("elimination", "zhou", "dominance", "faces", "chain", "inverse")
LAYERS: dict[str, int] = {
    "errors": 0,
    "version": 0,
    "data": 0,
    "core": 0,
    **dict.fromkeys(FAMILIES, 1),
    "search": 2,
    "methods": 3,
    "codegen": 4,
    "render": 5,
    "bench": 6,
    "cli": 7,
    "__main__": 8,
    "": 8,  # dgraph/__init__.py: the public face imports from every layer
}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(module: str, source: str, is_package: bool = False) -> list[str]:
    """Every ``dgraph`` module ``source`` imports, wherever the statement stands."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "dgraph":  # ``from dgraph import x``: x is a subpackage or a name
                found += [f"dgraph.{a.name}" for a in node.names]
            else:
                found.append(target)
    return [name for name in found if name == "dgraph" or name.startswith("dgraph.")]


def top(module: str) -> str:
    """The layer unit of a module: ``dgraph.zhou.layers`` -> ``zhou``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str) -> int:
    return LAYERS.get(top(module), LAYERS[""])  # not a subpackage: a name from dgraph/__init__


def violations(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """Imports that run up the layers, as ``importer -> imported`` lines."""
    bad = []
    for module, (source, is_package) in sources.items():
        for target in imports(module, source, is_package):
            if top(module) != top(target) and layer(target) > layer(module):
                bad.append(f"{module} -> {target}")
    return sorted(set(bad))


def family_graph(sources: dict[str, tuple[str, bool]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(FAMILIES)
    for module, (source, is_package) in sources.items():
        for target in imports(module, source, is_package):
            a, b = top(module), top(target)
            if a != b and a in FAMILIES and b in FAMILIES:
                graph.add_edge(a, b)
    return graph


def package_sources() -> dict[str, tuple[str, bool]]:
    return {
        _module(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_package_has_a_layer():
    units = {top(m) for m in package_sources()}
    assert units <= set(LAYERS), units - set(LAYERS)


def test_no_import_runs_up_the_layers():
    assert violations(package_sources()) == []


def test_method_families_do_not_import_each_other_in_a_cycle():
    graph = family_graph(package_sources())
    assert nx.is_directed_acyclic_graph(graph), nx.find_cycle(graph)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("dgraph.core.graph", "def f():\n    from ..render.drawing import draw\n"),
        ("dgraph.core.expressions", "import dgraph.cli\n"),
        ("dgraph.zhou.factorize", "from dgraph.methods import accumulate\n"),
        ("dgraph.render.views", "from ..cli.args import load_graph\n"),
        ("dgraph.methods.registry", "from .. import codegen\n"),
        ("dgraph.search.best", "from dgraph import accumulate\n"),
    ],
)
def test_a_wrong_import_is_caught(module, source):
    """The checker itself: a deliberately wrong import, even one inside a function."""
    sources = {**package_sources(), module: (source, False)}
    assert len(violations(sources)) == 1


def test_a_family_cycle_is_caught():
    sources = {
        **package_sources(),
        "dgraph.elimination.extra": ("from ..faces import realize\n", False),
        "dgraph.faces.extra": ("from ..elimination import vertex\n", False),
    }
    assert not nx.is_directed_acyclic_graph(family_graph(sources))


def test_the_library_never_imports_the_command_line():
    library = {m: s for m, s in package_sources().items() if top(m) not in ("cli", "__main__")}
    users = [
        f"{m} -> {t}"
        for m, (source, pkg) in library.items()
        for t in imports(m, source, pkg)
        if top(t) == "cli" and m != "dgraph"
    ]
    assert users == []
