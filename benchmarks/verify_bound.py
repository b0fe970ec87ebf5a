"""The random-point check's coefficient bound on long chains, through the table and
through the general folds: bits of the bound, primes, outcome and CPU seconds.

The chain ``v_k = v*(1 - 0.5*v**2) + 0.1*cos(v)`` (benchmarks/cse_scale.py): each step's
reference adds three terms begun (forward) or ended (reverse) by different edges. No
method's set reaches the general folds (the table reads them all); ``--general`` adds
one unused reference whose terms have different shapes, which the table cannot give one
shape, so the set is checked by :func:`dgraph.core.verify.shapes_and_bound`.

    python benchmarks/verify_bound.py --steps 1000 2700 --methods forward reverse --general
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import sympy

from dgraph.core.exprtable import expression_table
from dgraph.core.verify import primes_for, shapes_and_bound, table_shapes_and_bound, verify
from dgraph.frontends import from_trace
from dgraph.methods import accumulate


def chain(n: int) -> str:
    """The trace of n steps of ``v = v*(1 - 0.5*v**2) + 0.1*cos(v)``."""
    lines = ["inputs: x", "outputs: y"]
    v = "x"
    for k in range(1, n + 1):
        w = "y" if k == n else f"v{k}"
        lines.append(f"{w} = {v}*(1 - 0.5*{v}**2) + 0.1*cos({v})")
        v = w
    return "\n".join(lines) + "\n"


def with_mixed_reference(es):
    """``es`` and an unused reference adding two edges of different shapes."""
    a, b = list(es.graph.edge_symbols)[:2]
    junk = sympy.Symbol("unused", commutative=False)
    return dataclasses.replace(es, references={**es.references, junk: a + b})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1000])
    parser.add_argument("--methods", nargs="+", default=["forward", "reverse"])
    parser.add_argument("--general", action="store_true", help="route through the general folds")
    args = parser.parse_args()
    for n in args.steps:
        graph = from_trace(chain(n))
        for method in args.methods:
            es = accumulate(graph, method, verify=False)
            if args.general:
                es = with_mixed_reference(es)
            start = time.process_time()
            table = table_shapes_and_bound(es, expression_table(es))
            bound = table if table is not None else shapes_and_bound(es)
            fold = time.process_time() - start
            start = time.process_time()
            check = verify(es, "random-point")
            seconds = time.process_time() - start
            primes = len(primes_for(bound)) if bound < 2**4096 else "-"
            print(
                f"{n:6d} {method:8s} {'general' if table is None else 'table':7s}"
                f" bound 2^{bound.bit_length() - 1:<5d} primes {primes!s:>3s}"
                f" fold {fold:6.2f} s verify {seconds:6.2f} CPU-s  {check.status}: {check.detail}"
            )


if __name__ == "__main__":
    main()
