"""``scipy.signal.lfilter`` and ``filtfilt`` whose coefficients ``a`` (or ``zi``) depend on
the inputs, or of n-d data along an axis: one loop region (dgraph/frontends/scipy_iir.py),
each Jacobian against scipy's own filter: its values at unit vectors where it is linear,
central differences in ``a`` (tests/hostile and tests/test_hostile.py have the
refusals)."""

from __future__ import annotations

import numpy as np
import scipy.signal

import dgraph


def _jacobian(f, point):
    """dgraph's Jacobian of ``f`` at ``point`` (verified), all inputs as columns, and its
    graph's size."""
    es = dgraph.jacobian(f, point=point)
    assert es.verified
    flat = np.concatenate([np.ravel(p) for p in point])
    return np.asarray(es.evaluate(flat), dtype=float), len(es.graph)


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
    """``lfilter(..., axis=-2, zi=zi)`` of traced taps, denominator, data and delays (was
    refused): both ``y`` and ``zf``; they are affine in ``b`` and linear in ``x`` and
    ``zi``, so those columns are scipy's own differences at unit vectors, and ``a``'s
    are central differences of scipy's (fourth order). The values are scipy's too, also
    of constant delays with traced taps of 1-d data (a loop as well)."""
    rng = np.random.default_rng(6)
    b, a = rng.normal(size=4), np.array([1.0, -0.6, 0.25])
    x, zi = rng.normal(size=(7, 2)), rng.normal(size=(3, 2))

    def f(b, a, x, zi):
        return np.concatenate([np.ravel(v) for v in scipy.signal.lfilter(b, a, x, -2, zi)])

    found, _ = _jacobian(f, [b, a, x, zi])
    base = f(0 * b, a, x, zi)
    columns = [f(e, a, x, zi) - base for e in np.eye(4)]
    for e in np.eye(3) * 1e-3:
        columns.append((8 * (f(b, a + e, x, zi) - f(b, a - e, x, zi))
                        - (f(b, a + 2 * e, x, zi) - f(b, a - 2 * e, x, zi))) / 12e-3)  # fmt: skip
    columns += [f(b, a, e.reshape(7, 2), 0 * zi) for e in np.eye(14)]
    columns += [f(b, a, 0 * x, e.reshape(3, 2)) - f(0 * b, a, 0 * x, 0 * zi) for e in np.eye(6)]
    expected = np.stack(columns, axis=1)
    np.testing.assert_allclose(found[:, :4], expected[:, :4], rtol=0, atol=1e-13)
    np.testing.assert_allclose(found[:, 4:7], expected[:, 4:7], rtol=0, atol=1e-9)
    np.testing.assert_allclose(found[:, 7:], expected[:, 7:], rtol=0, atol=1e-13)
    taps_only = [0.5, -0.2, 0.1]  # a keyword's traced array alone (was scipy's own call)

    def delays(zi):
        return scipy.signal.lfilter(taps_only, a, x[:, 0], zi=zi)[1]

    found, _ = _jacobian(delays, [zi[:2, 0]])
    units = np.stack([delays(e) - delays(0 * e) for e in np.eye(2)], axis=1)
    np.testing.assert_allclose(found, units, rtol=0, atol=1e-14)
    start = zi[:, 0].copy()

    def taps(b, x):
        return scipy.signal.lfilter(b, a, x, zi=start)[0]

    made = dgraph.make_function(taps, "value_and_jacobian", point=[b, x[:, 0]])
    np.testing.assert_allclose(made(b, x[:, 0])[0], taps(b, x[:, 0]), rtol=0, atol=1e-14)


def test_filtfilt_of_traced_coefficients_is_forward_then_backward():
    """``filtfilt(b, a, x)`` of traced ``b`` and ``a`` (was refused): linear in ``x``, so
    those columns are scipy's values at unit vectors; ``b``'s and ``a``'s are central
    differences of scipy's own (fourth order: scipy solves ``lfilter_zi``'s system)."""
    rng = np.random.default_rng(7)
    b, a, x = rng.normal(size=3), np.array([1.0, -0.4, 0.3]), rng.normal(size=10)
    f = scipy.signal.filtfilt
    found, _ = _jacobian(lambda b, a, x: f(b, a, x), [b, a, x])
    columns = []
    for e in np.eye(6) * 1e-3:
        p, q = (b + e[:3], a + e[3:]), (b - e[:3], a - e[3:])
        pp, qq = (b + 2 * e[:3], a + 2 * e[3:]), (b - 2 * e[:3], a - 2 * e[3:])
        columns.append((8 * (f(*p, x) - f(*q, x)) - (f(*pp, x) - f(*qq, x))) / 12e-3)
    columns += [f(b, a, e) for e in np.eye(10)]
    expected = np.stack(columns, axis=1)
    np.testing.assert_allclose(found[:, :6], expected[:, :6], rtol=0, atol=1e-9)
    np.testing.assert_allclose(found[:, 6:], expected[:, 6:], rtol=0, atol=1e-13)


def test_sosfilt_of_traced_sections_is_a_cascade_of_loops():
    """``sosfilt(sos, x, axis=1, zi=zi)`` of traced sections (was refused): x's and zi's
    columns exact (linear), the sections' by central differences of scipy's own (its
    ``a0`` entries, which scipy requires to be 1, not differenced)."""
    sos = scipy.signal.butter(4, 0.3, output="sos")
    rng = np.random.default_rng(9)
    x, zi = rng.normal(size=(2, 6)), rng.normal(size=(2, 2, 2))

    def f(sos, x, zi):
        return np.concatenate([np.ravel(v) for v in scipy.signal.sosfilt(sos, x, 1, zi)])

    found, _ = _jacobian(f, [sos, x, zi])
    moved = [k for k in range(12) if k % 6 != 3]
    columns = []
    for k in moved:
        e = np.zeros(12)
        e[k] = 1e-3
        p, q = (sos + e.reshape(2, 6), sos - e.reshape(2, 6))
        pp, qq = (sos + 2 * e.reshape(2, 6), sos - 2 * e.reshape(2, 6))
        columns.append((8 * (f(p, x, zi) - f(q, x, zi)) - (f(pp, x, zi) - f(qq, x, zi))) / 12e-3)
    np.testing.assert_allclose(found[:, moved], np.stack(columns, 1), rtol=0, atol=1e-9)
    linear = [f(sos, e.reshape(2, 6), 0 * zi) for e in np.eye(12)]
    linear += [f(sos, 0 * x, e.reshape(2, 2, 2)) for e in np.eye(8)]
    np.testing.assert_allclose(found[:, 12:], np.stack(linear, 1), rtol=0, atol=1e-13)
