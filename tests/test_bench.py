"""The benchmark suite: its functions are what they claim, its counts are real."""

from __future__ import annotations

import numpy as np
import sympy

from dgraph.bench.baselines import sympy_jacobian_cse
from dgraph.bench.run import bench, markdown
from dgraph.bench.suite import SUITES, chebyshev, spherical_harmonics
from dgraph.codegen.counting import count_ops


def test_chebyshev_is_chebyshev():
    x = sympy.Symbol("x", real=True)
    g = chebyshev(7)
    (value,) = (g.values()[y] for y in g.outputs)
    assert sympy.expand(value - sympy.chebyshevt(7, x)) == 0


def test_spherical_harmonics_are_orthonormal_real_harmonics():
    g = spherical_harmonics(3)
    assert len(g.outputs) == 9 - 1  # Y_1_m1 .. all but the constant Y_0_0
    values = g.values()
    x, y, z = sympy.symbols("x y z", real=True)
    fns = [sympy.lambdify((x, y, z), values[o], "numpy") for o in g.outputs]
    # Monte Carlo on the unit sphere: the Gram matrix is close to the identity
    rng = np.random.default_rng(1)
    p = rng.normal(size=(200_000, 3))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    samples = np.array([np.broadcast_to(f(*p.T), len(p)) for f in fns])
    gram = samples @ samples.T * (4 * np.pi / len(p))
    np.testing.assert_allclose(gram, np.eye(len(fns)), atol=0.03)


def test_one_counter_for_baselines():
    a, b, c = sympy.symbols("a b c")
    ops = count_ops([a * b * c + a, -a * b, a**3 / b, sympy.sin(a) * sympy.sqrt(b)])
    # a*b*c: 2; -a*b: 1 (the sign is free); a**3/b: 2 and a division; sin(a)*sqrt(b): 1
    assert (ops.mults, ops.adds, ops.divs, ops.calls) == (2 + 1 + 2 + 1, 1, 1, 2)


def test_sympy_baseline_counts_the_cse_output(sin_graph):
    ops, seconds = sympy_jacobian_cse(sin_graph)
    # d/dx0 = sin(x1)**2, d/dx1 = 2*x0*sin(x1)*cos(x1): x0 sin^2: cse keeps sin(x1) once
    assert ops.mults == 1 + 3 and ops.calls == 2 and seconds >= 0


def test_quick_suite_runs_and_every_result_verifies():
    result = bench("quick")
    rows = result["rows"]
    names = {r["function"] for r in rows}
    assert names == set(SUITES["quick"])
    methods = [
        r for r in rows if r["method"] in ("forward", "reverse", "markowitz", "vertex-optimal")
    ]
    assert methods and all(r["verified"] for r in methods)
    assert all(isinstance(r["mults"], int) for r in rows if "mults" in r)
    table = markdown(result)
    assert table.splitlines()[0].startswith("| function |")
    mults, seconds = table.split("\n\n")
    assert len(mults.splitlines()) == 2 + len(SUITES["quick"])
    assert len(seconds.splitlines()) == 2 + len(SUITES["quick"])
