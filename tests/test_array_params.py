"""Parameters at the array level (issue 53): arrays the function takes that are not
differentiated — no Jacobian column, their values given at the point and at call time,
taken last by the generated functions — from JAX and from the NumPy tracer, against
``jax.jacobian(f, argnums=0)`` at a 1-d and a 2-d parameter."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import dgraph  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.errors import InputError  # noqa: E402
from dgraph.frontends import from_function, from_jax  # noqa: E402
from dgraph.frontends.json_format import from_json  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

X = np.array([0.3, 0.8, 1.1])
P = np.array([0.5, -1.2, 2.0])  # 1-d
W = np.arange(1.0, 7.0).reshape(2, 3) / 7  # 2-d


def vector(x, p):
    return jnp.sin(x * p) + p[::-1] * x**2 + jnp.sum(p**2)  # sum(p**2): parameters only


def matrix(x, w):
    return jnp.tanh(w @ x) * jnp.sum(w**2)


def _jacobian(f, x, p):
    with jax.enable_x64(True):
        return np.asarray(jref.jacobian(f, argnums=0)(jnp.asarray(x), jnp.asarray(p)))


@pytest.mark.parametrize(("f", "p"), [(vector, P), (matrix, W)], ids=["1-d", "2-d"])
def test_jax_array_parameters_give_jax_s_jacobian(f, p):
    name = "p" if p.ndim == 1 else "w"
    g = from_jax(f, X, p, level="array", params=[name])
    assert g.inputs == ["x"] and g.parameter_shapes == {name: p.shape}
    assert name not in g.nx and g.parameter_point[name].tolist() == p.tolist()
    J = dgraph.make_function(g)  # J(x, p): the parameter last, no column for it
    assert J.generated.verified
    other = p * 1.5 - 0.2  # a value at call time other than the point's
    for value in (p, other):
        np.testing.assert_allclose(J(X, value), _jacobian(f, X, value), rtol=1e-12, atol=1e-14)
    if p.ndim == 1:
        return  # the other modes once, at the 2-d parameter
    back = from_json(g.to_json())  # JSON: the parameters' names, shapes and values
    assert back == g and back.parameter_point[name].tolist() == p.tolist()
    S = dgraph.make_function(g, sparse=True)
    np.testing.assert_allclose(S(X, other).toarray(), _jacobian(f, X, other), rtol=1e-12)
    v, w = np.array([1.0, -2.0, 0.5]), np.arange(1.0, 1.0 + len(f(X, p)))
    jvp = dgraph.make_function(g, "jvp")(X, v, other)  # primals, tangents, parameters
    np.testing.assert_allclose(jvp, _jacobian(f, X, other) @ v, rtol=1e-12)
    vjp = dgraph.make_function(g, "vjp")(X, w, other)
    np.testing.assert_allclose(vjp, w @ _jacobian(f, X, other), rtol=1e-12)


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_the_c_values_take_the_parameter_last():
    g = from_jax(matrix, X, W, level="array", params=["w"])
    J = dgraph.make_function(g, lang="c", sparse=True)
    np.testing.assert_allclose(J(X, W + 0.1).toarray(), _jacobian(matrix, X, W + 0.1), rtol=1e-12)


def test_the_numpy_tracer_reads_array_parameters():
    g = from_function(
        lambda x, w: np.tanh(w @ x) * np.sum(w**2),
        sizes=[(3,), (2, 3)],
        level="array",
        params=["w"],
    )
    assert g.inputs == ["x"] and g.parameters == ("w",)
    J = dgraph.make_function(g)
    np.testing.assert_allclose(J(X, W - 0.3), _jacobian(matrix, X, W - 0.3), rtol=1e-12)


def test_the_element_level_of_an_array_graph_keeps_the_parameters():
    g = from_jax(matrix, X, W, level="array", params=["w"]).elements()
    assert g.inputs == ["x0", "x1", "x2"] and len(g.parameters) == 6
    J = dgraph.make_function(g)  # the element level's convention: p one vector, last
    np.testing.assert_allclose(J(X, np.ravel(W)), _jacobian(matrix, X, W), rtol=1e-12)


def test_bad_parameters_are_one_line():
    with pytest.raises(InputError, match="has no parameter 'q' to take as a parameter"):
        from_jax(matrix, X, W, level="array", params=["q"])
    with pytest.raises(InputError, match="every parameter is in params"):
        from_jax(matrix, X, W, level="array", params=["x", "w"])


def test_element_code_with_parameters_is_checked_against_jax_s_jvp():
    """A JAX function with parameters and a ``stop_gradient`` (``logsumexp``'s shift):
    central differences cannot check its code, and with parameters the element level had
    no JAX ``jvp`` reference, so softmax cross-entropy with its labels as params (and
    logistic regression with its data) came back "not verified". JAX's ``jvp`` now takes
    the parameters' values (a vector and a scalar here: in their order, or the check
    fails); the code verifies and gives JAX's values."""

    def loss(z, y, s):
        return s * jax.scipy.special.logsumexp(z * s) - jnp.dot(z, y)

    z, y, s = np.array([0.3, -1.2, 2.0]), np.array([0.0, 1.0, 0.0]), 1.7
    for lang in ("python", "c") if compiler() else ("python",):
        J = dgraph.make_function(loss, params=["y", "s"], point=[z, y, s], lang=lang)
        assert J.generated.verified and "JAX's jvp" in J.generated.check.against
        y2, s2 = np.array([0.2, 0.3, 0.5]), 0.6
        with jax.enable_x64(True):
            want = jref.jacobian(loss)(jnp.asarray(z), jnp.asarray(y2), s2)
        np.testing.assert_allclose(np.ravel(J(z, np.append(y2, s2))), want, rtol=1e-12)


