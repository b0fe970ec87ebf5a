"""Rendering time on large graphs: ``python benchmarks/render.py`` prints a Markdown table.

Each row draws one graph in one view and writes SVG (graphviz ``dot`` included); the
graph view of a 2,000-edge graph must take seconds, not minutes.
"""

from __future__ import annotations

import sys
import time

from dgraph.bench.suite import spherical_harmonics
from dgraph.frontends.random_graphs import random_dag
from dgraph.render.drawing import draw

CASES = [
    ("random-dag 300", lambda: random_dag(0, 10, 300, 10, 0.01), ("graph", "levels", "line")),
    ("spherical-harmonics-14", lambda: spherical_harmonics(14), ("graph", "levels", "line")),
    ("random-dag 700", lambda: random_dag(0, 20, 700, 20, 0.004), ("graph", "levels", "line")),
]


def main(views: tuple[str, ...] | None = None) -> None:
    print("| graph | vertices | edges | view | drawn edges | build s | svg s | svg kB |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for name, build, case_views in CASES:
        graph = build()
        for view in views or case_views:
            t0 = time.perf_counter()
            drawing = draw(graph, view)
            drawing.source  # noqa: B018 - the scene and DOT text, timed apart from dot
            t1 = time.perf_counter()
            svg = drawing.svg()
            t2 = time.perf_counter()
            cells = [name, len(graph), graph.n_edges, view, len(drawing.scene.edges)]
            cells += [f"{t1 - t0:.2f}", f"{t2 - t1:.2f}", len(svg) // 1024]
            print("| " + " | ".join(map(str, cells)) + " |", flush=True)


if __name__ == "__main__":
    main(tuple(sys.argv[1:]) or None)
