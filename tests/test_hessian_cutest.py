"""Sparse Hessians of CUTEst problems, as asdex checks its Hessian sparsity detection
(adrhill/asdex ``tests/test_cutest.py``, ``test_hessian_sparsity_cutest``, on the
problems of ``EXPECTED_HESSIAN_NNZ``, defined in JAX by the sif2jax package). Each
problem here is written from its formula (sif2jax's ``cutest/_unconstrained_minimisation/
<name>.py``), at a small size: dgraph's sparse Hessian stores exactly the entries that
``jax.hessian`` finds nonzero at two random points, and its values equal those.
``benchmarks/cutest.py`` runs all 126 at sif2jax's sizes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402


def rosenbr(x):
    """ROSENBR: 100 (x2 - x1²)² + (1 - x1)² (two unknowns: 0-d intermediates)."""
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2


def beale(x):
    """BEALE: the sum over i = 1, 2, 3 of (c_i - x1 (1 - x2^i))², c = 1.5, 2.25, 2.625."""
    c = (1.5, 2.25, 2.625)
    return sum((c[i] - x[0] * (1.0 - x[1] ** (i + 1))) ** 2 for i in range(3))


def genrose(x):
    """GENROSE: 1 + Σ 100 (x_i - x_{i-1}²)² + (x_i - 1)² over i = 2..n (tridiagonal)."""
    return 1.0 + jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (x[1:] - 1.0) ** 2)


def qing(x):
    """QING: Σ (x_i² - i)² (diagonal)."""
    i = jnp.arange(1, x.shape[0] + 1, dtype=x.dtype)
    return jnp.sum((x**2 - i) ** 2)


def arglinb(x, m=8):
    """ARGLINB: Σ_{i=1..m} (i Σ_j j x_j - 1)², a rank-one quadratic (dense)."""
    j = jnp.arange(1, x.shape[0] + 1, dtype=x.dtype)
    i = jnp.arange(1, m + 1, dtype=x.dtype)
    return jnp.sum((i * jnp.dot(j, x) - 1.0) ** 2)


# AKIVA's first three observations (auto time, transit time, constant) and choices
# (1 transit, 2 auto): the negative log-likelihood of a binary logit.
_AKIVA_DATA = ((52.9, 4.4, 1.0), (4.1, 28.5, 1.0), (4.1, 86.9, 1.0))
_AKIVA_CHOICE = (1, 1, 2)


def akiva(y):
    """AKIVA (three observations): -Σ log p_chosen, p of transit exp(β t) / (exp(β t)
    + exp(β a + c)); its backward select makes a multiplier of one that the NumPy printer
    drops, a name of another array (written into in place, it changed that array)."""
    beta, c = y[0], y[1]
    data = jnp.array(_AKIVA_DATA)
    choice = jnp.array(_AKIVA_CHOICE)
    transit = jnp.exp(beta * data[:, 1])
    auto = jnp.exp(beta * data[:, 0] + c * data[:, 2])
    p_transit = transit / (transit + auto)
    p_auto = auto / (transit + auto)
    return -jnp.sum(jnp.log(jnp.where(choice == 1, p_transit, p_auto)))


# name: (function, unknowns, nonzeros of the Hessian)
PROBLEMS = {
    "ROSENBR": (rosenbr, 2, 4),
    "BEALE": (beale, 2, 4),
    "AKIVA": (akiva, 2, 4),
    "GENROSE": (genrose, 8, 3 * 8 - 2),
    "QING": (qing, 8, 8),
    "ARGLINB": (arglinb, 5, 25),
}


def _points(n: int) -> list[np.ndarray]:
    return [np.random.default_rng(k).uniform(-0.9, 0.9, n) for k in (1, 2)]


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_cutest_sparse_hessian_pattern_and_values(name):
    f, n, nnz = PROBLEMS[name]
    with jax.enable_x64(True):
        x0 = np.full(n, 0.5) if name != "AKIVA" else np.zeros(n)
        H = dgraph.hessian(f, x0, sparse=True)
        hessian = jax.jit(jax.hessian(f))  # one compile for every point
        refs = [np.asarray(hessian(jnp.asarray(p))) for p in _points(n)]
    stored = np.zeros((n, n), dtype=bool)
    for p, ref in zip(_points(n), refs, strict=True):
        M = H(p)
        assert scipy.sparse.issparse(M) and M.shape == (n, n)
        coo = scipy.sparse.coo_array(M)
        stored[coo.row, coo.col] = True
        np.testing.assert_allclose(M.toarray(), ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    truth = np.logical_or.reduce([r != 0.0 for r in refs])
    assert truth.sum() == nnz  # the count stated above is the function's
    assert (stored == truth).all()
