"""The default codegen choice kept by its graph's content: a graph built again gets the
choice a fresh one makes (the same method, program, candidates and entries) and runs no
method.

    python benchmarks/choice_cache.py [--random 300] [--suite]

For each graph: the choice with no choice kept (``select_jacobian``), then the choice of
the same graph built again (kept: no method may run), compared whole. ``--suite``: also
the bundled traces and every function of benchmarks/codegen.py's ``builders`` (the full
suite and codegen_functions.py); the random programs are ``random_program(seed, 3, 10,
2)``. Prints the counts and the CPU-seconds of the fresh and the kept choices.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dgraph.codegen.selection as selection
from dgraph.errors import DGraphError
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_program


def _seen(chosen: selection.Selection) -> tuple:
    return chosen.method, chosen.program, chosen.candidates, chosen.expression_set.jacobian


def check(build) -> tuple[float, float] | None:
    """CPU-seconds of the fresh and the kept choice of ``build()``; None without code."""
    selection._CHOICES.clear()
    start = time.process_time()
    try:
        fresh = selection.select_jacobian(build())
    except DGraphError:
        return None
    middle = time.process_time()
    runs: list[str] = []
    accumulate = selection.accumulate

    def recording(graph, method="markowitz", **options):
        runs.append(method)
        return accumulate(graph, method, **options)

    selection.accumulate = recording
    try:
        again = build()
        middle = time.process_time()
        kept = selection.select_jacobian(again)
        end = time.process_time()
    finally:
        selection.accumulate = accumulate
    assert not runs, runs
    assert _seen(kept) == _seen(fresh) and kept.expression_set.graph is again
    assert kept.expression_set.verified
    return middle - start, end - middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=300)
    parser.add_argument("--suite", action="store_true")
    args = parser.parse_args()
    selection._CHOICES = OrderedDict()
    graphs = {f"random-{s}": (lambda s=s: random_program(s, 3, 10, 2)) for s in range(args.random)}
    if args.suite:
        from codegen import builders

        names = ["naumann_sin.trace", "spherical_coordinates.trace"]
        graphs |= {n: (lambda n=n: bundled(n)) for n in names} | builders()
    fresh = kept = 0.0
    checked = 0
    for name, build in graphs.items():
        found = check(build)
        if found is None:
            continue
        checked += 1
        fresh += found[0]
        kept += found[1]
        if not name.startswith("random"):
            print(f"{name}: fresh {found[0]:.3f} s, kept {found[1]:.4f} s", flush=True)
    print(
        f"{checked} graphs: kept choices equal fresh ones; CPU-s fresh {fresh:.1f}, kept {kept:.2f}"
    )


if __name__ == "__main__":
    main()