def test_an_output_of_the_parameters_only_has_a_zero_jacobian():
    """An output computed from the parameters only was refused ("output 'y' depends on
    the parameters only"), and so was the Hessian of any function linear in an input with
    a parameter's coefficients (its gradient there, c, is such an output: f(x, y, c) =
    sum(x**2) + c·y + ..., a linear cost with data). Now it is an output with no edge (as
    a constant one): its value from the parameters, its Jacobian zero, as JAX's."""
    jax_g = from_jax(lambda x, w: (jnp.sin(x), jnp.sum(w) * 2.0), X, W, level="array", params=["w"])
    numpy_f = lambda x, w: (np.sin(x), np.sum(w) * 2.0)  # noqa: E731
    numpy_g = from_function(numpy_f, sizes=[(3,), (2, 3)], level="array", params=["w"])
    for g in (jax_g, numpy_g):
        (sines, twice), (_, zero) = dgraph.make_function(g, "value_and_jacobian")(X, 2 * W)
        np.testing.assert_allclose(twice, 4 * np.sum(W), rtol=1e-14)
        np.testing.assert_allclose(sines, np.sin(X), rtol=1e-14)
        assert zero.shape == (3,) and not zero.any()

    def linear(x, y, c):
        return jnp.sum(x**2 * y[0]) + jnp.dot(c, y) + jnp.sum(c * x[:2] ** 3)

    def linear_np(x, y, c):
        return np.sum(x**2 * y[0]) + np.dot(c, y) + np.sum(c * x[:2] ** 3)

    y, c = np.array([0.7, -0.4]), np.array([1.5, -2.0])
    for source in (linear, linear_np):
        H = dgraph.hessian(source, X, y, c, params=["c"])
        c2 = c[::-1] * 3
        with jax.enable_x64(True):
            want = jref.hessian(linear, argnums=(0, 1))(X, y, c2)
        got = H(X, y, c2)
        for i in range(2):
            for j in range(2):
                np.testing.assert_allclose(got[i][j], want[i][j], rtol=1e-12, atol=1e-14)
