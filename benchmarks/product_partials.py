"""CPU seconds of every partial of a product of n symbols (and a coefficient), by
``dgraph.core.graph._elemental_derivative`` against sympy's ``Mul(*others)`` (what it did
before suiteB30), sympy's cache emptied before each; and the growth exponents from 300 to
1,200 factors. The n partials hold n - 1 factors each, so n² is the output's own size.

    PYTHONPATH=. python benchmarks/product_partials.py
"""

from __future__ import annotations

import math
import time

import sympy

from dgraph.core.graph import _elemental_derivative


def _rebuilt(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr:
    return sympy.Mul(*(a for a in expr.args if a != x))


def seconds(partial, n: int) -> float:
    xs = sympy.symbols(f"p0:{n}")
    product = 3 * sympy.Mul(*xs)
    sympy.core.cache.clear_cache()
    start = time.process_time()
    for x in xs:
        partial(product, x)
    return time.process_time() - start


if __name__ == "__main__":
    found = {}
    for n in (150, 300, 600, 1200):
        found[n] = (seconds(_rebuilt, n), seconds(_elemental_derivative, n))
        print(
            f"n = {n}: Mul(*others) {found[n][0]:.3f} s, _elemental_derivative {found[n][1]:.3f} s"
        )
    for k, name in enumerate(("Mul(*others)", "_elemental_derivative")):
        slope = math.log(found[1200][k] / found[300][k]) / math.log(4)
        print(f"{name}: n^{slope:.2f} from 300 to 1,200 factors")
