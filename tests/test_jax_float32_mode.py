"""A JAX function's Hessian where the user has not enabled ``jax_enable_x64``: dgraph
traces in float64 throughout. JAX (0.10) keeps the conversion of a NumPy constant it made
once, by the array's identity, across ``jax_enable_x64``'s settings, so a single trace in
float32 (the gradient's guard looked for a select that way) put a float32 copy of the
constant into every later float64 trace: the reference's ``jvp`` then failed with
"lax.sub requires arguments to have the same dtypes" (a traceback, not a result). The
same held for a user's own ``jax.jit(f)(x)`` with x64 off before dgraph, and dgraph's
float64 copies reached the user's float32 jit after it: dgraph's traces now convert NumPy
constants through a view (:mod:`dgraph.frontends.jax_precision`)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_hessian_of_a_function_with_a_numpy_constant_in_float32_mode():
    y = np.random.default_rng(5).normal(size=8)  # a new array: no conversion kept yet

    def f(x):
        return jnp.sum((x - y) ** 2 * jnp.sin(x))

    x = np.linspace(0.2, 0.8, 8)
    with jax.enable_x64(False):
        made = dgraph.hessian(f, x)
        got = made(x)
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))  # one compilation
    assert made.generated.verified
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _constants(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy constants of 0, 1 and 2 dimensions, new arrays (nothing JAX keeps for them)."""
    rng = np.random.default_rng(seed)
    return np.array(1.5), rng.normal(size=4), rng.normal(size=(3, 4))


def _functions(c, y, A):
    """A scalar function of ``c`` and ``y`` and a vector one of ``A`` and ``y``: ``y`` used
    by both."""

    def f(x):
        return c * jnp.sum((x - y) ** 2 * jnp.sin(x))

    def g(x):
        return jnp.tanh(A @ x) + jnp.dot(y, x)

    return f, g


def test_a_users_float32_jit_before_the_jacobian_and_the_hessian():
    """The user's ``jax.jit(f)(x)`` with x64 off keeps float32 copies of f's constants,
    which JAX (0.10.2) gave every later float64 trace of f: the Jacobian was verified
    with ``A`` and ``y`` rounded to float32 (off by 1e-8), the Hessian failed ("lax.mul
    requires arguments to have the same dtypes")."""
    constants = _constants(7)
    f, g = _functions(*constants)
    x = np.linspace(0.2, 0.8, 4)
    exact_f, exact_g = _functions(*(np.array(a) for a in constants))  # copies: none kept
    with jax.enable_x64(True):
        want_J = np.asarray(jax.jacfwd(exact_g)(x))
        want_H = np.asarray(jax.hessian(exact_f)(x))
    with jax.enable_x64(False):
        jax.jit(f)(x), jax.jit(g)(x)  # the user's own, in float32
        J = dgraph.make_function(g, "jacobian", point=[x])
        got_J = J(x)
    assert J.generated.verified
    np.testing.assert_allclose(got_J, want_J, rtol=1e-12, atol=1e-12)
    with jax.enable_x64(False):
        H = dgraph.hessian(f, x)
        got_H = H(x)
    assert H.generated.verified
    np.testing.assert_allclose(got_H, want_H, rtol=1e-12, atol=1e-12)


def test_the_users_float32_jit_after_dgraph():
    """dgraph's float64 traces kept float64 copies of f's constants alive (its compiled
    references): the user's later ``jax.jit(f)(x)`` with x64 off met them ("Cannot lower
    jaxpr with verifier errors")."""
    c, y, A = _constants(8)
    f, _ = _functions(c, y, A)
    x = np.linspace(0.2, 0.8, 4)
    with jax.enable_x64(False):
        dgraph.make_function(f, "jacobian", point=[x])
        got = jax.jit(f)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, c * np.sum((x - y) ** 2 * np.sin(x)), rtol=1e-6)
