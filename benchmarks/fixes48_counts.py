"""Session 48 (fixes48): operation counts of the scalar jacobian, jvp and vjp programs
(methods forward and reverse), with and without ``where``, on whichever dgraph is first on
PYTHONPATH (run on the branch and on a ``git archive`` of main).

    PYTHONPATH=. python benchmarks/fixes48_counts.py
"""

from __future__ import annotations

import warnings

import numpy as np

import dgraph
from dgraph.codegen.program import jacobian_program, jvp_program, vjp_program

warnings.simplefilter("ignore")


def relu_mlp(x):
    h = np.where(x > 0, x, 0.0) * np.array([1.0, 2.0, 3.0])
    return np.sum(np.where(h > 1, h * np.log(h), h**2))


def poincare(x):
    n = np.linalg.norm(x)
    return np.where(n >= 1, x / n, x)


def plain(x):
    return np.sin(x) * np.exp(x[0]) + x**2


if __name__ == "__main__":
    point = [np.array([0.5, 1.5, 2.0])]
    cases = [(n, dgraph.bundled(n)) for n in ["naumann_sin.trace", "spherical_coordinates.trace"]]
    cases += [
        (f.__name__, dgraph.from_function(f, sizes=[3], point=point, level="element"))
        for f in (relu_mlp, poincare, plain)
    ]
    for name, g in cases:
        print(name)
        for method in ("forward", "reverse"):
            es = dgraph.accumulate(g, method)
            programs = {"J": jacobian_program(es), "jvp": jvp_program(es), "vjp": vjp_program(es)}
            print(f"  {method}: " + " | ".join(f"{k} {p.ops}" for k, p in programs.items()))
