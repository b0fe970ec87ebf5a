"""The package's layers hold: blocks < core < method families < search < frontends <
methods < codegen < render < bench < cli, with no import running back up, not even inside
a function, and no cycle between the method families. The readers (frontends) stand on
the model alone, and nothing below the methods reads a program. See
docs/architecture.md."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx
import pytest

from tests.source_nodes import nodes

PACKAGE = Path(__file__).resolve().parent.parent / "dgraph"

FAMILIES = ("elimination", "zhou", "dominance", "faces", "chain", "inverse", "second_order")
MODEL = ("errors", "version", "data", "blocks", "core")  # what a reader may build on
LAYERS: dict[str, int] = {
    "errors": 0,
    "version": 0,
    "data": 0,
    "blocks": 1,  # the block algebra: Jacobian blocks, array operations; no graph
    "core": 2,  # the graph model, expression sets, verification
    **dict.fromkeys(FAMILIES, 3),
    "search": 4,
    "frontends": 5,  # the readers: above every algorithm, below what runs a user's program
    "methods": 6,
    "codegen": 7,
    "render": 8,
    "bench": 9,
    "cli": 10,
    "__main__": 11,
    "": 11,  # dgraph/__init__.py: the public face imports from every layer
}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache  # each test re-checks the whole package: every source parsed once
def imports(module: str, source: str, is_package: bool = False) -> tuple[str, ...]:
    """Every ``dgraph`` module ``source`` imports, wherever the statement stands."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in nodes(source)[0]:
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
    return tuple(name for name in found if name == "dgraph" or name.startswith("dgraph."))


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
    return dict(_package_sources())


@functools.cache
def _package_sources() -> dict[str, tuple[str, bool]]:
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
        ("dgraph.blocks.arrays", "from ..core.graph import DGraph\n"),
        ("dgraph.blocks", "def f():\n    from dgraph.core import expressions\n"),
        ("dgraph.core.graph", "from ..frontends import from_json\n"),
        ("dgraph.elimination.kernel", "def f():\n    from dgraph.frontends import from_trace\n"),
        ("dgraph.search.best_blocks", "from ..frontends.jaxpr_equations import equation_graph\n"),
        ("dgraph.frontends.trace", "from ..methods import accumulate\n"),
    ],
)
def test_a_wrong_import_is_caught(module, source):
    """The checker itself: a deliberately wrong import, even one inside a function."""
    sources = {**package_sources(), module: (source, False)}
    assert len(violations(sources)) == 1


def reader_imports(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """Imports of the readers that reach past the model, as ``importer -> imported``."""
    return sorted(
        {
            f"{m} -> {t}"
            for m, (source, pkg) in sources.items()
            if top(m) == "frontends"
            for t in imports(m, source, pkg)
            if top(t) not in (*MODEL, "frontends")
        }
    )


def test_the_readers_stand_on_the_model_alone():
    assert reader_imports(package_sources()) == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("dgraph.frontends.trace", "from ..search.best import best\n"),
        ("dgraph.frontends.jaxpr", "def f():\n    from dgraph.elimination import vertex\n"),
    ],
)
def test_a_reader_reaching_past_the_model_is_caught(module, source):
    sources = {**package_sources(), module: (source, False)}
    assert len(reader_imports(sources)) == 1


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
