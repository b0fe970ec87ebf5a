"""What the seventeenth survey of real programs met (benchmarks/real_programs17.py: JAX
programs that differentiate inside themselves), each against ``jax.jacfwd`` /
``jax.hessian``: batch statistics by ``lax.pmean`` / ``lax.psum`` in a ``jax.vmap`` with an
``axis_name`` (its ``psum`` over the batched axis: refused), and
``jax.ad_checkpoint.checkpoint_name`` under a ``save_only_these_names`` policy (its ``name``
primitive: refused)."""

import numpy as np
import pytest

import dgraph
from tests.jax_reference import hessian, jacfwd

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -0.5, 0.8, 1.1, -0.2, 0.6])
W = np.array([[0.5, -0.3], [0.2, 0.7]])


def batch_norm(x):
    def per(a):
        h = jnp.tanh(W @ a)
        mu = lax.pmean(h, "batch")
        var = lax.pmean((h - mu) ** 2, "batch")
        s, t = lax.psum((a, a**2), "batch")  # two operands, two results
        return jnp.sum(jnp.sin((h - mu) / jnp.sqrt(var + 0.1)) * a) + s @ t

    return jax.vmap(per, axis_name="batch", in_axes=1)(x.reshape(2, 3))


def named_block(x):
    from jax.ad_checkpoint import checkpoint_name

    policy = jax.checkpoint_policies.save_only_these_names("pre")

    def block(v):
        return v + jnp.tanh(checkpoint_name(W @ v, "pre"))

    g = jax.checkpoint(block, policy=policy)
    v = g(g(x.reshape(3, 2)[0]))
    return jnp.sum(jnp.sin(v)) * x[2:] @ x[2:]


@pytest.mark.parametrize("f", [batch_norm, named_block])
def test_collectives_and_names_jacobian(f):
    want = np.atleast_2d(np.asarray(jacfwd(f)(X)))
    assert np.abs(want).max() > 0.1
    found = dgraph.make_function(f, "jacobian", point=[X])(X)
    np.testing.assert_allclose(np.reshape(found, want.shape), want, rtol=1e-10, atol=1e-12)


def test_named_block_hessian():
    want = np.asarray(hessian(named_block)(X))
    found = dgraph.hessian(named_block, X)(X)
    np.testing.assert_allclose(found, want, rtol=1e-10, atol=1e-12)


def test_psum_sum_hessian():
    def f(x):
        return jnp.sum(batch_norm(x))

    want = np.asarray(hessian(f)(X))
    found = dgraph.hessian(f, X)(X)
    np.testing.assert_allclose(found, want, rtol=1e-10, atol=1e-12)


def test_named_complex_and_constant():
    """A tag on complex values (read as pairs) and on a constant (folded)."""
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        z = checkpoint_name(jnp.fft.fft(x[:4]) * (1 + 2j), "spectrum")
        k = checkpoint_name(jnp.cos(jnp.arange(4.0)) * 2.0, "constant")
        return jnp.sum(jnp.abs(z) ** 2 * k) * jnp.exp(x[4] * x[5])

    want = np.asarray(hessian(f)(X))
    found = dgraph.hessian(f, X)(X)
    np.testing.assert_allclose(found, want, rtol=1e-10, atol=1e-9)
