"""How the path-free face check scales with the number of input-output paths.

Run: python benchmarks/faces_scale.py [MAX_DIAMONDS]  (default 20; about half a minute).
Checks forward, reverse and Markowitz results of chains of n diamonds (2**n paths, 4n
edges) and of random layered graphs with ``check_faces``, prints a Markdown table of
seconds per method and the growth exponent of the time in the number of paths (the
least-squares slope of log seconds over log paths on the diamond chains: near 0 means
the cost does not follow the paths; the path-tracking check it replaces is at least 1).
"""

from __future__ import annotations

import math
import sys
import time

from dgraph.core.graph import DGraph
from dgraph.core.paths import count_paths
from dgraph.faces.realize import check_faces
from dgraph.frontends.random_graphs import diamond_chain, random_layered
from dgraph.methods import accumulate

METHODS = ("forward", "reverse", "markowitz")


def diamonds(n: int) -> DGraph:
    """A chain of ``n`` diamonds: 2**n input-output paths over 4n edges."""
    return diamond_chain(n)


def timed(g: DGraph) -> dict[str, float]:
    out = {}
    for method in METHODS:
        es = accumulate(g, method)
        t0 = time.perf_counter()
        check = check_faces(es)
        out[method] = time.perf_counter() - t0
        assert check.realized, (g.name, method)
    return out


def slope(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main(top: int) -> None:
    graphs = [diamonds(n) for n in range(4, top + 1, 4)]
    graphs += [random_layered(1, layers, 4, 3) for layers in (6, 8, 10, 12)]
    print("| graph | paths | edges | " + " | ".join(f"{m} (s)" for m in METHODS) + " |")
    print("|---|---:|---:|" + "---:|" * len(METHODS))
    points = []
    for g in graphs:
        paths, seconds = count_paths(g), timed(g)
        cells = " | ".join(f"{seconds[m]:.3f}" for m in METHODS)
        print(f"| {g.name} | {paths} | {g.n_edges} | {cells} |")
        if g.name.startswith("diamonds"):
            points.append((math.log(paths), math.log(sum(seconds.values()))))
    exponent = slope([p for p, _ in points], [s for _, s in points])
    print(f"\ngrowth exponent on diamond chains (seconds ~ paths^k): k = {exponent:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
