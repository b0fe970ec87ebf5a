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


def test_a_custom_rules_value_at_the_array_level_is_the_primals_where_its_tangent_is_not():
    """``xlogy(p, p)`` at p = 0: JAX's rule's tangent map is ``0·log 0 = nan`` there, the
    function's value 0; the array level's value was ``t + (f - t)``, nan."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from dgraph.frontends import from_jax

    def entropy(p):
        return -jax.numpy.sum(jax.scipy.special.xlogy(p, p)) + jax.numpy.sum(jax.nn.relu(p - 0.5))

    p = np.linspace(0.0, 1.0, 8)
    graph = from_jax(entropy, p, level="array")
    with pytest.warns(UserWarning, match="NOT verified"):
        value, J = dgraph.make_function(graph, "value_and_jacobian")(p)
    q = p[1:]
    want = -np.sum(q * np.log(q)) + np.sum(np.maximum(p - 0.5, 0.0))
    np.testing.assert_allclose(value, want, rtol=1e-15)
    np.testing.assert_allclose(J[1:], -(np.log(q) + 1) + (q > 0.5), rtol=1e-15)
    assert not np.isfinite(J[0])  # JAX's own jacfwd is nan in every column there


def test_the_hessian_of_a_custom_rule_under_a_guarded_where_keeps_the_rules_derivative():
    """softplus (a custom rule) under a ``where`` whose untaken branch is guarded: that
    route took JAX's gradient of the graph's primal, where the rule's tangent map
    ``v·σ(stop_gradient(v))`` has its coefficient frozen, so ∂²/∂v² lost ``σ'`` (and
    ∂²/∂u∂v was 0): survey47's betakl."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from scipy.special import digamma, polygamma

    def f(u, v):
        s = jax.nn.softplus(v)
        return jax.numpy.sum(jax.numpy.where(s < 8, jax.lax.lgamma(s), 1.0) * u)

    u, v = np.array([0.9]), np.array([0.0])
    (huu, huv), (hvu, hvv) = dgraph.hessian(f, point=[u, v])(u, v)
    s, sig = np.log(2.0), 0.5
    cross = digamma(s) * sig
    np.testing.assert_allclose([huu, huv, hvu], [[[0.0]], [[cross]], [[cross]]], rtol=1e-14)
    want = u[0] * (polygamma(1, s) * sig**2 + digamma(s) * sig * (1 - sig))
    np.testing.assert_allclose(hvv, [[want]], rtol=1e-13)


@pytest.mark.parametrize("n", [3, 700])  # the element level, the array level
def test_an_incomplete_gammas_shape_given_as_a_parameter_reads(n):
    """``gammainc(a, x)`` with ``a`` in ``params=`` (NumPy's and JAX's) was refused as "a
    shape that depends on the inputs" (survey47's cenpois); no derivative in ``a`` is
    needed, and ``a`` is read at each call. Hessians too (JAX reads NumPy's for them)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from scipy.special import gamma, gammainc

    def f(x, a):
        return np.sum(gammainc(a, x) * x)

    def f_jax(x, a):
        return jax.numpy.sum(jax.scipy.special.gammainc(a, x) * x)

    x, a = np.linspace(0.5, 2.5, n), np.linspace(1.5, 3.0, n)
    J = dgraph.make_function(f, point=[x, a], params=["a"])
    J_jax = dgraph.make_function(f_jax, point=[x, a], params=["a"])
    H = dgraph.make_function(f, "hessian", point=[x, a], params=["a"])
    for b in (a, 1.1 * a):
        p = x ** (b - 1) * np.exp(-x) / gamma(b)  # ∂P(b, x)/∂x
        want = gammainc(b, x) + x * p
        np.testing.assert_allclose(np.ravel(J(x, b)), want, rtol=1e-13)
        np.testing.assert_allclose(np.ravel(J_jax(x, b)), want, rtol=1e-13)
        second = 2 * p + x * p * ((b - 1) / x - 1)
        np.testing.assert_allclose(np.diag(np.asarray(H(x, b))), second, rtol=1e-12)
