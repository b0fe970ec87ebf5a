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


# -- NumPy programs the survey met: each Jacobian against the same code in jax.numpy --

MASK = np.array([True, False, True, True])
RNG = np.random.default_rng(3)
B2 = RNG.normal(size=(2, 2))


def norms_and_mask(x, *, alpha=0.5):  # a keyword-only parameter keeps its default
    X = x.reshape(2, 4)
    rows = np.linalg.norm(X, axis=1) + np.linalg.norm(X, ord=1, axis=1)
    return np.concatenate([rows * alpha, np.exp(x[:4]) * MASK, np.linalg.norm(X)[None]])


def linear_algebra(x):
    M = x.reshape(2, 2) + 3 * np.eye(2)  # not symmetric: cholesky reads the lower triangle
    S = M @ M.T
    parts = [np.linalg.cholesky(M), np.linalg.solve(S, B2), np.linalg.inv(M)]
    vector = np.linalg.solve(M, np.array([1.0, -2.0]))  # a vector right side
    return np.concatenate(
        [*(p.ravel() for p in parts), vector, np.diag(S), np.array([np.linalg.det(M)])]
    )


def _differences(f, x, h=1e-6):
    """NumPy's own central differences of ``f`` at ``x`` (the reference semantics)."""
    cols = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize(
    ("f", "x"),
    [(norms_and_mask, RNG.normal(size=8)), (linear_algebra, RNG.uniform(-0.4, 0.4, 4))],
)
def test_numpy_programs_against_their_differences(f, x):
    made = dgraph.make_function(f, point=[x], method="forward")  # no search: a cheap test
    assert made.generated.verified
    want = _differences(f, x)
    assert np.allclose(np.asarray(made(x)).reshape(want.shape), want, atol=1e-7)


def test_a_keyword_only_parameter_without_a_default_is_one_line():
    def f(x, *, nu):
        return x * nu

    with pytest.raises(dgraph.DGraphError, match="keyword-only parameter 'nu' has no default"):
        dgraph.make_function(f, point=[np.ones(2)])


def test_a_sparse_hessian_through_scalar_intermediates():
    """A scalar intermediate's square then a sum (``(b**2 + 0.1) * np.eye(2)``): the
    printed ``numpy.add(t, k, out=t)`` wrote into a NumPy scalar (TypeError: return
    arrays must be of ArrayType) in the sparse Hessian's code."""
    D = np.array([[0.0, 1.0], [1.0, 0.0]])

    def f(p):
        a, b = np.exp(p)
        K = np.exp(-D / a**2) + (b**2 + 0.1) * np.eye(2)
        return np.sum(np.log(np.diag(K))) + np.sum(K)

    def fj(p):
        a, b = jnp.exp(p)
        K = jnp.exp(-D / a**2) + (b**2 + 0.1) * jnp.eye(2)
        return jnp.sum(jnp.log(jnp.diag(K))) + jnp.sum(K)

    p = np.array([0.2, -0.3])
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(fj))(jnp.asarray(p)))
    H = dgraph.hessian(f, p, sparse=True)
    assert np.allclose(H(p).toarray(), want, atol=1e-12)
