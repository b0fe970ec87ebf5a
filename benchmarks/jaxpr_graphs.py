"""The real-world functions written in JAX (benchmarks/jax_functions.py) read through
``from_jax``, beside the same functions built from sympy (dgraph.bench.realworld) where
it has them (not the propane combustion).

    python benchmarks/jaxpr_graphs.py

For each function: the jaxpr graph's size, its Jacobian by Markowitz checked against
``jax.jacfwd`` at five random points, and forward, reverse and Markowitz multiplications
(structural, effective in brackets) on the jaxpr graph and on the sympy-built graph.
Prints one Markdown table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jax_functions import FUNCTIONS

import dgraph
from dgraph.bench.realworld import REAL_WORLD

RANGES = {"T": (800.0, 2500.0)}  # kelvin; else (0.5, 1.5)


def flattened(f, args):
    """``f`` as a function of one flat vector returning one flat vector."""
    sizes = [np.size(a) for a in args]
    shapes = [np.shape(a) for a in args]

    def flat(z):
        parts, k = [], 0
        for n, s in zip(sizes, shapes, strict=True):
            parts.append(z[k : k + n].reshape(s))
            k += n
        return jnp.concatenate([jnp.ravel(o) for o in jax.tree_util.tree_leaves(f(*parts))])

    return flat


def counts(graph) -> list[str]:
    cells = []
    for method in ("forward", "reverse", "markowitz"):
        es = dgraph.accumulate(graph, method)
        cells.append(f"{es.mults} ({es.mults_effective})")
    return cells


def main() -> None:
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    lines = [
        "| function | jaxpr graph: vertices, edges | jacfwd check | forward | reverse | markowitz"
        " | sympy graph: vertices, edges | forward | reverse | markowitz |",
        "|" + "---|" * 10,
    ]
    for name, (f, args) in FUNCTIONS.items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        g = dgraph.from_jax(f, *args, name=name)
        es = dgraph.accumulate(g, "markowitz")
        jac = jax.jacfwd(flattened(f, args))
        worst = 0.0
        for _ in range(5):
            point = np.array([rng.uniform(*RANGES.get(x, (0.5, 1.5))) for x in g.inputs])
            expected = np.asarray(jac(jnp.asarray(point)))
            got = np.asarray(es.evaluate(point), dtype=float)
            worst = max(
                worst, float(np.abs(got - expected).max() / max(1.0, np.abs(expected).max()))
            )
        if worst > 1e-10:
            raise AssertionError(f"{name}: dgraph and jax.jacfwd differ by {worst:.1e}")
        if name in REAL_WORLD:
            s = REAL_WORLD[name]()
            sympy_cells = f"{len(s)}, {s.n_edges} | " + " | ".join(counts(s))
        else:  # no sympy graph of it in dgraph.bench.realworld
            sympy_cells = "— | — | — | —"
        lines.append(
            f"| {name} | {len(g)}, {g.n_edges} | {worst:.0e} | "
            + " | ".join(counts(g))
            + f" | {sympy_cells} |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
