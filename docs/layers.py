"""Draw dgraph's layers and the imports between its packages (docs/figures/layers.svg):
``python docs/layers.py`` writes the DOT text; ``dot -Tsvg`` lays it out. An arrow is an
import that is not implied by others (the transitive reduction of the package graph)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import networkx as nx  # noqa: E402

from tests.test_layers import LAYERS, imports, package_sources, top  # noqa: E402

NAMES = {
    1: "block algebra",
    2: "core",
    3: "method families",
    4: "search",
    5: "readers",
    6: "methods",
    7: "codegen",
    8: "render",
    9: "bench",
    10: "command line",
}


def dot() -> str:
    units = {u for u in LAYERS if u and u not in ("__main__", "errors", "version", "data")}
    edges = set()
    for module, (source, is_package) in package_sources().items():
        for target in imports(module, source, is_package):
            a, b = top(module), top(target)
            if a != b and a in units and b in units:
                edges.add((a, b))
    graph = nx.transitive_reduction(nx.DiGraph(sorted(edges)))
    lines = [
        "digraph layers {",
        '  rankdir=TB; newrank=true; node [shape=box, style="rounded,filled",'
        ' fillcolor="#f4f4f4", fontname="Helvetica"]; edge [color="#777777", arrowsize=0.6];',
    ]
    for level, name in NAMES.items():
        members = sorted(u for u in units if LAYERS[u] == level)
        lines.append(
            f'  subgraph cluster_{level} {{ label="{name}"; labeljust=l; fontname="Helvetica";'
            f' fontsize=10; color="#bbbbbb"; rank=same; {" ".join(members)} }}'
        )
    lines += [f"  {a} -> {b};" for a, b in sorted(graph.edges)]
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(dot(), end="")
