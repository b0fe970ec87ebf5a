"""Hessians through max and min pooling: the gradient JAX writes holds
``select_and_scatter_add`` (pooling's transpose), read as the vjp of the pooling's own
reading, so each window's derivative goes to its first extreme entry, as XLA's does;
ties, overlapping windows and padding included."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp, lax = jax.numpy, jax.lax


def _pool(kind: str, window, strides, padding):
    init, op = (-jnp.inf, lax.max) if kind == "max" else (jnp.inf, lax.min)

    def f(x):
        pooled = lax.reduce_window(x.reshape(1, 4, 4, 1), init, op, window, strides, padding)
        return jnp.sum(pooled**2 * jnp.sin(pooled)) + jnp.sum(x**3) * 0.1

    return f


TIES = np.array([0.7, 0.7, 0.2, 0.9, 1.0, 0.5, 1.0, -0.3, 0.4, 0.4, 0.4, 0.4, 0.8, 0.1, 0.8, 0.2])


POOLS = {
    "max-disjoint": ("max", (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),  # disjoint windows
    "min-overlapping-same": ("min", (1, 3, 3, 1), (1, 1, 1, 1), "SAME"),  # overlapping, padded
    "max-padded": ("max", (1, 2, 2, 1), (1, 1, 2, 1), ((0, 0), (1, 0), (0, 1), (0, 0))),
}


def _padded(x):
    pooled = lax.reduce_window(x.reshape(4, 4), -jnp.inf, lax.max, (2, 3), (1, 1), "SAME")
    return jnp.sum(jnp.sin(pooled) * pooled)


@functools.cache
def _references() -> dict[str, np.ndarray]:
    """JAX's Hessian of each pooling at ``TIES`` and the gradient of :func:`_padded`, in
    one jitted program (float64): one compile, not one per eager primitive (read-only)."""

    def program(x):
        out = {name: jax.hessian(_pool(*pool))(x) for name, pool in POOLS.items()}
        return out | {"padded-gradient": jax.grad(_padded)(x)}

    with jax.enable_x64(True):
        found = jax.jit(program)(TIES)
    out = {name: np.array(a) for name, a in found.items()}
    for a in out.values():
        a.flags.writeable = False
    return out


@pytest.mark.parametrize("name", list(POOLS))
def test_pooling_hessian_equals_jax_at_ties(name):
    f = _pool(*POOLS[name])
    with jax.enable_x64(True):
        jaxpr = str(jax.make_jaxpr(jax.grad(f))(TIES))
    want = _references()[name]
    assert "select_and_scatter_add" in jaxpr and np.isfinite(want).all() and want.any()
    H = dgraph.hessian(f, TIES)
    np.testing.assert_allclose(H(TIES), want, atol=1e-13)
    # padding is never a value: the program is finite. Where a window's maximum is tied
    # (all but the disjoint windows at TIES) the gradient jumps between the tied entries:
    # no Hessian there, JAX's values not verified (session 64)
    assert H.generated.verified is (name == "max-disjoint")


def test_padded_max_pooling_gradient_is_checked_and_windows_of_padding_alone_are_jax_s():
    """SAME padding: the padding (XLA's -inf) is never chosen, so the program is finite
    and its code checked (it was "NOT verified": not finite at any point): at the random
    point it agrees with JAX's; at TIES, where windows' maxima are tied and the gradient
    is JAX's share of each tie, not a derivative (session 65), it is not verified. A
    window of padding alone is -inf, as JAX's."""

    from dgraph.frontends import from_jax

    J = dgraph.make_function(from_jax(_padded, TIES, level="array"), "jacobian")
    want = _references()["padded-gradient"]
    np.testing.assert_allclose(np.ravel(J(TIES)), want, atol=1e-14)
    detail = J.generated.check.detail
    assert J.generated.verified is False and "is at its break there" in detail, detail
    assert "agrees with JAX's jvp at a random point" in detail

    def alone(x):  # windows of padding alone at the right edge: -inf, as JAX
        return lax.reduce_window(x, -jnp.inf, lax.max, (1,), (2,), ((0, 3),))

    g = from_jax(alone, TIES[:4], level="array")
    with jax.enable_x64(True):
        np.testing.assert_array_equal(
            dgraph.make_function(g, "value_and_jacobian")(TIES[:4])[0], alone(TIES[:4])
        )
