"""Constant scipy.sparse matrices times traced arrays in NumPy code
(dgraph.frontends.scipy_sparse): ``A @ u``, ``A.dot(u)`` with ``A`` a default argument,
an ``spmatrix``'s ``A * u``, ``u @ A``, a 2-d ``u``, duplicates and stored zeros, a
rectangular ``A``, ``scipy.sparse.linalg.spsolve(A, b)``; each Hessian against JAX's of
the same code with ``A.toarray()``, the Jacobian's pattern ``A``'s; a wrong product
caught; what is not covered one line. Each was refused on main ("converting an array that
depends on the inputs to a NumPy array")."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.linalg
from scipy import sparse
from scipy.sparse.linalg import spsolve

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_function
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy

N = 6
LAPLACIAN = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(N, N), format="csr")
# duplicates (summed) and a stored zero, rectangular (4 × 6)
ENTRIES = ([1.0, 2.0, -0.5, 0.0, 3.0, 0.7], ([0, 0, 1, 2, 3, 3], [1, 1, 4, 2, 5, 0]))
RECT = sparse.coo_matrix(ENTRIES, shape=(4, N))


def _energy(x, A=LAPLACIAN):
    return 0.5 * np.dot(x, A.dot(x)) + np.sum(np.sin(A @ x) ** 2)


PAIRS = {  # name -> (NumPy program of x (6,), its JAX reference)
    "matmul_dot_default": (
        _energy,
        lambda x: 0.5 * x @ (LAPLACIAN.toarray() @ x)
        + jnp.sum(jnp.sin(LAPLACIAN.toarray() @ x) ** 2),
    ),
    "spmatrix_times": (
        lambda x: np.sum(np.exp(0.3 * (RECT * x)) * np.arange(1.0, 5.0)),
        lambda x: jnp.sum(jnp.exp(0.3 * (RECT.toarray() @ x)) * jnp.arange(1.0, 5.0)),
    ),
    "left_product": (
        lambda x: np.sum(np.cos(x[:4] ** 2 @ RECT) * np.arange(1.0, 7.0)),
        lambda x: jnp.sum(jnp.cos(x[:4] ** 2 @ RECT.toarray()) * jnp.arange(1.0, 7.0)),
    ),
    "matrix_operand": (  # (6, 2) columns, and a (2, 6) row block on the left
        lambda x: np.sum((LAPLACIAN @ np.reshape(np.concatenate([x, x**2]), (6, 2))) ** 3
                         * np.array([1.0, 2.0]))
        + np.sum(np.tanh(np.reshape(np.concatenate([x, np.sin(x)]), (2, 6)) @ LAPLACIAN.T) ** 2),
        lambda x: jnp.sum((LAPLACIAN.toarray() @ jnp.reshape(jnp.concatenate([x, x**2]), (6, 2)))
                          ** 3 * jnp.array([1.0, 2.0]))
        + jnp.sum(jnp.tanh(jnp.reshape(jnp.concatenate([x, jnp.sin(x)]), (2, 6))
                           @ LAPLACIAN.toarray().T) ** 2),
    ),
    "spsolve": (  # as imported by name, through scipy.sparse and through scipy
        lambda x: np.sum(spsolve(LAPLACIAN.tocsc(), x**2) ** 2)
        + np.sum(np.sin(sparse.linalg.spsolve(LAPLACIAN.tocsc(), np.reshape(x, (N, 1)))))
        + np.sum(scipy.sparse.linalg.spsolve(LAPLACIAN.tocsc(), np.reshape(x**3, (N, 1))
                                             * np.array([[1.0, 2.0]])) ** 2),
        lambda x: jnp.sum(jnp.linalg.solve(LAPLACIAN.toarray(), x**2) ** 2)
        + jnp.sum(jnp.sin(jnp.linalg.solve(LAPLACIAN.toarray(), x)))
        + jnp.sum(jnp.linalg.solve(LAPLACIAN.toarray(), jnp.reshape(x**3, (N, 1))
                                   * jnp.array([[1.0, 2.0]])) ** 2),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_sparse_products_hessians_equal_jax(name: str) -> None:
    f, g = PAIRS[name]
    x = np.linspace(-0.8, 1.1, N)
    assert from_function(f, sizes=[x.shape], level="array").is_tensor
    made = dgraph.hessian(f, x, sparse=True)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(g)(jnp.asarray(x)))
    assert made.generated.verified
    np.testing.assert_allclose(made(x).toarray(), want, rtol=1e-11, atol=1e-12)


def test_the_jacobian_is_the_matrix_and_keeps_its_pattern() -> None:
    """Products of constants in the traced function stay SciPy's, and after the trace
    SciPy's dispatch is its own again."""
    A = sparse.random(30, 20, density=0.1, random_state=3, format="csr")
    before = type(A)._matmul_dispatch
    made = dgraph.make_function(lambda u: A @ u * (A @ np.ones(20) != 0), "jacobian",
                                point=[np.ones(20)])  # fmt: skip
    assert type(A)._matmul_dispatch is before
    np.testing.assert_array_equal(made(np.ones(20)), A.toarray())
    hess = dgraph.hessian(lambda u: np.sum((A @ u) ** 2), np.ones(20), sparse=True)
    want = 2 * (A.T @ A).toarray()
    np.testing.assert_allclose(hess(np.ones(20)).toarray(), want, rtol=1e-12)
    assert hess(np.ones(20)).nnz == np.count_nonzero(want)  # A's pattern, not a dense one


def test_a_wrong_product_is_caught(monkeypatch) -> None:
    from dgraph.frontends import scipy_sparse

    right = scipy_sparse.product
    monkeypatch.setattr(
        scipy_sparse, "product", lambda a, u, left=False: right(a * 1.001, u, left=left)
    )
    with pytest.raises(InputError, match="read wrongly"):  # the value check at the point
        dgraph.hessian(lambda x: np.sum((RECT @ x) ** 3), np.linspace(-0.8, 1.1, N))


@pytest.mark.parametrize(
    "f, needle",
    [
        (lambda x: np.sum(np.abs(sparse.csr_array(np.eye(N) * 1j) @ x)), "complex"),
        (lambda x: np.sum(LAPLACIAN @ np.reshape(x, (1, 2, 3))), r"times shape \(1, 2, 3\)"),
        (lambda x: np.sum(RECT @ x[:4]), r"shape \(4, 6\) times shape \(4,\)"),
        (
            lambda x: np.sum(spsolve(sparse.eye(5000, format="csc"), np.tile(x, 834)[:5000])),
            "order 5000 \\(over 4096\\) is not supported: its Jacobian is dense",
        ),
        (lambda x: np.sum(spsolve(RECT.tocsc(), x)), "needs a square scipy.sparse matrix"),
    ],
)
def test_what_is_not_covered_is_one_line(f, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        from_function(f, sizes=[(N,)], level="array")
