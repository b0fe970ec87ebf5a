"""``dgraph demo``: the main job on a bundled example.

Builds the graph of a small physics-style map (spherical to Cartesian coordinates and a
squared distance), compares every accumulation method, verifies each result against
Bauer's formula and sympy's own Jacobian, and writes the drawings, the cheapest
expression set and NumPy code generated from it (checked against sympy too).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import sympy

from ..codegen.generate import generate
from ..codegen.python import load_python
from ..core.files import staged
from ..core.graph import vertex_symbol
from ..errors import InputError
from ..frontends import bundled
from ..methods import compare
from ..render.dot import render
from ..render.text import comparison_text, cost_line, graph_summary

__all__ = ["DEMO_GRAPH", "demo"]

DEMO_GRAPH = "spherical_coordinates.trace"


def _sympy_agreement(graph, es, points: int = 5, seed: int = 0) -> float:
    """Largest relative difference between the expression set and sympy's Jacobian."""
    values = graph.values()
    xs = [vertex_symbol(x) for x in graph.inputs]
    jac = sympy.Matrix([values[y] for y in graph.outputs]).jacobian(xs)
    f = sympy.lambdify(xs, jac, "numpy")
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(points):
        point = rng.uniform(0.5, 1.5, size=len(xs))
        ours, theirs = es.evaluate(point), np.array(f(*point), dtype=float)
        worst = max(worst, float(np.max(np.abs(ours - theirs) / (1 + np.abs(theirs)))))
    return worst


def _code_agreement(graph, module, points: int = 5, seed: int = 1) -> float:
    """Largest relative difference between the generated ``jacobian`` and sympy's."""
    values = graph.values()
    xs = [vertex_symbol(x) for x in graph.inputs]
    jac = sympy.lambdify(xs, sympy.Matrix([values[y] for y in graph.outputs]).jacobian(xs))
    batch = np.random.default_rng(seed).uniform(0.5, 1.5, size=(points, len(xs)))
    ours = module.jacobian(batch)
    theirs = np.array([np.array(jac(*x), dtype=float) for x in batch])
    return float(np.max(np.abs(ours - theirs) / (1 + np.abs(theirs))))


def _make_directory(out: Path) -> Path:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{out}: cannot create the directory ({exc.strerror or exc})") from None
    return out


def demo(out: Path, as_json: bool = False) -> int:
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: cannot write in it (not a directory)")
    graph = bundled(DEMO_GRAPH)
    comparison = compare(graph)
    best = comparison.results[comparison.best]
    error = _sympy_agreement(graph, best)
    code = generate(graph, "python", comparison.best, modes=("jacobian", "jvp", "vjp"))
    code_error = _code_agreement(graph, load_python(code.text))
    with staged(_make_directory(out)) as temporary:  # every file or none
        render(graph, temporary / "graph.svg")
        render(graph, temporary / "graph.dot")
        render(graph, temporary / "graph-dependence.svg", "dependence")
        (temporary / "best.tex").write_text(best.to_latex() + "\n")
        (temporary / "best.txt").write_text(best.to_text() + "\n")
        (temporary / "compare.json").write_text(json.dumps(comparison.to_dict(), indent=1) + "\n")
        (temporary / "jacobian.py").write_text(code.text)
    names = ("graph.svg", "graph.dot", "graph-dependence.svg", "best.tex", "best.txt")
    files = [out / name for name in (*names, "compare.json", "jacobian.py")]
    ok = (
        all(es.verified for es in comparison.results.values())
        and error < 1e-10
        and code_error < 1e-10
    )
    if as_json:
        print(
            json.dumps(
                {
                    **comparison.to_dict(),
                    "sympy_max_relative_error": error,
                    "code": {**code.summary(), "sympy_max_relative_error": code_error},
                    "files": [str(f) for f in files],
                }
            )
        )
        return 0 if ok else 1
    print(f"dgraph demo — {DEMO_GRAPH}")
    print(graph_summary(graph))
    print()
    print(comparison_text(comparison))
    print()
    print(cost_line(best))
    print(best.to_text())
    print(f"\nagrees with sympy's Jacobian at 5 random points: max relative error {error:.1e}")
    print(
        f"generated NumPy code (jacobian, jvp, vjp): {code.mults} mults, {code.adds} adds in"
        f" jacobian(x); agrees with sympy to {code_error:.1e}"
    )
    print("wrote " + ", ".join(str(f) for f in files))
    return 0 if ok else 1
