"""What the second survey of real programs met (benchmarks/real_programs2.py): the
parameters' values given in ``point=`` are the ones the value check evaluates at."""

import numpy as np
import pytest

import dgraph
from dgraph.core.value_check import check_points, scalar_points
from dgraph.methods.registry import traced_function

jax = pytest.importorskip("jax")
jnp = jax.numpy


def loss(w, X, y):
    return jnp.sum((X @ w - y) ** 2)


W = np.array([0.5, -0.2])
XS = np.arange(6.0).reshape(3, 2) - 2.5
YS = np.array([7.0, -8.0, 9.0])  # outside the range parameters are drawn from


def test_the_scalar_check_evaluates_at_the_users_parameters():
    g = traced_function(loss, point=[W, XS, YS], params=("X", "y"))
    assert not g.is_tensor
    pool = scalar_points(g, 3)
    assert pool.given and np.array_equal(pool.x[0], W)
    assert np.array_equal(pool.params[0], np.concatenate([XS.ravel(), YS]))


def test_the_tensor_check_evaluates_at_the_users_parameters():
    g = dgraph.frontends.from_python(
        loss, sizes=[2, (3, 2), 3], point=[W], params=("X", "y"), level="array",
        parameter_values={"X": XS, "y": YS},
    )  # fmt: skip
    first = check_points(g).points[0]
    assert first.label == "the user's point"
    assert np.array_equal(first.inputs["X"], XS) and np.array_equal(first.inputs["y"], YS)


def test_make_function_with_the_users_parameters_in_point():
    made = dgraph.make_function(loss, point=[W, XS, YS], params=("X", "y"))
    want = 2 * XS.T @ (XS @ W - YS)
    assert np.allclose(made(W, np.concatenate([XS.ravel(), YS])), want, atol=1e-12)
