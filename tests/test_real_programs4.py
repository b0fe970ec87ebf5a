"""What the sixteenth survey of real programs met (benchmarks/real_programs15.py: JAX loops
with integer index arithmetic), each against ``jax.jacfwd`` / ``jax.hessian``: a ring
buffer ``.at[i % k].set`` beside a concatenation in a ``fori_loop`` body (a list's shape
read as an array's: a TypeError), and bit operations on the loop counter (``k >> 1``,
``k & 1``, ``i ^ 3``, ``~k``, ``k << 2``: refused, or ``&`` read as a logical and, which
did not verify), and Gauss–Seidel sweeps in nested ``fori_loop``s in C (a gather at a
position read from a constant integer table at the loop counter, and a boolean constant
in an expression: refused)."""

import numpy as np
import pytest

import dgraph
from dgraph.codegen.c import compiler
from tests.jax_reference import hessian, jacfwd

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


def counter_bits(x):
    def step(y, i):
        k = i - 5  # negative counters too: two's complement
        w = (k >> 1) * 0.1 + (k & 6) * 0.05 + (~k) * 0.01 + (k << 2) * 0.001 + (k | 5) * 0.02
        y = jnp.where(i & 2, 1.5 * y, jnp.sin(y)) + (i ^ 3) * 0.01 * y
        return jnp.sin(y) * w + y, None

    return jnp.sum(lax.scan(step, x, jnp.arange(9))[0] ** 2)


def squaring(z):  # P^5 by repeated squaring over the exponent's bits
    P = jax.nn.softmax(z.reshape(2, 2), axis=1)

    def bit(_, c):
        R, B, k = c
        return jnp.where(k & 1, R @ B, R), B @ B, k >> 1

    R, _, _ = lax.fori_loop(0, 3, bit, (jnp.eye(2), P, 5))
    return jnp.sum(jnp.log(R))


@pytest.mark.parametrize("f", [ring_buffer, counter_bits])
def test_loop_integer_arithmetic_jacobian(f):
    want = np.asarray(jacfwd(f)(X))
    assert np.abs(want).max() > 0.1
    found = dgraph.make_function(f, "jacobian", point=[X])(X)
    assert np.allclose(np.asarray(found).reshape(want.shape), want, rtol=1e-12, atol=1e-12)


def test_counter_bits_hessian():
    want = np.asarray(hessian(counter_bits)(X))
    assert np.abs(want).max() > 0.1
    assert np.allclose(dgraph.hessian(counter_bits, X)(X), want, rtol=1e-10, atol=1e-12)


def test_repeated_squaring_bits():
    z = np.array([0.2, -0.4, 0.7, 0.1])
    want = np.asarray(jacfwd(squaring)(z))
    found = dgraph.make_function(squaring, "jacobian", point=[z])(z)
    assert np.allclose(np.asarray(found).reshape(want.shape), want, rtol=1e-12, atol=1e-12)


def gauss_seidel(s):
    def point(j, u):
        left = jnp.where(j > 0, u[jnp.maximum(j - 1, 0)], 0.0)
        right = jnp.where(j < 3, u[jnp.minimum(j + 1, 3)], 0.0)
        return u.at[j].set((left + right + s[j]) / (2 + 0.1 * u[j] ** 2))

    u = lax.fori_loop(0, 2, lambda _, u: lax.fori_loop(0, 4, point, u), jnp.zeros(4))
    return jnp.sum(u**2 + s * u)


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_gauss_seidel_sweeps_in_c():
    x = np.array([0.3, -0.5, 0.8, 0.2])
    want = np.asarray(jacfwd(gauss_seidel)(x))
    found = dgraph.make_function(gauss_seidel, "jacobian", "c", point=[x])(x)
    assert np.allclose(np.asarray(found).reshape(want.shape), want, rtol=1e-12, atol=1e-12)
