"""``scipy.signal.lfilter`` and ``filtfilt`` whose coefficients ``a`` (or ``zi``) depend on
the inputs, or of n-d data along an axis: one loop region (dgraph/frontends/scipy_iir.py),
each Jacobian against ``jax.jacfwd`` of the same filter written with ``lax.scan``
(tests/hostile and tests/test_hostile.py have the refusals)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

import dgraph

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _jacobian(f, point):
    """dgraph's Jacobian of ``f`` at ``point`` (verified), all inputs as columns, and its
    graph's size."""
    es = dgraph.jacobian(f, point=point)
    assert es.verified
    flat = np.concatenate([np.ravel(p) for p in point])
    return np.asarray(es.evaluate(flat), dtype=float), len(es.graph)


def _jax(f, point):
    """JAX's Jacobian of ``f`` (its outputs flattened and joined) at ``point``, compiled."""

    def flat(*args):
        out = f(*args)
        return jnp.concatenate([jnp.ravel(o) for o in (out if isinstance(out, tuple) else [out])])

    with jax.enable_x64(True):
        args = [jnp.asarray(p) for p in point]
        blocks = jax.jit(jax.jacfwd(flat, argnums=tuple(range(len(point)))))(*args)
    return np.hstack([np.asarray(b).reshape(b.shape[0], -1) for b in blocks])


def _df2t(b, a, x, zi=None):
    """scipy's lfilter along axis 0 (transposed direct form II) by ``lax.scan``: (y, zf)."""
    k = max(len(a), len(b))
    b = jnp.concatenate([b, jnp.zeros(k - len(b))]) / a[0]
    a = jnp.concatenate([a, jnp.zeros(k - len(a))]) / a[0]
    column = (k - 1,) + (1,) * (x.ndim - 1)
    zi = jnp.zeros((k - 1, *x.shape[1:])) if zi is None else zi

    def step(z, xt):
        y = b[0] * xt + z[0]
        later = jnp.concatenate([z[1:], jnp.zeros((1, *xt.shape))])
        return b[1:].reshape(column) * xt + later - a[1:].reshape(column) * y, y

    zf, y = jax.lax.scan(step, zi, x)
    return y, zf


def test_lfilter_of_traced_coefficients_along_an_axis_is_one_loop():
    """``lfilter(b, a, x, axis=1)`` with ``b``, ``a`` and a 4×L ``x`` traced (was refused:
    a traced ``a``, an n-d ``x``): scipy's exact columns (the filter is linear in ``b``
    and ``x``; ``Σ a_j y[n−j] = Σ b_j x[n−j]`` gives ``∂y/∂a_k = −lfilter(e_k, a, y)``);
    the graph's size does not grow with L."""
    rng = np.random.default_rng(5)
    b, a, x = rng.normal(size=3), np.array([1.2, -0.5, 0.2, 0.1]), rng.normal(size=(4, 6))

    def f(b, a, x):
        return scipy.signal.lfilter(b, a, x, axis=1)

    found, size = _jacobian(f, [b, a, x])
    y = f(b, a, x)
    columns = [f(e, a, x) for e in np.eye(3)] + [-f(e, a, y) for e in np.eye(4)]
    columns += [f(b, a, e.reshape(4, 6)) for e in np.eye(24)]
    expected = np.stack([np.ravel(c) for c in columns], axis=1)
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-13)
    longer = dgraph.from_function(f, point=[b, a, rng.normal(size=(4, 40))], level="array")
    assert len(longer) == size


def test_lfilter_from_initial_delays_returns_y_and_zf():
    """``lfilter(..., axis=-2, zi=zi)`` of traced taps, denominator, data and delays: both
    ``y`` and ``zf`` (JAX's), and the values scipy's own."""
    rng = np.random.default_rng(6)
    b, a = rng.normal(size=4), np.array([1.0, -0.6, 0.25])
    x, zi = rng.normal(size=(7, 2)), rng.normal(size=(3, 2))

    def f(b, a, x, zi):
        return scipy.signal.lfilter(b, a, x, axis=-2, zi=zi)

    found, _ = _jacobian(f, [b, a, x, zi])
    np.testing.assert_allclose(found, _jax(_df2t, [b, a, x, zi]), rtol=0, atol=1e-13)

    def joined(b, a, x, zi):
        return np.concatenate([np.ravel(v) for v in f(b, a, x, zi)])

    made = dgraph.make_function(joined, "value_and_jacobian", point=[b, a, x, zi])
    value, _ = made(b, a, x, zi)
    expected = np.concatenate([np.ravel(v) for v in scipy.signal.lfilter(b, a, x, 0, zi)])
    np.testing.assert_allclose(value, expected, rtol=0, atol=1e-14)
    start = zi[:, 0].copy()  # constant delays, traced taps of 1-d data: the loop too

    def taps(b, x):
        return scipy.signal.lfilter(b, a, x, zi=start)[0]

    made = dgraph.make_function(taps, "value_and_jacobian", point=[b, x[:, 0]])
    np.testing.assert_allclose(made(b, x[:, 0])[0], taps(b, x[:, 0]), rtol=0, atol=1e-14)


def test_filtfilt_of_traced_coefficients_is_forward_then_backward():
    """``filtfilt(b, a, x)`` of traced ``b`` and ``a`` (was refused): JAX's, with scipy's
    odd extension and ``lfilter_zi`` solved as scipy solves it (``I − Aᵀ``)."""
    rng = np.random.default_rng(7)
    b, a, x = rng.normal(size=3), np.array([1.0, -0.4, 0.3]), rng.normal(size=10)

    def twin(b, a, x):
        bn, an = b / a[0], a / a[0]
        companion = jnp.zeros((2, 2)).at[0].set(-an[1:]).at[1, 0].set(1.0)
        zi = jnp.linalg.solve(jnp.eye(2) - companion.T, bn[1:] - an[1:] * bn[0])
        ext = jnp.concatenate([2 * x[0] - x[9:0:-1], x, 2 * x[-1] - x[-2:-11:-1]])
        y = _df2t(b, a, ext, zi * ext[0])[0][::-1]
        return _df2t(b, a, y, zi * y[0])[0][::-1][9:-9]

    found, _ = _jacobian(lambda b, a, x: scipy.signal.filtfilt(b, a, x), [b, a, x])
    np.testing.assert_allclose(found, _jax(twin, [b, a, x]), rtol=0, atol=1e-12)
