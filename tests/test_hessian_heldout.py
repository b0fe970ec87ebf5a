"""Held-out optimization objectives as users write them in NumPy (session 41,
``benchmarks/hessian_heldout/``): a banded residual built from zero-padded shifts
(BROYDNBD), the COPS torsion functional on a padded grid, a trust-region model with a
``scipy.sparse`` product, a Lagrangian with a zero weight and an augmented Lagrangian's
positive part. dgraph's sparse Hessian equals ``jax.hessian`` and stores exactly the
structurally nonzero entries (for the last two: also those that are zero only at the
point of the build, or only for the weights of the build)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def _points(n, k=2):
    return [0.4 * np.random.default_rng(s).uniform(-1, 1, n) for s in range(k)]


def _true(f, pts):
    refs = [np.asarray(jref.hessian(f)(p)) for p in pts]
    return refs, int(sum(r != 0 for r in refs).astype(bool).sum())


def broydnbd(x, xp=np):
    """BROYDNBD: r_i = x_i (2 + 5 x_i²) + 1 - Σ_{j in band} x_j (1 + x_j), band of 5
    below and 1 above, read through a zero-padded copy of x."""
    n = x.shape[0]
    z = xp.concatenate([xp.zeros(5), x, xp.zeros(1)])
    s = xp.zeros(n)
    for k in range(1, 6):
        s = s + z[5 - k : 5 - k + n] * (1.0 + z[5 - k : 5 - k + n])
    s = s + z[6 : 6 + n] * (1.0 + z[6 : 6 + n])
    r = x * (2.0 + 5.0 * x**2) + 1.0 - s
    return xp.sum(r**2)


def torsion(x, xp=np):
    """COPS elastic-plastic torsion on a k×k grid (zero boundary by np.pad), the bound
    |v| <= 1 as a log barrier."""
    k = round(x.shape[0] ** 0.5)
    h = 1.0 / (k + 1)
    v = xp.pad(x.reshape(k, k), 1)
    dxl = (v[1:, :-1] - v[:-1, :-1]) / h
    dyl = (v[:-1, 1:] - v[:-1, :-1]) / h
    dxu = (v[1:, 1:] - v[:-1, 1:]) / h
    dyu = (v[1:, 1:] - v[1:, :-1]) / h
    quad = 0.25 * h**2 * (xp.sum(dxl**2 + dyl**2) + xp.sum(dxu**2 + dyu**2))
    return quad - 5.0 * h**2 * xp.sum(x) - 1e-3 * xp.sum(xp.log(1.0 - x**2))


@pytest.mark.parametrize("f, n", [(broydnbd, 20), (torsion, 25)], ids=["broydnbd", "torsion"])
def test_numpy_objective_sparse_hessian_exact(f, n):
    pts = _points(n)
    refs, true = _true(lambda x: f(x, jnp), pts)
    H = dgraph.hessian(f, pts[0], sparse=True)
    for p, ref in zip(pts, refs, strict=True):
        got = H(p)
        assert got.nnz == true
        np.testing.assert_allclose(got.toarray(), ref, rtol=1e-10, atol=1e-10)


def test_trust_region_model_with_scipy_sparse_product():
    """g·x + ½ xᵀ(A x) + ¼ Σ x⁴ with A a scipy.sparse tridiagonal: H = (A + Aᵀ)/2 +
    diag(3x²), 3n - 2 entries."""
    n = 30
    A = scipy.sparse.diags([-np.ones(n - 1), 2.5 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    A = A.tocsr()
    g = np.linspace(-1.0, 1.0, n)

    def f(x):
        return g @ x + 0.5 * (x @ (A @ x)) + 0.25 * np.sum(x**4)

    x = _points(n, 1)[0]
    H = dgraph.hessian(f, x, sparse=True)(x)
    assert H.nnz == 3 * n - 2
    np.testing.assert_allclose(H.toarray(), A.toarray() + np.diag(3 * x**2), rtol=1e-12)


def test_lagrangian_built_with_a_zero_weight_keeps_its_entries():
    """A zero weight zeroes its constraint's entries for those weights only: H(x, v)
    takes other weights, so the pattern keeps them (and a later v gives JAX's values)."""

    def c(x, xp=np):
        return x[:-2] ** 2 * x[1:-1] + xp.sin(x[1:-1] - x[2:]) - xp.exp(x[2:]) * x[:-2]

    n = 12
    x = _points(n, 1)[0]
    w0 = np.linspace(-1.0, 1.0, n - 2)
    w0[3] = 0.0
    w1 = 0.5 + np.cos(np.arange(n - 2))
    H = dgraph.hessian(c, x, weights=w0, sparse=True)
    ref = np.asarray(jref.hessian(lambda y: jnp.dot(w1, c(y, jnp)))(x))
    got = H(x, w1)
    assert got.nnz == int((ref != 0).sum()) == 5 * n - 6
    np.testing.assert_allclose(got.toarray(), ref, rtol=1e-10, atol=1e-12)


def test_positive_part_pattern_is_structural():
    """An augmented Lagrangian's max(0, λ + ρ g)²: built where every constraint is
    inactive, its Hessian is still right where every one is active."""

    def auglag(x, xp=np):
        lam = 0.5 + 0.1 * xp.arange(x.shape[0] - 1) / x.shape[0]
        g = 0.1 - x[:-1] - x[1:]
        return xp.sum(x**2) + xp.sum(xp.maximum(0.0, lam + 10.0 * g) ** 2 - lam**2) / 20.0

    n = 10
    H = dgraph.hessian(auglag, np.full(n, 1.0), sparse=True)  # all inactive
    reference = jref.hessian(lambda y: auglag(y, jnp))
    for x in (np.full(n, -1.0), np.full(n, 1.0)):
        ref = np.asarray(reference(x))
        np.testing.assert_allclose(H(x).toarray(), ref, rtol=1e-12, atol=1e-12)
    assert H(np.full(n, -1.0)).nnz == 3 * n - 2
