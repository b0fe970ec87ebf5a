"""``np.linalg.eigh`` and ``np.linalg.eigvalsh`` of a traced matrix: the eigenvalues and
vectors of the symmetric matrix its ``UPLO`` triangle spells (the entries LAPACK reads:
the other triangle has no derivative), the operations JAX's reader makes of
``jnp.linalg.eigh``. Hessians and gradients against ``jax.hessian``/``jax.grad`` of JAX
twins that spell the same matrix; reading the matrix symmetrized instead (what JAX's eigh
does, not NumPy's) is refused by the check at the user's point."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from dgraph.frontends import array_tracer  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def spectral(x):
    m = x.reshape(3, 3)
    vectors = np.linalg.eigh(m + 2 * np.eye(3), UPLO="U")[1]
    return np.sum(np.linalg.eigvalsh(m) ** 3) + np.sum(vectors[:, 0] ** 2 * np.arange(3))


def spectral_jax(x):
    m = x.reshape(3, 3)
    lower = jnp.tril(m) + jnp.tril(m, -1).T
    upper = jnp.triu(m) + jnp.triu(m, 1).T
    vectors = jnp.linalg.eigh(upper + 2 * jnp.eye(3))[1]
    return jnp.sum(jnp.linalg.eigvalsh(lower) ** 3) + jnp.sum(vectors[:, 0] ** 2 * jnp.arange(3))


POINT = np.random.default_rng(0).normal(size=9)  # not symmetric: the triangles differ


def test_eigh_and_eigvalsh_hessians_equal_jax():
    H = dgraph.hessian(spectral, POINT)
    assert H.generated.verified
    y = POINT + 0.05
    got = np.asarray(H(y)).reshape(9, 9)
    want = np.asarray(jref.hessian(spectral_jax)(y))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


def test_the_gradient_reads_one_triangle():
    """NumPy reads the lower triangle: the strict upper one of eigvalsh's matrix has a
    zero derivative (jnp.linalg.eigvalsh's symmetrizing would give half of the sum)."""

    def cubes(x):
        return np.sum(np.linalg.eigvalsh(x.reshape(3, 3)) ** 3)

    def cubes_jax(x):
        m = x.reshape(3, 3)
        return jnp.sum(jnp.linalg.eigvalsh(jnp.tril(m) + jnp.tril(m, -1).T) ** 3)

    g = dgraph.make_function(cubes, point=[POINT])
    got = np.ravel(g(POINT))
    assert np.all(got.reshape(3, 3)[np.triu_indices(3, 1)] == 0)
    np.testing.assert_allclose(got, jref.jacrev(cubes_jax)(POINT), rtol=1e-12, atol=1e-12)


def test_a_symmetrized_reading_is_refused(monkeypatch):
    monkeypatch.setattr(
        array_tracer, "_spelled", lambda a, uplo, what: 0.5 * (a + array_tracer._transpose(a))
    )
    with pytest.raises(DGraphError):
        dgraph.hessian(spectral, POINT)


def test_a_bad_uplo_is_one_line():
    with pytest.raises(DGraphError, match="UPLO must be 'L' or 'U'"):
        dgraph.make_function(
            lambda x: np.linalg.eigvalsh(x.reshape(2, 2), UPLO="X"), point=[np.ones(4)]
        )


def test_upper_eigenvectors_carry_lapacks_signs():
    """``eigh(a, "U")``'s vectors, read with their signs: LAPACK's for the upper triangle
    (not the lower triangle's of the same symmetric matrix); JAX's ``UPLO="U"`` alike."""
    weights = np.arange(9.0).reshape(3, 3)
    a = POINT.reshape(3, 3)

    def signed(m):
        return np.sum(np.linalg.eigh(m, "U")[1] * weights)

    g = dgraph.make_function(signed, point=[a])
    assert g.generated.verified is True
    steps = np.eye(9).reshape(9, 3, 3) * 1e-6
    want = [(signed(a + s) - signed(a - s)) / 2e-6 for s in steps]
    np.testing.assert_allclose(np.ravel(g(a)), want, atol=1e-7)

    def signed_jax(m):
        return jnp.sum(jnp.linalg.eigh(m, UPLO="U")[1] * weights)

    h = dgraph.make_function(signed_jax, point=[a])
    assert h.generated.verified is True
    np.testing.assert_allclose(h(a), jref.grad(signed_jax)(a), rtol=1e-12, atol=1e-12)
