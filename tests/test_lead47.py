"""Session 47's lead fixes, one test each (each fails on the code before it)."""

import numpy as np
import pytest

import dgraph


def _loss(x):
    return np.sum(np.sin(x) * x)


def _gradient(x):
    return np.cos(x) * x + np.sin(x)


@pytest.mark.parametrize("n", [4, 600])  # the element level, the array level
def test_a_scalar_loss_of_one_vector_has_the_array_levels_shapes_at_either_level(n):
    x = np.linspace(0.1, 1.0, n)
    J = dgraph.make_function(_loss, point=[x])(x)
    assert J.shape == (n,)  # was (1, n) at the element level
    np.testing.assert_allclose(J, _gradient(x), rtol=1e-13)
    value, J = dgraph.make_function(_loss, "value_and_jacobian", point=[x])(x)
    assert np.shape(value) == () and J.shape == (n,)
    assert np.shape(dgraph.make_function(_loss, "jvp", point=[x])(x, x)) == ()
    vjp = dgraph.make_function(_loss, "vjp", point=[x])
    np.testing.assert_allclose(vjp(x, np.array(2.0)), 2 * _gradient(x), rtol=1e-13)
    if n == 4:  # the element level's flat call, a cotangent of shape (1,), still taken
        assert vjp(x, np.ones(1)).shape == (n,)
    # a sparse J stays 2-d, as SciPy's arrays are
    assert dgraph.make_function(_loss, point=[x], sparse=True)(x).shape == (1, n)
