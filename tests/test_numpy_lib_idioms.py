"""NumPy library idioms traced at the array level (benchmarks/real_programs12.py):
``np.piecewise``, ``np.take_along_axis`` (constant indices, and the positions of
``np.argsort`` of the same array), ``np.lib.stride_tricks.sliding_window_view`` and
``np.apply_along_axis``; every Jacobian against JAX's of a jnp transcription."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from tests import jax_reference as jref

jax.config.update("jax_enable_x64", True)


def _jacobian(f, x, method):
    """The Jacobian made with ``method``: the one make_function's choice gives each program
    (the same generated text; the choice is codegen's, tests/test_codegen_choice.py), so
    that the tests do not build and cost every candidate's program (the Hessians below
    name theirs too)."""
    made = dgraph.make_function(f, "jacobian", point=[x], method=method)
    try:
        return np.asarray(made(x))
    except ValueError:  # a graph of scalars: one flat vector
        return np.asarray(made(x.ravel()))


def _check(f, ref, x, method):
    got = _jacobian(f, x, method)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(x)))
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-10, atol=1e-12)


def morse(r):
    rc = 2.0
    return np.piecewise(r, [r < rc, r >= rc], [lambda s: (1 - np.exp(-1.5 * (s - 1.0))) ** 2, 0.0])


def morse_ref(r):
    return jnp.where(r < 2.0, (1 - jnp.exp(-1.5 * (r - 1.0))) ** 2, 0.0)


def ramp(x):  # one function more than conditions: the last where none holds; later wins
    return np.piecewise(x, [x < -0.5, x > 0.0, x > 0.5], [0.0, np.sin, lambda t: t**3, np.cos])


def ramp_ref(x):
    out = jnp.cos(x)
    for cond, value in ((x < -0.5, 0.0 * x), (x > 0.0, jnp.sin(x)), (x > 0.5, x**3)):
        out = jnp.where(cond, value, out)
    return out


def test_piecewise_of_a_computed_condition():
    r = np.array([0.7, 1.2, 1.9, 2.3, 3.0])
    _check(morse, morse_ref, r, "symbolic")
    H = dgraph.hessian(lambda r: np.sum(morse(r)), r, method="markowitz")(r)
    want = jref.hessian(lambda r: jnp.sum(morse_ref(r)))(jnp.asarray(r))
    np.testing.assert_allclose(H, want, rtol=1e-10, atol=1e-12)


def test_piecewise_order_and_otherwise():
    _check(ramp, ramp_ref, np.array([-1.0, -0.3, 0.2, 0.4, 0.7, 1.1]), "symbolic")


def trimmed(X):
    S = np.take_along_axis(X, np.argsort(X, axis=1), axis=1)
    return np.exp(S[:, 1:-1]).mean(axis=1)


def trimmed_ref(X):
    return jnp.exp(jnp.sort(X, axis=1)[:, 1:-1]).mean(axis=1)


def gathered(X):
    idx = np.array([[2, 0, 0], [1, 2, 1]])
    return np.sin(np.take_along_axis(X, idx, axis=1)) * np.take_along_axis(X, idx[:, :1], 1)


def gathered_ref(X):
    idx = np.array([[2, 0, 0], [1, 2, 1]])
    return jnp.sin(jnp.take_along_axis(X, idx, axis=1)) * jnp.take_along_axis(X, idx[:, :1], 1)


def sorted_vector(x):
    return np.take_along_axis(x, np.argsort(np.cos(x)), axis=0) * np.arange(1.0, 6.0)


def sorted_vector_ref(x):
    return x[jnp.argsort(jnp.cos(x))] * jnp.arange(1.0, 6.0)


def test_take_along_axis():
    X = np.array([[0.3, -1.2, 0.8, 0.1], [1.5, 0.2, -0.4, 0.9], [0.0, 0.6, -0.7, 1.1]])
    _check(trimmed, trimmed_ref, X, "forward")
    _check(gathered, gathered_ref, X[:2, :3], "forward")
    _check(sorted_vector, sorted_vector_ref, np.array([0.1, 2.0, -1.3, 0.7, 3.0]), "forward")


def rolling(x):
    win = np.lib.stride_tricks.sliding_window_view(x, 3)
    m = win.mean(axis=-1)
    return np.concatenate([m, np.sqrt(((win - m[:, None]) ** 2).mean(axis=-1) + 1e-3)])


def rolling_ref(x):
    win = x[np.arange(x.shape[0] - 2)[:, None] + np.arange(3)]
    m = win.mean(axis=-1)
    return jnp.concatenate([m, jnp.sqrt(((win - m[:, None]) ** 2).mean(axis=-1) + 1e-3)])


def windows_2d(X):
    return np.sum(np.lib.stride_tricks.sliding_window_view(X, (2, 2)) ** 2, axis=(-1, -2))


def windows_2d_ref(X):  # out[i, j] = sum of X[i + a, j + b] ** 2 over a, b in {0, 1}
    return sum(X[a : a + 2, b : b + 3] ** 2 for a in (0, 1) for b in (0, 1))


def test_sliding_window_view():
    _check(rolling, rolling_ref, np.array([0.3, -1.2, 0.8, 0.1, 1.5, 0.2]), "reverse")
    _check(windows_2d, windows_2d_ref, np.arange(12.0).reshape(3, 4) / 7, "forward")


XP = np.linspace(0.0, 1.0, 5)


def resampled(F):
    return np.apply_along_axis(lambda row: np.interp([0.1, 0.55, 0.9], XP, row) ** 2, 1, F)


def resampled_ref(F):
    return jax.vmap(lambda row: jnp.interp(jnp.array([0.1, 0.55, 0.9]), XP, row) ** 2)(F)


def column_norms(F):  # along axis 0, a scalar per column
    return np.apply_along_axis(lambda c: np.sqrt(np.sum(c**2)), 0, F)


def column_norms_ref(F):
    return jnp.sqrt(jnp.sum(F**2, axis=0))


def first_axis_pairs(F):  # along axis 0, a vector per column: its axis stays first
    return np.apply_along_axis(lambda c: np.stack([c[0] * c[1], np.sin(c[2])]), 0, F)


def first_axis_pairs_ref(F):
    return jnp.stack([F[0] * F[1], jnp.sin(F[2])])


def test_apply_along_axis():
    F = np.random.default_rng(3).normal(size=(3, 5))
    _check(resampled, resampled_ref, F[:2], "forward")
    _check(column_norms, column_norms_ref, F, "paths")
    _check(first_axis_pairs, first_axis_pairs_ref, F, "forward")


def reduced_piece(x):
    return np.piecewise(x, [x < 0.0], [lambda s: np.sum(s), 0.0])  # NumPy: the sum of x[x<0]


def piece_count(x):
    return np.piecewise(x, [x < 0.0], [np.sin, np.cos, np.exp])


def along_unbounded_positions(X):
    return np.take_along_axis(X, np.floor(3 * X).astype(int), axis=1)


@pytest.mark.parametrize(
    ("f", "needle"),
    [
        (reduced_piece, "elementwise functions are supported"),
        (piece_count, "1 conditions take 1 or 2 functions, not 3"),
        (along_unbounded_positions, "must be whole numbers bounded to the axis"),
    ],
)
def test_refused_in_one_line(f, needle):
    x = np.array([[-0.5, 0.3, 1.2], [0.4, -0.1, 0.8]])
    with pytest.raises(InputError, match=needle) as info:
        dgraph.make_function(f, "jacobian", point=[x])
    assert "\n" not in str(info.value)


def bounded_lookup(fp):  # interp of traced values: W·fp + c; c (left/right) scales the sum
    v = np.interp([-0.2, 0.3, 0.55, 1.4], XP, fp, left=2.0, right=-1.0)
    return v * np.sum(fp**2)


def bounded_lookup_ref(fp):
    v = jnp.interp(jnp.array([-0.2, 0.3, 0.55, 1.4]), XP, fp, left=2.0, right=-1.0)
    return v * jnp.sum(fp**2)


def test_interp_of_traced_values():
    _check(bounded_lookup, bounded_lookup_ref, np.array([0.3, -1.2, 0.8, 0.1, 1.5]), "forward")


def learned_lookup(z):  # a learned table: queries and the values both traced
    xq, fp = z[:4], z[4:]
    return np.interp(xq, XP, fp) ** 2 + np.interp(xq[::-1], XP, fp * xq[0], right=0.5)


def learned_lookup_ref(z):
    xq, fp = z[:4], z[4:]
    return jnp.interp(xq, XP, fp) ** 2 + jnp.interp(xq[::-1], XP, fp * xq[0], right=0.5)


def test_interp_of_traced_queries_and_values():
    """np.interp(xq, XP, fp), xq and fp both depending on the inputs (a spline's values
    learned, a survey program): refused ("numpy.interp with period=, or xp, fp, ... that
    depend on the inputs"); each segment's slope is affine in fp now. Queries inside,
    below and beyond XP, on a knot's left side."""
    z = np.concatenate([[0.05, 0.33, -0.3, 1.2], [0.3, -1.2, 0.8, 0.1, 1.5]])
    _check(learned_lookup, learned_lookup_ref, z, "reverse")


KNOTS = np.array([0.0, 0.2, 0.5, 0.7, 0.9, 1.0])
COEFFS = np.arange(20.0).reshape(4, 5) / 10


def spline(z):  # a piecewise cubic: each query's segment by searchsorted, clipped
    c, xq = z[:5], z[5:]
    i = np.clip(np.searchsorted(KNOTS, xq) - 1, 0, 4)
    t = xq - KNOTS[i]  # a module's constant table at those positions
    cell = np.clip(np.floor(xq * 5), 0, 4).astype(int)
    return c[i] + t * (COEFFS[1, i] + t * np.take(COEFFS[2], i)) + c[cell] * t**3


def spline_ref(z):
    c, xq = z[:5], z[5:]
    knots, coeffs = jnp.asarray(KNOTS), jnp.asarray(COEFFS)
    i = jnp.clip(jnp.searchsorted(knots, xq) - 1, 0, 4)
    t = xq - knots[i]
    cell = jnp.clip(jnp.floor(xq * 5), 0, 4).astype(int)
    return c[i] + t * (coeffs[1, i] + t * jnp.take(coeffs[2], i)) + c[cell] * t**3


def test_a_spline_reads_tables_at_positions_from_searchsorted():
    """np.searchsorted's segment, clipped to the table (and np.floor's cell, clipped),
    indexes a traced array (c[i]) and a module's constant ones (KNOTS[i], COEFFS[1, i],
    np.take(COEFFS[2], i)): refused ("converting an array that depends on the inputs to
    a NumPy array", "supported at positions from np.argmax, np.argmin or np.argsort");
    positions bounded to the axis are a take_dynamic now (of a constant: a passive value).
    Unbounded ones stay refused. Jacobian and Hessian against JAX."""
    z = np.concatenate([[0.3, -1.2, 0.8, 0.1, 1.5], [0.1, 0.55, 0.95, -0.2, 1.3]])
    _check(spline, spline_ref, z, "reverse")  # the array level: take_dynamic has no element level
    H = dgraph.hessian(lambda z: np.sum(spline(z) ** 2), z, method="markowitz")(z)
    want = jref.hessian(lambda z: jnp.sum(spline_ref(z) ** 2))(jnp.asarray(z))
    np.testing.assert_allclose(H, want, rtol=1e-10, atol=1e-12)
    for unbounded in (lambda x: x * x[np.searchsorted(KNOTS, x) - 1],
                      lambda x: x * KNOTS[np.floor(x).astype(int)]):  # fmt: skip
        with pytest.raises(InputError, match="supported"):
            dgraph.from_function(unbounded, sizes=[(3,)], level="array")


def bilinear(z, xp=np):  # an image sampled at points: its cell by np.floor, clipped
    img, pts = z[:25].reshape(5, 5), z[25:].reshape(3, 2)
    x, y = pts[:, 0], pts[:, 1]
    i = xp.clip(xp.floor(x), 0, 3).astype(int)
    j = xp.clip(xp.floor(y), 0, 3).astype(int)
    tx, ty = x - i, y - j
    top = img[i, j] * (1 - tx) + img[i + 1, j] * tx
    return top * (1 - ty) + (img[i, j + 1] * (1 - tx) + img[i + 1, j + 1] * tx) * ty


def test_an_image_read_at_cells_from_np_floor():
    """img[i, j] at cells np.floor finds, clipped (bilinear sampling, survey40): refused
    ("supported along one axis ..., not at several (x[i, j])"); with every axis bounded
    it is the flat image at i·n + j. A cell past the last column stays refused (NumPy
    would raise at run time, a flat read would take the next row)."""
    z = np.concatenate([np.linspace(-1.0, 1.0, 25) ** 3, [0.3, 1.6, 2.2, 3.7, 3.5, 0.4]])
    _check(bilinear, lambda z: bilinear(z, jnp), z, "reverse")

    def past_the_last_column(u):  # i·5 + j within the 25 entries, j not within 5
        i, j = (np.clip(np.floor(u[k]), 0, 3).astype(int) for k in (0, 1))
        return u[i, j + 2] * u[2]

    with pytest.raises(InputError, match="not at several"):
        dgraph.from_function(past_the_last_column, sizes=[(5, 5)], level="array")
    with pytest.raises(InputError, match="not at several"):  # masks: NumPy's nonzero, not 0/1
        dgraph.from_function(lambda u: u[u[0] > 0, u[1] > 0], sizes=[(2, 2)], level="array")


def assembled(k):  # a 1-D stiffness assembly by np.ix_ into np.zeros, then a compliance
    n = k.shape[0]
    K = np.zeros((n + 1, n + 1))
    base = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for e in range(n):
        d = np.array([e, e + 1])
        K[np.ix_(d, d)] += k[e] * base
    picked = K[[0, 1]]  # a fancy read is a copy: writing into it leaves K as it was
    picked[0] = 5.0
    free = np.arange(1, n + 1)
    f = np.ones(n)
    return f @ np.linalg.solve(K[np.ix_(free, free)], f) + np.sum(picked)


def assembled_ref(k):
    n = k.shape[0]
    K = jnp.zeros((n + 1, n + 1))
    base = jnp.array([[1.0, -1.0], [-1.0, 1.0]])
    for e in range(n):
        d = np.array([e, e + 1])
        K = K.at[np.ix_(d, d)].add(k[e] * base)
    picked = K[jnp.array([0, 1])].at[0].set(5.0)
    free = np.arange(1, n + 1)
    f = jnp.ones(n)
    return f @ jnp.linalg.solve(K[np.ix_(free, free)], f) + jnp.sum(picked)


def test_ix_scatter_add_into_a_fresh_array():
    k = np.array([1.0, 1.5, 0.8, 1.2])
    _check(assembled, assembled_ref, k, "reverse")
    H = dgraph.hessian(assembled, k, method="reverse")(k)
    want = jref.hessian(assembled_ref)(jnp.asarray(k))
    np.testing.assert_allclose(H, want, rtol=1e-10, atol=1e-12 * np.abs(want).max())


def row_set(x):  # a constant into a row of a traced array: one update per position
    y = np.outer(x, x)
    y[0] = 5.0
    y[1:, 2] = -1.0
    return np.sum(y * y) + np.sum(np.sin(y))


def row_set_ref(x):
    y = jnp.outer(x, x).at[0].set(5.0).at[1:, 2].set(-1.0)
    return jnp.sum(y * y) + jnp.sum(jnp.sin(y))


def test_constant_into_several_positions():
    _check(row_set, row_set_ref, np.array([1.0, 2.0, 3.0, -0.5]), "reverse")
