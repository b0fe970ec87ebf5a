"""``best --objective structural`` and ``--objective effective`` against AlphaGrad's learned
elimination orders (Lohoff & Neftci, NeurIPS 2024) on the jaxpr graphs of its benchmark
functions (benchmarks/alphagrad_functions.py, read with ``every_equation=True``: every
equation a vertex, as AlphaGrad counts) and on dgraph's own sympy graphs of the same
functions where dgraph.bench.realworld has them.

    python benchmarks/best_alphagrad.py [BUDGET] [NAME ...]   (default budget 60 s)

NAME picks graphs (RoeFlux_1d RobotArm_6DOF HumanHeartDipole PropaneCombustion
BlackScholes_Jacobian g); none: all six.

For each graph: its size, the jacfwd check of its Jacobian (jaxpr graphs), forward,
reverse and Markowitz as structural (effective) multiplications, AlphaGrad's published
best-of-three and learned-order counts, then ``best`` in each objective: its count in that
objective (the other in brackets), seconds, and its lower bound in that objective or
"optimal" where it is proven optimal (among which family). Prints one Markdown table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_functions import FUNCTIONS, PUBLISHED
from jaxpr_graphs import flattened

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.search.best import best

SYMPY = {  # dgraph's sympy graph of the same function, where there is one
    "RoeFlux_1d": "roe-flux",
    "RobotArm_6DOF": "robot-arm",
    "HumanHeartDipole": "heart-dipole",
    "BlackScholes_Jacobian": "black-scholes",  # the price itself, not its gradient
}


def jacfwd_error(graph, f, args) -> float:
    """The largest relative difference between dgraph's Jacobian and ``jax.jacfwd``."""
    es = dgraph.accumulate(graph, "markowitz")
    jac = jax.jacfwd(flattened(f, args))
    point = np.array([float(a) for a in args])
    expected = np.asarray(jac(jnp.asarray(point)))
    got = np.asarray(es.evaluate(point), dtype=float)
    return float(np.abs(got - expected).max() / max(1.0, np.abs(expected).max()))


def _best_cell(graph, budget: float, objective: str) -> str:
    started = time.perf_counter()
    es = best(graph, budget=budget, objective=objective)
    seconds = time.perf_counter() - started
    assert es.verified
    mine, other = (es.mults, es.mults_effective)[:: 1 if objective == "structural" else -1]
    claim = (
        f"optimal ({es.info['optimal_among']})"
        if es.info["proven_optimal"]
        else f"≥ {es.info['objective_lower_bound']}"
    )
    print(f"  {objective}: {mine} ({other}) in {seconds:.1f} s", file=sys.stderr, flush=True)
    return f"**{mine}** ({other}) | {seconds:.1f} | {claim}"


def _row(label: str, graph, check: str, published: tuple[int, int] | None, budget: float) -> str:
    baselines = [dgraph.accumulate(graph, m) for m in ("forward", "reverse", "markowitz")]
    cells = [f"{es.mults} ({es.mults_effective})" for es in baselines]
    ours = min(es.mults for es in baselines)
    theirs = f"{published[0]} → {published[1]}" if published else "—"
    return (
        f"| {label} | {len(graph.intermediates)}, {graph.n_edges} | {check} | "
        + " | ".join(cells)
        + f" | {ours} | {theirs} | "
        + _best_cell(graph, budget, "structural")
        + " | "
        + _best_cell(graph, budget, "effective")
        + " |"
    )


def main(budget: float, names: list[str]) -> None:
    jax.config.update("jax_enable_x64", True)
    lines = [
        "| graph | intermediates, edges | jacfwd check | forward | reverse | markowitz"
        " | best of three | AlphaGrad: best of three → learned | best structural (effective)"
        " | s | bound | best effective (structural) | s | bound |",
        "|" + "---|" * 15,
    ]
    for name in names or list(FUNCTIONS):
        print(f"{name} ...", file=sys.stderr, flush=True)
        f, args = FUNCTIONS[name]
        graph = dgraph.from_jax(f, *args, name=name, every_equation=True)
        check = f"{jacfwd_error(graph, f, args):.0e}"
        lines.append(_row(f"{name} (jaxpr)", graph, check, PUBLISHED[name], budget))
        if name in SYMPY:
            print(f"{SYMPY[name]} (sympy) ...", file=sys.stderr, flush=True)
            lines.append(
                _row(f"{SYMPY[name]} (sympy)", REAL_WORLD[SYMPY[name]](), "—", None, budget)
            )
    print("\n".join(lines))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(float(arguments[0]) if arguments else 60.0, arguments[1:])
