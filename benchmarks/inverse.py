"""Inverse accumulation against forming J and solving densely, and lumping orders against
the exact search.

Run: python benchmarks/inverse.py  (prints two Markdown tables).

Table 1, cost versus n on Gauss–Seidel relaxation rings (``relaxation_program``, 3 sweeps;
"+temps" puts the sine in a temporary, so every update is a lump of two vertices). Both
routes start from the same vertex values and local partials at one point.

- inverse: per product, Σ l·k multiplications (one sweep); once per point, forming and
  inverting the blocks (setup).
- dense: J by a tangent sweep in vector mode (n columns: n·Σ l·k), LU of J ((n³ − n)/3)
  and two triangular solves (n²).
- milliseconds, best of 5 on one core: the values and local partials at the point (both
  routes need them; lambdified once per graph); from them, inverse = forming and
  inverting the blocks + one sweep (the order and its lumps depend on the graph only and
  are cached with it), dense = J by forward accumulation over the graph's edges with
  n-vectors + ``numpy.linalg.solve``; and one more product at the same point: one
  inverse sweep against a solve with J (LU each time). Both routes are Python loops over
  vertices or steps with NumPy arithmetic; the LU is compiled LAPACK.
- error: max |inverse − dense| / max |dense|.

Table 2: random programs with temporaries (``program_with_temporaries``), the orders
greedy (nearest next cut), min-live (fewest live values after each step) and the graph's
evaluation order against the exact search over downsets: in how many programs each
reaches the optimal largest block l, and the optimal (l, Σ l·k).
"""

from __future__ import annotations

import os

# One core, as documented: a multithreaded BLAS on a shared machine times LU erratically.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

import dgraph  # noqa: E402
from dgraph.inverse import exact_order, greedy_order, lump_cost, lumps, reverse_inverse  # noqa: E402
from dgraph.inverse.lumps import min_live_order  # noqa: E402
from dgraph.inverse.programs import program_with_temporaries, relaxation_program  # noqa: E402
from dgraph.inverse.steps import linearize_partials, local_partials  # noqa: E402
from dgraph.inverse.width import evaluation_order  # noqa: E402

SIZES = (4, 8, 16, 32, 64, 128, 256)


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def dense_jacobian(g: dgraph.DGraph, partials: dict) -> np.ndarray:
    """J by forward accumulation over the edges, one n-vector per vertex."""
    n = len(g.inputs)
    rows = {x: np.eye(n)[i] for i, x in enumerate(g.inputs)}
    for v in g.order():
        if v not in rows:
            rows[v] = sum(partials[u, v] * rows[u] for u in g.predecessors(v))
    return np.array([rows[y] for y in g.outputs])


def cost_row(n: int, temporaries: bool) -> str:
    g = dgraph.from_trace(relaxation_program(n, 3, temporaries), "statement")
    x = np.linspace(-1, 1, n)
    v = np.random.default_rng(n).normal(size=n)
    order = greedy_order(g)
    _, partials = local_partials(g, x)  # compiles the graph's expressions once
    lin = linearize_partials(g, partials, order)
    J = dense_jacobian(g, partials)
    ms = {
        "partials": best_of(lambda: local_partials(g, x)),
        "inverse": best_of(lambda: reverse_inverse(linearize_partials(g, partials, order), v)),
        "dense": best_of(lambda: np.linalg.solve(dense_jacobian(g, partials), v)),
        "sweep": best_of(lambda: reverse_inverse(lin, v)),
        "solve": best_of(lambda: np.linalg.solve(J, v)),
    }
    reference = np.linalg.solve(J, v)
    error = np.abs(reverse_inverse(lin, v) - reference).max() / np.abs(reference).max()
    dense_mults = n * lin.mults + (n**3 - n) // 3 + n * n
    name = "relaxation+temps" if temporaries else "relaxation"
    times = " | ".join(f"{1e3 * ms[key]:.2f}" for key in ms)
    return (
        f"| {name} | {n} | {len(order)} | {g.n_edges} | {len(lin.steps)} ({lin.max_l})"
        f" | {lin.mults} | {lin.setup_mults} | {dense_mults}"
        f" | {dense_mults / (lin.mults + lin.setup_mults):.1f} | {times} | {error:.1e} |"
    )


def order_rows(seeds: int = 100) -> list[str]:
    rules = {"greedy": greedy_order, "min-live": min_live_order, "evaluation": evaluation_order}
    rows = []
    for n in (2, 3, 4):
        hits = {name: [0, 0] for name in rules}
        seconds = dict.fromkeys([*rules, "exact"], 0.0)
        for seed in range(seeds):
            g = dgraph.from_trace(program_with_temporaries(n, 2 * n + 1, seed), "statement")
            t0 = time.perf_counter()
            best = lump_cost(lumps(g, exact_order(g)))
            seconds["exact"] += time.perf_counter() - t0
            for name, rule in rules.items():
                t0 = time.perf_counter()
                cost = lump_cost(lumps(g, rule(g)))
                seconds[name] += time.perf_counter() - t0
                hits[name][0] += cost[0] == best[0]
                hits[name][1] += cost == best
        cells = " | ".join(f"{hits[name][0]} / {hits[name][1]}" for name in rules)
        times = " | ".join(f"{1e3 * seconds[name] / seeds:.1f}" for name in [*rules, "exact"])
        rows.append(f"| {n} | {2 * n + 1} | {seeds} | {cells} | {times} |")
    return rows


def main() -> None:
    print(
        "| program | n | steps | edges | lumps (largest l) | inverse mults per product"
        " | inverse setup mults | dense mults | dense / (inverse setup + product)"
        " | partials ms | inverse (blocks + sweep) ms | dense (J + solve) ms"
        " | next product: sweep ms | next product: solve ms | error |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for temporaries in (False, True):
        for n in SIZES:
            print(cost_row(n, temporaries), flush=True)
    print()
    print(
        "| n | statements | programs | greedy: optimal l / optimal (l, Σ l·k)"
        " | min-live | evaluation | greedy ms | min-live ms | evaluation ms | exact ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in order_rows():
        print(row, flush=True)


if __name__ == "__main__":
    main()
