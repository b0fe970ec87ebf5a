"""Jacobian code for simulations: n-link pendulums from sympy.physics.mechanics.

    python benchmarks/pendulums.py [--links 2,3,4,5,6] [--batch 10000] [--numbers]
                                   [--sympy-limit 300] [--system]

For each n: the equations of motion ``kane.rhs()`` (dgraph.bench.pendulum) read with
``from_sympy(rhs, q + u, params=masses, lengths, g)``; how long dgraph's default
``generate`` takes for C and for NumPy; the operations of its ``jacobian(x, p)`` against
sympy's ``jacobian`` + ``cse`` and CasADi's SX ``jacobian`` (cse on, the same parameters
as symbolic arguments), all counted by dgraph.codegen.counting; and the time per point at
batch 1 and at ``--batch`` of dgraph's NumPy module and compiled C against sympy's
``lambdify(cse=True)`` and CasADi's generated C (compiled with the same cc -O2), every
evaluator first checked against sympy's values. Prints Markdown tables; ratios are
against the baselines measured in the same run. With ``--numbers`` the parameters are
numbers put in before reading (masses 1, lengths 1, g = 9.81): constants fold, for every
tool alike. sympy's ``jacobian`` of ``kane.rhs()`` grows steeply with n (it differentiates
the LU solve's expression tree): its ``jacobian`` and ``cse`` run in a forked child
stopped after ``--sympy-limit`` seconds, its columns then say so and the checks compare
against CasADi. With ``--system`` dgraph reads the
mass-matrix form instead, ``from_linear_system(kane.mass_matrix_full, kane.forcing_full,
...)``, and its code solves with one LU factorization of M (the implicit function theorem)
instead of differentiating ``kane.rhs()``'s symbolic solve; the baselines stay on
``kane.rhs()``, as their users write it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import time

import numpy as np

from dgraph.bench.pendulum import n_link_pendulum
from dgraph.codegen.c import load_c
from dgraph.codegen.compare import (
    casadi_jacobian,
    installed,
    per_point_seconds,
    sympy_baseline,
    sympy_jacobian_parts,
)
from dgraph.codegen.generate import generate
from dgraph.codegen.python import load_python
from dgraph.frontends import from_linear_system, from_sympy
from dgraph.frontends.elemental import replace_shared

NUMBERS = {"m": 1.0, "l": 1.0, "g": 9.81}  # --numbers: by the first letter of the name


def within(seconds: float, graph) -> object:
    """sympy's baseline for ``graph``, or None when its Jacobian and ``cse`` have not
    finished after ``seconds``: they run in a forked child that is killed then (a child
    that dies gives None too), and the parent lambdifies what the child sends back."""
    started = time.perf_counter()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_parts, args=(graph, send), daemon=True)
    child.start()
    send.close()
    try:
        parts = receive.recv() if receive.poll(seconds) else None
    except EOFError:  # the child died before it sent anything
        parts = None
    finally:
        child.kill()
        child.join()
    return None if parts is None else sympy_baseline(graph, parts, started)


def _parts(graph, send) -> None:
    send.send(sympy_jacobian_parts(graph))
    send.close()


def measure(
    n: int, batch: int, numbers: bool = False, sympy_limit: float = 300, system: bool = False
) -> dict:
    t0 = time.perf_counter()
    pendulum = n_link_pendulum(n)
    derived = time.perf_counter() - t0
    values = {s: NUMBERS[s.name[0]] for s in pendulum.params} if numbers else {}
    params = [] if numbers else pendulum.params
    rhs = [replace_shared(e, values) for e in pendulum.rhs]
    t0 = time.perf_counter()
    if system:
        mass = pendulum.kane.mass_matrix_full.xreplace(values)
        forcing = pendulum.kane.forcing_full.xreplace(values)
        graph = from_linear_system(mass, forcing, pendulum.states, params, name=f"pendulum-{n}")
    else:
        graph = from_sympy(rhs, pendulum.states, name=f"pendulum-{n}", params=params)
    built = time.perf_counter() - t0
    baseline = graph if not system else from_sympy(rhs, pendulum.states, params=params)
    t0 = time.perf_counter()
    c = generate(graph, "c")
    c_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    py = generate(graph, "python")
    py_seconds = time.perf_counter() - t0
    assert c.verified and py.verified
    t0 = time.perf_counter()
    sympy_result = within(sympy_limit, baseline)
    sympy_seconds = time.perf_counter() - t0
    casadi = casadi_jacobian(baseline) if installed("casadi") else None
    k = len(graph.parameters) - len(graph.solved)
    n_in = len(graph.inputs)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, (batch, n_in))
    p = rng.uniform(0.5, 1.5, (batch, k))
    c_module, py_module = load_c(c.text), load_python(py.text)

    def split(function):
        if not k:
            return lambda points: function(points)
        return lambda points: function(points[:, :n_in], points[:, n_in:])

    evaluators = {
        "dgraph-py": split(py_module.jacobian),
        "dgraph-c": split(c_module.jacobian),
        "sympy": sympy_result.evaluate if sympy_result is not None else None,
        "casadi-c": casadi.evaluate if casadi is not None else None,
    }
    evaluators = {tool: f for tool, f in evaluators.items() if f is not None}
    points = np.hstack([x, p])
    reference = (sympy_result or casadi).evaluate(points[:5])
    scale = np.abs(reference).max()
    for tool, evaluate in evaluators.items():
        error = np.abs(evaluate(points[:5]) - reference).max() / scale
        assert error < 1e-9, (n, tool, error)
    times = {
        (tool, size): per_point_seconds(evaluate, points[:size], repeat=5 if size > 1 else 200)
        for tool, evaluate in evaluators.items()
        for size in (1, batch)
    }
    return {
        "n": n,
        "graph": graph,
        "derived": derived,
        "built": built,
        "c_seconds": c_seconds,
        "py_seconds": py_seconds,
        "sympy_seconds": sympy_seconds if sympy_result is not None else None,
        "sympy_limit": sympy_limit,
        "method": c.summary()["method"],
        "ops": {
            "dgraph": c.programs["jacobian"].ops,
            "sympy": sympy_result.ops if sympy_result is not None else None,
            "casadi": casadi.ops if casadi is not None else None,
        },
        "times": times,
        "tools": list(evaluators),
    }


def markdown(rows: list[dict], batch: int) -> str:
    lines = [
        f"Machine: {platform.machine()}, {platform.python_version()}; batch {batch:,}.",
        "",
        "| n | vertices, edges | kane.rhs() s | from_sympy s | codegen C s | codegen NumPy s"
        " | method | dgraph mults / adds / divs | sympy+cse | CasADi SX | mults ÷ min"
        " | (mults + divs) ÷ min | sympy jacobian+cse+lambdify s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ops = r["ops"]
        others = [o for t, o in ops.items() if t != "dgraph" and o is not None]
        best = min(o.mults for o in others)
        best_products = min(o.mults + o.divs for o in others)
        mine = ops["dgraph"]
        sympy_s = r["sympy_seconds"]
        cells = [
            str(r["n"]),
            f"{len(r['graph'])}, {r['graph'].n_edges}",
            f"{r['derived']:.2f}",
            f"{r['built']:.2f}",
            f"{r['c_seconds']:.1f}",
            f"{r['py_seconds']:.1f}",
            r["method"],
            *(
                f"{o.mults} / {o.adds} / {o.divs}" if o is not None else "–"
                for o in (ops["dgraph"], ops["sympy"], ops.get("casadi"))
            ),
            f"{mine.mults / best:.2f}",
            f"{(mine.mults + mine.divs) / best_products:.2f}",
            f"{sympy_s:.1f}" if sympy_s is not None else f"> {r['sympy_limit']:g} (stopped)",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Time per point (µs) and ratio to the baseline in brackets:", ""]
    tools = [
        t
        for t in ("dgraph-py", "dgraph-c", "sympy", "casadi-c")
        if any(t in r["tools"] for r in rows)
    ]
    head = " | ".join(f"{t} @1 | {t} @{batch:,}" for t in tools)
    lines += [f"| n | {head} |", "|---|" + "---|" * (2 * len(tools))]
    for r in rows:
        cells = [str(r["n"])]
        for tool in tools:
            for size in (1, batch):
                if (tool, size) not in r["times"]:
                    cells.append("–")
                    continue
                us = r["times"][tool, size] * 1e6
                if tool.startswith("dgraph"):
                    base = "sympy" if tool == "dgraph-py" else "casadi-c"
                    ratio = (
                        us / (r["times"][base, size] * 1e6) if (base, size) in r["times"] else None
                    )
                    cells.append(f"{us:.3g}" + (f" ({ratio:.2f})" if ratio else ""))
                else:
                    cells.append(f"{us:.3g}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Brackets: dgraph-py ÷ sympy's lambdify(cse=True), dgraph-c ÷ CasADi's generated C, at"
        " the same batch size.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", default="2,3,4,5,6")
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--numbers", action="store_true", help="masses, lengths, g as numbers")
    parser.add_argument("--sympy-limit", type=float, default=300.0, help="seconds for sympy")
    parser.add_argument(
        "--system", action="store_true", help="dgraph reads the mass-matrix form (M, F)"
    )
    args = parser.parse_args()
    rows = []
    for n in (int(t) for t in args.links.split(",")):
        rows.append(measure(n, args.batch, args.numbers, args.sympy_limit, args.system))
        print(f"n = {n} done", flush=True)
    print(markdown(rows, args.batch))


if __name__ == "__main__":
    main()
