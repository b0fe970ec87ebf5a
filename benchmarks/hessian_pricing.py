"""CPU seconds of make_function's pricing alone (``_cheapest``) for a Hessian of
:mod:`hessian_functions`: the gradient graph read once, then the candidates priced inside
one ``blocks.scoped`` call, as ``make_function`` prices them (issue 55's build target).

    python benchmarks/hessian_pricing.py PROBLEM SIZE

Prints one JSON line: pricing CPU-s (:func:`time.process_time`), the method kept and its
multiplications. Quicker to repeat than ``hessian_phases.py`` (the whole build) when only
pricing changes.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

if "hessian_functions" not in sys.modules:
    sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from hessian_functions import PROBLEMS, point, shape, size_for, weights

    from dgraph import blocks
    from dgraph.codegen.tensor.function import _cheapest
    from dgraph.frontends.jax_hessian import gradient_graph

    name, target = sys.argv[1], int(sys.argv[2])
    side = size_for(name, target)
    f, s = PROBLEMS[name], shape(name, side)
    x, w = point(name, side).ravel(), weights(name, side)
    g = gradient_graph(lambda u: f(jnp.reshape(u, s)), x, weights=w)
    with blocks.scoped():
        t0 = time.process_time()
        es = _cheapest(g)
        spent = time.process_time() - t0
    print(json.dumps({"problem": name, "pricing": round(spent, 3), "method": es.method,
                      "mults": es.mults}))  # fmt: skip


if __name__ == "__main__":
    main()
