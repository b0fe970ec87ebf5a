"""``x[mask]`` with a mask computed from the inputs in NumPy code (the NumPy tracer's
:class:`~dgraph.frontends.array_tracer.MaskedSelection`): written back (``y[y < 0] = 0``,
``y[m] = z[m]``, ``y[m] *= 2``, a Huber loss's ``out[big] = a[big] - 0.5``), combined
elementwise and reduced (``np.sum(x[x > 0] ** 2)``, ``np.mean``, ``max``, ``min``, ``var``,
``std``, ``np.dot`` of two selections, ``np.linalg.norm``); each Hessian against
JAX's of the same program written with ``jnp.where`` (the Hessian's graph holds the
gradient's), at points with entries on both sides of the mask. Before: refused
("positions that depend on the inputs", "a boolean mask … selects a number of entries
that depends on them"); ``np.where(c)``/``np.nonzero``/``np.flatnonzero`` as indices
("numpy.where with one argument ... is not supported")."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def clip_below(x):
    y = np.sin(x) - 0.2
    y[y < 0] = 0
    return np.sum(y**2 * x)


def clip_below_jax(x):
    y = jnp.sin(x) - 0.2
    return jnp.sum(jnp.where(y < 0, 0.0, y) ** 2 * x)


def copy_where(x):
    y = np.sin(x) - 0.2
    z = np.cos(x) * x
    m = y < 0
    y[m] = z[m]
    return np.sum(y**3)


def copy_where_jax(x):
    y = jnp.sin(x) - 0.2
    return jnp.sum(jnp.where(y < 0, jnp.cos(x) * x, y) ** 3)


def scale_in_place(x):
    y = x * x
    y[y > 1] *= 2.0
    y[x < 0] -= x[x < 0] ** 2  # a second mask, read from another array
    return np.sum(y * np.exp(0.1 * x))


def scale_in_place_jax(x):
    y = x * x
    y = jnp.where(y > 1, y * 2.0, y)
    y = jnp.where(x < 0, y - x**2, y)
    return jnp.sum(y * jnp.exp(0.1 * x))


def huber(x):
    r = np.tanh(x) * 3.0 - 0.5
    a = np.abs(r)
    out = 0.5 * r**2
    big = a > 1.0
    out[big] = a[big] - 0.5
    return np.sum(out)


def huber_jax(x):
    r = jnp.tanh(x) * 3.0 - 0.5
    a = jnp.abs(r)
    return jnp.sum(jnp.where(a > 1.0, a - 0.5, 0.5 * r**2))


def selected_moments(x):
    y = x * 1.0
    kept = y[y > 0]  # a copy, as NumPy's: the write below does not change it
    y[y > 0] = 0.0
    return np.sum(y**2) + np.sum(kept**3) + _moments(x)


def _moments(x):
    return np.sum(np.exp(x[x > 0.3]) ** 2) + np.mean(x[x < 0.3] ** 3) + (x[x > 0]).sum()


def selected_moments_jax(x):
    y = jnp.where(x > 0, 0.0, x)
    return jnp.sum(y**2) + jnp.sum(jnp.where(x > 0, x**3, 0.0)) + _moments_jax(x)


def _moments_jax(x):
    up, down = x > 0.3, x < 0.3
    mean = jnp.sum(jnp.where(down, x**3, 0.0)) / jnp.sum(down)
    return jnp.sum(jnp.where(up, jnp.exp(x) ** 2, 0.0)) + mean + jnp.sum(jnp.where(x > 0, x, 0))


def reductions(x):
    r = np.tanh(x) - 0.2
    m = r > 0
    return (
        np.max(r[m] ** 2) + r[m].min() + np.var(r[m]) + r[m].std(ddof=1)
        + np.dot(r[m], x[m]) + np.linalg.norm(r[m])
    )  # fmt: skip


def reductions_jax(x):
    r = jnp.tanh(x) - 0.2
    m = r > 0
    c = jnp.sum(m)
    mean = jnp.sum(jnp.where(m, r, 0)) / c
    squares = jnp.sum(jnp.where(m, (r - mean) ** 2, 0))
    return (
        jnp.max(jnp.where(m, r**2, -jnp.inf)) + jnp.min(jnp.where(m, r, jnp.inf))
        + squares / c + jnp.sqrt(squares / (c - 1))
        + jnp.sum(jnp.where(m, r * x, 0)) + jnp.sqrt(jnp.sum(jnp.where(m, r * r, 0)))
    )  # fmt: skip


def positions(x):
    """``np.where(c)``, ``np.nonzero(c)``, ``np.flatnonzero(c)`` as indices: ``x[c]``."""
    y = np.sin(x) - 0.2
    y[np.nonzero(y < 0)] = 0.0
    big = np.where(x > 0.5)
    return np.sum(y**2 * x) + np.sum(x[big] ** 3) + np.sum(np.cos(x[np.flatnonzero(x < 0)]))


def positions_jax(x):
    y = jnp.sin(x) - 0.2
    y = jnp.where(y < 0, 0.0, y)
    return (
        jnp.sum(y**2 * x) + jnp.sum(jnp.where(x > 0.5, x**3, 0.0))
        + jnp.sum(jnp.where(x < 0, jnp.cos(x), 0.0))
    )  # fmt: skip


CASES = [
    (positions, positions_jax),
    (clip_below, clip_below_jax),
    (copy_where, copy_where_jax),
    (scale_in_place, scale_in_place_jax),
    (huber, huber_jax),
    (selected_moments, selected_moments_jax),
    (reductions, reductions_jax),
]
X = np.array([-1.3, -0.4, 0.1, 0.45, 0.9, 1.6, 2.4])


@pytest.mark.parametrize(("f", "f_jax"), CASES, ids=[c[0].__name__ for c in CASES])
def test_masked_selections_against_jax(f, f_jax):
    H = dgraph.hessian(f, X)
    want = np.asarray(jref.hessian(f_jax)(jnp.asarray(X)))
    np.testing.assert_allclose(H(X), want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


def test_masked_selection_reads_nothing_else():
    """Its length, an index into it, another function of it, a write of an array or of
    another mask's selection: one line each, never NumPy's own error."""

    def other_mask(x):
        y = x * 1.0
        y[x > 0] = x[x < 0.5]
        return np.sum(y)

    def indexed(x):
        return x[x > 0][0]

    def attribute(x):
        return np.sum(x) * x[x > 0].shape[0]

    def counted(x):  # np.where(c)'s positions read as anything but an index
        return np.sum(x) * len(np.where(x > 0)[0])

    def sized(x):
        return np.sum(x) * np.nonzero(x > 0)[0].size

    def one_axis_of_two(x):
        M = np.reshape(x[:6], (2, 3))
        return np.sum(M[np.nonzero(M > 0)[0]])

    for f, words in [
        (counted, "read only as the index of an array of the mask's shape"),
        (sized, "read only as the index of an array of the mask's shape"),
        (one_axis_of_two, "read only as the index of an array of the mask's shape"),
        (other_mask, "two different masks"),
        (indexed, "selects a number of entries"),
        (attribute, ".shape of it is not read"),
    ]:
        with pytest.raises(DGraphError) as e:
            dgraph.hessian(f, X)
        assert words in str(e.value) and "\n" not in str(e.value)
