"""Multiplications of each Hessian method on AlphaGrad's six scalar graphs and dgraph's
real-world sympy graphs, against forward-over-reverse (issue 55).

    python benchmarks/hessian_counts.py

Each graph's Hessian graph H(g) (:func:`dgraph.hessian_graph`; several outputs: the
Lagrangian with one weight parameter per output) is accumulated by forward-over-reverse
(one tangent sweep per column; also with structurally orthogonal column groups), edge
pushing, symmetric pair elimination and Markowitz on H(g); every set is verified against
Bauer's formula, and the AlphaGrad graphs' symmetric sets are evaluated against
``jax.hessian`` of the Lagrangian (weights 1/2 ... 3/2) at the example point. AlphaGrad's
functions are read with ``dgraph.from_jax`` as dgraph reads them (passive and identity
equations folded), not equation by equation. Counts are structural multiplications:
"written" is what the whole elimination spells (both mirrored halves,
``info["mults_written"]``), "lower" what the verified expression set of the lower
triangle spells (its ``mults``), "sym" each mirrored pair of products once (the papers'
count, ``info["mults_symmetric"]``).
Forward-over-reverse is counted three ways: "n sweeps", a tool's n tangent sweeps (one
multiplication per edge of H(g) that leaves no input, per sweep); "colored", one such
sweep per color; "sparse", structurally zero tangents skipped (its verified expression
set: forward elimination on H(g)). The ratios are FoR's counts over a method's (larger:
the method is cheaper); "FoR" alone is the n-sweep count.
Prints one Markdown table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_functions import FUNCTIONS

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.core.paths import path_counts

jax.config.update("jax_enable_x64", True)


def _jax_error(f, args, H, es) -> str:
    """The largest difference from jax.hessian of the weighted outputs at ``args``."""
    m = len(H.parameters)
    lam = np.linspace(0.5, 1.5, m) if m else np.ones(1)

    def lagrangian(v):
        out = f(*v)
        out = out if isinstance(out, tuple) else (out,)
        return sum(w * o for w, o in zip(lam, out, strict=True))

    point = np.array(args, dtype=float)
    want = np.asarray(jax.hessian(lagrangian)(jnp.array(point)))
    got = es.evaluate(point, lam if m else None)
    if es.info.get("triangle") == "lower":  # the set holds i >= j: mirror it
        got = np.tril(got) + np.tril(got, -1).T
    finite = np.isfinite(want)
    if not finite.any():
        return "jax.hessian not finite at the point"
    if not finite.all():
        return f"{np.abs(got[finite] - want[finite]).max():.1e} ({(~finite).sum()} non-finite)"
    return f"{np.abs(got - want).max():.1e}"


def row(name: str, g: dgraph.DGraph, reference=None) -> str:
    t0 = time.perf_counter()
    H = dgraph.hessian_graph(g)
    results = {
        m: dgraph.accumulate(H, m)
        if m == "markowitz"
        else dgraph.accumulate_hessian(g, m)  # builds H(g) again: the same graph
        for m in ("forward-over-reverse", "edge-pushing", "symmetric", "markowitz")
    }
    assert all(es.verified for es in results.values()), name
    fo = results["forward-over-reverse"]
    ep, sy, mk = results["edge-pushing"], results["symmetric"], results["markowitz"]
    nnz = len(path_counts(H))
    check = _jax_error(*reference, H, sy) if reference else "sympy graph"
    cells = [
        name,
        str(len(g.inputs)),
        f"{len(H)}/{H.n_edges}",
        str(nnz),
        str(fo.info["mults_dense"]),
        f"{fo.info['mults_colored']} ({fo.info['colors']})",
        str(fo.mults),
        f"{ep.info['mults_written']}/{ep.mults}/{ep.info['mults_symmetric']}",
        f"{sy.info['mults_written']}/{sy.mults}/{sy.info['mults_symmetric']}",
        str(mk.mults),
        f"{fo.info['mults_dense'] / ep.info['mults_symmetric']:.2f}",
        f"{fo.info['mults_dense'] / sy.mults:.2f}",
        f"{fo.info['mults_dense'] / sy.info['mults_symmetric']:.2f}",
        f"{fo.info['mults_colored'] / sy.info['mults_symmetric']:.2f}",
        f"{fo.mults / sy.info['mults_symmetric']:.2f}",
        check,
        f"{time.perf_counter() - t0:.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    header = [
        "graph",
        "n",
        "H(g) vertices/edges",
        "nnz",
        "FoR n sweeps",
        "FoR colored (colors)",
        "FoR sparse",
        "edge pushing written/lower/sym",
        "symmetric written/lower/sym",
        "Markowitz on H(g)",
        "FoR / EP sym",
        "FoR / symmetric lower",
        "FoR / symmetric sym",
        "FoR colored / symmetric sym",
        "FoR sparse / symmetric sym",
        "max error vs jax.hessian",
        "s",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, (f, args) in FUNCTIONS.items():
        print(row(name, dgraph.from_jax(f, *args, name=name), (f, args)), flush=True)
    for name, build in REAL_WORLD.items():
        print(row(name, build()), flush=True)


if __name__ == "__main__":
    main()
