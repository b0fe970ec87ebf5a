"""Programs written as HIPS/autograd's examples write them (``import autograd.numpy as np``,
``autograd.scipy.stats``' distributions as modules, ``from autograd.scipy.special import
logsumexp``): autograd's functions are NumPy's and SciPy's where no argument is one of
autograd's boxes, so the array tracer reads them as NumPy's and SciPy's (session 37,
``benchmarks/real_programs18.py``). Before, ``np.concatenate(..., axis=1)`` failed on
``.view(ndarray)``, ``norm.logpdf`` and ``mvn.logpdf`` converted a traced array, and an
imported ``logsumexp`` ran SciPy's array-API code on it. Hessians against JAX."""

from __future__ import annotations

import autograd.numpy as anp
import autograd.scipy.stats.multivariate_normal as mvn
import autograd.scipy.stats.norm as norm
import numpy as np
import pytest
from autograd import grad
from autograd.scipy.special import logsumexp

import dgraph
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jsp = pytest.importorskip("jax.scipy")
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -0.7, 1.1, 0.5])
COV = np.array([[2.0, 0.3, 0.0, 0.1], [0.3, 1.0, 0.2, 0.0], [0.0, 0.2, 1.5, 0.3],
                [0.1, 0.0, 0.3, 1.2]])  # fmt: skip


def autograd_program(x):
    rows = anp.concatenate((anp.reshape(x, (2, 2)), anp.tanh(anp.reshape(x, (2, 2)))), axis=1)
    out = anp.dot(rows, anp.ones(4))
    return (
        anp.sum(out**2)
        + anp.sum(norm.logpdf(x, 0.5, 1.0 + x**2))
        + mvn.logpdf(x, anp.zeros(4), COV)
        + anp.sum(logsumexp(rows, axis=1, keepdims=True))
    )


def jax_program(x):
    rows = jnp.concatenate((x.reshape(2, 2), jnp.tanh(x.reshape(2, 2))), axis=1)
    out = rows @ jnp.ones(4)
    return (
        jnp.sum(out**2)
        + jnp.sum(jsp.stats.norm.logpdf(x, 0.5, 1.0 + x**2))
        + jsp.stats.multivariate_normal.logpdf(x, jnp.zeros(4), COV)
        + jnp.sum(jsp.special.logsumexp(rows, axis=1, keepdims=True))
    )


@pytest.mark.parametrize("sparse", [False, True])
def test_autograd_numpy_and_scipy_read_as_numpy_and_scipy(sparse):
    assert np.isclose(autograd_program(X), float(jax_program(jnp.asarray(X))), rtol=1e-12)
    H = dgraph.hessian(autograd_program, X, sparse=sparse)(X)
    H = H.toarray() if sparse else H
    want = np.asarray(jref.hessian(jax_program)(jnp.asarray(X)))
    np.testing.assert_allclose(H, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def grad_inside(x):
    return anp.sum(grad(lambda y: anp.sum(anp.tanh(y) ** 2))(x) * x)


def test_autograd_differentiating_inside_is_one_line():
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(grad_inside, "jacobian", point=[X])
    assert "autograd's own differentiation inside the function" in str(e.value)
    assert "\n" not in str(e.value)
