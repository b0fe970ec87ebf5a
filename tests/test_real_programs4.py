"""What the sixteenth survey of real programs met (benchmarks/real_programs15.py: JAX loops
with integer index arithmetic), each against ``jax.jacfwd`` / ``jax.hessian``: a ring
buffer ``.at[i % k].set`` beside a concatenation in a ``fori_loop`` body (a list's shape
read as an array's: a TypeError)."""

import numpy as np
import pytest

import dgraph
from tests.jax_reference import jacfwd

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -0.5, 0.8])


def ring_buffer(q0):
    def body(i, c):
        q, buf = c
        q = q + 0.1 * jnp.concatenate([q[1:] ** 2, jnp.zeros(1)])
        return q, buf.at[i % 3].set(q[0])

    q, buf = lax.fori_loop(0, 4, body, (q0, jnp.zeros(3)))
    return jnp.array([1.0, 2.0, 3.0]) @ buf**2 + jnp.sum(q**2)


@pytest.mark.parametrize("f", [ring_buffer])
def test_loop_integer_arithmetic_jacobian(f):
    want = np.asarray(jacfwd(f)(X))
    assert np.abs(want).max() > 0.1
    found = dgraph.make_function(f, "jacobian", point=[X])(X)
    assert np.allclose(np.asarray(found).reshape(want.shape), want, rtol=1e-12, atol=1e-12)
