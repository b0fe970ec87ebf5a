"""How often a lower triangle costs less than a bound that covers every entry, and how
often the count with mirrored products once exceeds the lower triangle as written
(issue 55, the drawn counterexample of tests/test_hessian_methods.py).

    python benchmarks/hessian_bound_scope.py [SEEDS]

On random programs (:func:`dgraph.frontends.random_graphs.random_program`, seeds 0 to
SEEDS - 1, 3 inputs, 6 statements, 2 outputs), ``compare_hessian`` with the Hessian
methods, ``vertex-optimal`` and ``best``: per bound, the programs where it exceeds edge
pushing's or symmetric elimination's lower triangle (structural counts against the
structural bounds, effective against effective), and where ``mults_symmetric`` exceeds
the lower triangle as written. The searches' bounds are read from ``to_dict()``'s
``search_`` fields (the unprefixed fields before the fix). Prints one Markdown table.
"""

from __future__ import annotations

import resource
import sys

import dgraph
from dgraph.core.expressions import price
from dgraph.frontends.random_graphs import random_program
from dgraph.methods.hessian import COMPARED_HESSIAN

BOUNDS = {  # field of to_dict(): (structural?, what it is)
    "lower_bound": (True, "Hessian bound (claimed for every method)"),
    "search_lower_bound": (True, "vertex-elimination search bound (every entry)"),
    "search_elimination_lower_bound": (False, "best's junction bound (every entry)"),
    "search_effective_lower_bound": (False, "best's rank bound (every entry)"),
}


def main(seeds: int) -> None:
    above = {(b, m): 0 for b in BOUNDS for m in ("edge-pushing", "symmetric")}
    symmetric_above = {m: 0 for m in ("edge-pushing", "symmetric")}
    methods = [*COMPARED_HESSIAN, "vertex-optimal", "best"]
    start = resource.getrusage(resource.RUSAGE_SELF)
    for seed in range(seeds):
        g = random_program(seed, n_inputs=3, n_statements=6, n_outputs=2)
        comparison = dgraph.compare_hessian(g, methods, {out: 1 for out in g.outputs})
        report = comparison.to_dict()
        for method in symmetric_above:
            es = comparison.results[method]
            assert es.verified
            effective, structural = price(es)
            symmetric_above[method] += es.info["mults_symmetric"] > es.mults
            for field, (is_structural, _) in BOUNDS.items():
                bound = report.get(field, report.get(field.removeprefix("search_")))
                if isinstance(bound, int):
                    above[field, method] += bound > (structural if is_structural else effective)
    end = resource.getrusage(resource.RUSAGE_SELF)
    cpu = end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime
    print(f"{seeds} programs, {cpu:.1f} CPU s\n")
    print("| quantity | above edge pushing's lower triangle | above symmetric's |")
    print("|---|---|---|")
    for field, (_, what) in BOUNDS.items():
        print(f"| {what} | {above[field, 'edge-pushing']} | {above[field, 'symmetric']} |")
    print(
        f"| mults_symmetric (not a bound) | {symmetric_above['edge-pushing']} |"
        f" {symmetric_above['symmetric']} |"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
