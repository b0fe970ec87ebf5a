"""Generated Hessians of graphs of scalars (sympy, traces, JSON): make_function's Hessian
modes on Dixon's Hessian graph (dgraph.core.hessian_graph), against sympy.hessian."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.errors import DGraphError
from dgraph.frontends import from_trace

DOMAIN_11 = "inputs: x, y\noutputs: f\nv1 = x*y\nv2 = sin(x)\nf = v1 + v2"
TWO_OUTPUTS = "inputs: x, y\noutputs: f, h\nf = x*y\nh = sin(x)*y*y"


def _sympy_hessian(weights: tuple[float, ...], point: tuple[float, float]) -> np.ndarray:
    x, y = sympy.symbols("x y")
    outputs = (x * y, sympy.sin(x) * y * y)
    lagrangian = sum(w * f for w, f in zip(weights, outputs, strict=True))
    h = sympy.hessian(lagrangian, (x, y)).subs({x: point[0], y: point[1]})
    return np.array(h.evalf(), dtype=float)


def test_domain_worked_check_dense_sparse_and_lower_triangle():
    g = from_trace(DOMAIN_11)
    x = [0.5, 0.3]
    expected = np.array([[-np.sin(0.5), 1.0], [1.0, 0.0]])
    dense = dgraph.make_function(g, "hessian")
    assert dense.generated.verified
    np.testing.assert_allclose(dense(x), expected, atol=1e-14)
    sparse = dgraph.make_function(g, "hessian", sparse=True)(x)
    assert sparse.nnz == 3  # the structural pattern: H[1, 1] is not in it
    np.testing.assert_allclose(sparse.toarray(), expected, atol=1e-14)
    lower = dgraph.make_function(g, "hessian", tril=True)(x)
    np.testing.assert_allclose(lower, np.tril(expected), atol=1e-14)


def test_hvp_of_a_graph_of_scalars_is_h_times_t():
    hvp = dgraph.make_function(from_trace(DOMAIN_11), "hvp")
    t = np.array([1.0, 2.0])
    expected = np.array([[-np.sin(0.5), 1.0], [1.0, 0.0]]) @ t
    np.testing.assert_allclose(hvp([0.5, 0.3], t), expected, atol=1e-14)


@pytest.mark.parametrize("weights", [(2.0, 3.0), (-1.0, 0.5)])
def test_a_lagrangian_takes_its_weights_per_call(weights):
    H = dgraph.make_function(from_trace(TWO_OUTPUTS), "hessian")
    point = (0.5, 0.3)
    np.testing.assert_allclose(
        H(list(point), list(weights)), _sympy_hessian(weights, point), atol=1e-13
    )


def test_value_gradient_hessian_of_a_graph_of_scalars_is_refused_in_one_line():
    with pytest.raises(DGraphError, match="value_gradient_hessian of a scalar graph"):
        dgraph.make_function(from_trace(DOMAIN_11), "value_gradient_hessian")
