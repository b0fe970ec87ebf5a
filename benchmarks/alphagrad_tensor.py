"""AlphaGrad's four tensor tasks in Graphax's cost model, and dgraph's ``best`` there.

    python benchmarks/alphagrad_tensor.py [--budget 60] [--seed 0] [NAME ...]

For each task of benchmarks/alphagrad_tensor_functions.py: the graph with every jaxpr
equation a vertex (:func:`dgraph.frontends.jaxpr_equations.equation_graph`), AlphaGrad's
forward, reverse and Markowitz in its model (:mod:`dgraph.elimination.graphax_model`), the
published learned count, and ``best(..., price="graphax")`` with a work budget
(counted restarts and annealing moves: the same result on every machine). Each best result
is built on the graph's live part and verified; its ``mults`` is dgraph's count over
structured blocks for the same order, shown beside the model's.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_tensor_functions import MEASURED, PUBLISHED, TASKS

from dgraph.elimination.graphax_model import graphax_cost, graphax_orders
from dgraph.frontends.jaxpr_equations import equation_graph
from dgraph.search.best import best


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(TASKS))
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)  # verification's random point (arccos)
    print(
        "| task | vertices | Graphax model: fwd / rev / Markowitz (published) | best of three"
        " | learned (AlphaGrad) | dgraph best, Graphax model | same order, dgraph blocks"
        " | found by | verified | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.names:
        f, xs = TASKS[name]
        graph = equation_graph(jax.make_jaxpr(f)(*xs), name)
        three = [graphax_cost(graph, order) for order in graphax_orders(graph).values()]
        assert tuple(three) == MEASURED[name], (name, three)
        start = time.perf_counter()
        es = best(graph, args.budget, seed=args.seed, price="graphax")
        seconds = time.perf_counter() - start
        published = " / ".join(map(str, PUBLISHED[name][:3]))
        print(
            f"| {name} | {len(graph.intermediates) + len(graph.outputs)}"
            f" | {' / '.join(map(str, three))} ({published}) | {min(three)}"
            f" | {PUBLISHED[name][3]} | {es.info['graphax_mults']} | {es.mults}"
            f" | {es.info['found_by']} | {bool(es.verified)} | {seconds:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
