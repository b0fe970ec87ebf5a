"""Baselines: sympy, CasADi and JAX Jacobians agree with each other and are counted by the
same rule as generated code."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from dgraph.codegen.compare import (
    casadi_jacobian,
    installed,
    jax_jacobian,
    per_point_seconds,
    sympy_jacobian,
)
from dgraph.codegen.counting import casadi_ops, count_ops
from dgraph.frontends import bundled, from_trace

POINTS = np.array([[1.2, 0.4, 2.0], [0.7, 1.1, -0.3], [2.0, -0.5, 0.9]])


def _expected(points: np.ndarray) -> np.ndarray:
    """Hand-written Jacobian of the spherical-coordinates trace (x, y, z, d2)."""
    r, t, p = points.T
    st, ct, sp, cp = np.sin(t), np.cos(t), np.sin(p), np.cos(p)
    x, y, z = r * st * cp, r * st * sp, r * ct
    dx = np.stack([st * cp, r * ct * cp, -r * st * sp], -1)
    dy = np.stack([st * sp, r * ct * sp, r * st * cp], -1)
    dz = np.stack([ct, -r * st, 0 * r], -1)
    dd = 2 * ((x - 1)[:, None] * dx + (y - 2)[:, None] * dy + (z - 3)[:, None] * dz)
    return np.stack([dx, dy, dz, dd], 1)


def test_sympy_baseline_counts_and_values():
    baseline = sympy_jacobian(bundled("spherical_coordinates.trace"))
    # cse(Matrix.jacobian) of spherical coordinates, counted by the codegen rule
    assert (baseline.ops.mults, baseline.ops.adds, baseline.ops.calls) == (19, 8, 4)
    np.testing.assert_allclose(baseline.evaluate(POINTS), _expected(POINTS), rtol=1e-12)
    assert per_point_seconds(baseline.evaluate, POINTS, repeat=1) > 0


@pytest.mark.skipif(not installed("casadi"), reason="casadi not installed")
def test_casadi_counts_follow_the_rule():
    import casadi as ca

    x = ca.SX.sym("x", 2)
    y = ca.vertcat(x[0] * ca.sin(x[1]) ** 2, x[0] ** 3 / x[1], 2 * x[0] - x[1])
    function = ca.Function("f", [x], [y])
    ops = casadi_ops(function)
    # x0*sq(sin x1): sq 1 + mul 1; x0**3: 2 mults; one division; 2*x0: twice 1; one sub
    assert (ops.mults, ops.divs, ops.calls, ops.adds) == (5, 1, 1, 1)
    a, b = sympy.symbols("a b")
    same = count_ops([a * sympy.sin(b) ** 2, a**3 / b, 2 * a - b])
    assert (same.mults, same.divs, same.calls, same.adds) == (4 + 1, 1, 1, 1)


@pytest.mark.skipif(not installed("casadi"), reason="casadi not installed")
def test_casadi_baseline_values():
    baseline = casadi_jacobian(bundled("spherical_coordinates.trace"))
    np.testing.assert_allclose(baseline.evaluate(POINTS), _expected(POINTS), rtol=1e-12)
    assert baseline.ops.mults > 0


@pytest.mark.skipif(not installed("jax"), reason="jax not installed")
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jax_baseline_values(mode):
    import jax

    before = jax.config.jax_enable_x64
    baseline = jax_jacobian(bundled("spherical_coordinates.trace"), mode)
    values = baseline.evaluate(POINTS)
    np.testing.assert_allclose(values, _expected(POINTS), rtol=1e-12)
    assert values.dtype == np.float64 and baseline.ops is None
    assert jax.config.jax_enable_x64 == before  # the process's flag as it was


def test_optional_tools_report_absence(monkeypatch):
    import dgraph.codegen.compare as compare

    monkeypatch.setattr(compare, "installed", lambda module: False)
    graph = from_trace("inputs: x\noutputs: y\ny = sin(x)")
    assert compare.casadi_jacobian(graph) is None and compare.jax_jacobian(graph) is None
