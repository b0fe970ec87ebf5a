"""Readers the session-61 survey left (benchmarks/programs_survey: ``cds``, ``conv2d``,
``warp``, ``lfilt``), each Jacobian against ``jax.jacfwd`` of the same program in JAX;
and a ``make_function`` of a function closed over at a trip count saying so in its
graph and in every generated module's title (tests/hostile and tests/test_hostile.py
have the refusals)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

import dgraph

jax = pytest.importorskip("jax")
jnp = jax.numpy

PILLARS = np.array([1.0, 2.0, 3.0, 5.0])
DT = 0.5


def _jacobian(f, point):
    """dgraph's Jacobian of ``f`` at ``point`` (verified), all inputs as columns."""
    es = dgraph.jacobian(f, point=point)
    assert es.verified
    return np.asarray(es.evaluate(np.concatenate([np.ravel(p) for p in point])), dtype=float)


def _jax(f, point):
    """JAX's Jacobian of ``f`` at ``point`` (compiled: op by op costs seconds), all
    inputs as columns."""
    with jax.enable_x64(True):
        args = [jnp.asarray(p) for p in point]
        blocks = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(point)))))(*args)
    rows = np.size(blocks[0]) // np.size(point[0])
    return np.hstack([np.asarray(b).reshape(rows, -1) for b in blocks])


def test_positions_from_a_modules_constants_are_constants():
    """``(P / dt).astype(int)`` of a module's array ``P`` held its numbers but cast to a
    traced integer, so a gather at it was refused as a data-dependent index (cds)."""

    def spreads(h, xp=np):
        t = np.arange(1, 11) * DT
        lam = h[np.searchsorted(PILLARS, t - 1e-9)]
        idx = (PILLARS / DT).astype(int) - 1
        return xp.cumsum(xp.exp(-xp.cumsum(lam * DT)))[idx]

    h = np.array([0.01, 0.02, 0.015, 0.03])
    expected = _jax(lambda h: spreads(h, jnp), [h])
    np.testing.assert_allclose(_jacobian(spreads, [h]), expected, rtol=0, atol=1e-14)


def test_convolve2d_of_two_traced_arrays_is_jaxs():
    """scipy.signal.convolve2d / correlate2d of an image and a kernel both traced (was the
    generic conversion line): modes same, full and valid of an even kernel, against
    jax.scipy.signal's."""
    rng = np.random.default_rng(1)
    img, k = rng.normal(size=(5, 4)), rng.normal(size=(2, 3))

    def three(a, b, signal):
        same = signal.convolve2d(a, b, "same")
        return (same, signal.correlate2d(a, b, "full"), signal.convolve2d(a, b, "valid"))

    def flat(a, b, signal):
        return jnp.concatenate([jnp.ravel(r) for r in three(a, b, signal)])

    expected = _jax(lambda a, b: flat(a, b, jax.scipy.signal), [img, k])
    found = _jacobian(lambda a, b: three(a, b, scipy.signal), [img, k])
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-13)


def test_convolve2d_boundaries_are_scipys():
    """Boundaries JAX has not (wrap, symm): the value is linear in the image, so J·image
    is scipy's own result."""
    rng = np.random.default_rng(2)
    img, k = rng.normal(size=(4, 5)), rng.normal(size=(3, 2))

    def f(a):
        wrap = scipy.signal.correlate2d(a, k, "same", boundary="wrap")
        return wrap, scipy.signal.convolve2d(a, k, "full", boundary="symm")

    found = _jacobian(f, [img]) @ img.ravel()
    np.testing.assert_allclose(found, np.concatenate([np.ravel(r) for r in f(img)]), atol=1e-13)


def _warp(d, img, xp):
    """A bilinear warp as users write it: clip, then floor; the far neighbour bounded by
    np.minimum (rows) or by the clip's 1.001 (columns)."""
    n = img.shape[0]
    yy, xx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    y, x = xp.clip(yy + d[0], 0.0, n - 1), xp.clip(xx + d[1], 0.0, n - 1.001)
    y0, x0 = xp.floor(y).astype(int), xp.floor(x).astype(int)
    y1, x1 = xp.minimum(y0 + 1, n - 1), x0 + 1
    wy, wx = y - y0, x - x0
    top = (1 - wx) * img[y0, x0] + wx * img[y0, x1]
    return (1 - wy) * top + wy * ((1 - wx) * img[y1, x0] + wx * img[y1, x1])


def test_a_bilinear_warp_clipped_before_the_floor_reads():
    """``img[y0, x0]`` at ``np.floor(np.clip(y, 0, n - 1))``: provably in range (was
    refused; tests/test_hostile.py: an index past the axis still is)."""
    rng = np.random.default_rng(3)
    d, img = 0.8 * rng.normal(size=(2, 4, 4)), rng.uniform(size=(4, 4))
    expected = _jax(lambda d, i: _warp(d, i, jnp), [d, img])
    found = _jacobian(lambda d, i: _warp(d, i, np), [d, img])
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-14)


def test_lfilter_of_traced_taps_is_the_fir_then_the_iir():
    """``lfilter(b, a, x)`` with ``b`` traced and ``a`` constant (was refused)."""
    a = np.array([2.0, -1.2, 0.5])
    rng = np.random.default_rng(4)
    b, x = rng.normal(size=3), rng.normal(size=8)

    def iir(b, x):  # the recurrence, as JAX reads it
        v, y = jnp.convolve(b, x)[: x.shape[0]], []
        for i in range(x.shape[0]):
            y.append((v[i] - sum(a[k] * y[i - k] for k in (1, 2) if i >= k)) / a[0])
        return jnp.stack(y)

    found = _jacobian(lambda b, x: scipy.signal.lfilter(b, a, x), [b, x])
    np.testing.assert_allclose(found, _jax(iir, [b, x]), rtol=0, atol=1e-14)


def _steps(y, n, xp=np):
    for _ in range(n):
        y = y + 0.1 * xp.sin(y) * y[::-1]
    return xp.sum(y**2)


def test_make_functions_graph_and_c_title_say_the_fixed_value():
    """make_function of a trip count closed over: its graph's fixed_parameters (was {}),
    and the Hessian's C values file names the value in its title as the Python modules
    do (was: neither)."""
    y = np.array([0.3, 0.7])
    made = dgraph.make_function(_steps, "hessian", "c", point=[y, 3], params=["n"])
    g = made.generated
    assert g.graph.fixed_parameters == {"n": 3}
    assert "read at n = 3, which fixes the program's structure" in g.text.split("\n", 1)[0]
    with jax.enable_x64(True):
        expected = jax.jit(jax.hessian(lambda y: _steps(y, 3, jnp)))(jnp.asarray(y))
    np.testing.assert_allclose(made(y, 3), expected, rtol=0, atol=1e-13)
