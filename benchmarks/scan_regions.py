"""Loops as regions (issue 54, item 1): a time integrator as ``lax.scan``.

A 1-D reaction-diffusion step on a ring of N cells, ``u + dt·(D·Δu + a·u - b·u³)``, run
for T steps by ``lax.scan``; read by ``dgraph.from_jax(..., level="array")`` the loop is
one region vertex whose body is a graph of its own. For each T this prints the graph's
vertices and edges (the same for every T), the build time, the region's block structure
(the pattern of the chain product of T body Jacobians), the seconds of dgraph's Jacobian
(a tangent sweep through the T steps over the body's blocks) and of ``jax.jacfwd`` (jit),
and their largest difference relative to the largest entry.

    python benchmarks/scan_regions.py                 # N = 1000, T = 10 and 10000
    python benchmarks/scan_regions.py --cells 200 --steps 10 500
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from dgraph.core.block_values import dense_jacobian
from dgraph.core.regions import regions_of
from dgraph.frontends import from_jax
from dgraph.methods import accumulate

jax.config.update("jax_enable_x64", True)


def reaction_diffusion(steps: int, dt: float = 0.1):
    def f(u, d, a, b):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + dt * (d * lap + a * u - b * u**3), None

        return jax.lax.scan(step, u, None, length=steps)[0]

    return f


def run(cells: int, steps: int) -> dict:
    rng = np.random.default_rng(0)
    u = rng.uniform(0.2, 0.8, cells)
    params = (np.array(0.2), np.array(0.3), np.array(0.5))
    f = reaction_diffusion(steps)
    start = time.perf_counter()
    g = from_jax(f, u, *params, level="array")
    build = time.perf_counter() - start
    ((_, region),) = regions_of(g)
    blocks = {
        f"{x}->{y}": (type(g.block(x, y)).__name__, g.block(x, y).nnz) for x, y in g.edges()
    }
    start = time.perf_counter()
    es = accumulate(g, "forward", verify=False)
    J = dense_jacobian(es, np.concatenate([u, [float(p) for p in params]]))
    ours = time.perf_counter() - start
    jac = jax.jit(jax.jacfwd(f, argnums=(0, 1, 2, 3)))
    start = time.perf_counter()
    parts = jax.block_until_ready(jac(u, *params))
    theirs = time.perf_counter() - start
    ref = np.hstack([np.asarray(p).reshape(cells, -1) for p in parts])
    scale = max(1.0, float(np.abs(ref).max()))
    return {
        "cells": cells,
        "steps": steps,
        "vertices": len(g),
        "edges": g.n_edges,
        "body vertices": len(region.body.graph),
        "build s": round(build, 3),
        "blocks": blocks,
        "dgraph jacobian s": round(ours, 2),
        "jax.jacfwd s (jit, with compile)": round(theirs, 2),
        "largest difference / largest entry": float(np.abs(J - ref).max() / scale),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 10_000])
    args = parser.parse_args()
    results = [run(args.cells, t) for t in args.steps]
    for r in results:
        print(r, flush=True)
    same = len({(r["vertices"], r["edges"]) for r in results}) == 1
    print(f"same vertices and edges for every T: {same}")


if __name__ == "__main__":
    main()
