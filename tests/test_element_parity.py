"""The element level (a graph of scalars) answers as the array level does: ``sparse=True``
gives the same sparse type (SciPy CSR; a JAX BCOO for ``lang="jax"``) with exactly the
structural nonzeros, and code that could not be checked warns "NOT verified"
(dgraph/codegen/function.py, dgraph/codegen/hessian.py's ``sparse_of``)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse
import sympy
from jax.experimental import sparse as jsparse

from dgraph.codegen.function import make_function
from dgraph.errors import DGraphError
from dgraph.frontends import from_function, from_sympy, from_trace
from tests import jax_reference as jref

from .dense import dense as as_dense

jax.config.update("jax_enable_x64", True)

N = 6
X = np.linspace(0.5, 1.5, N)


def shifted(x):
    return x[1:] * x[:-1]


def _sympy_graph():
    x0, x1, x2 = sympy.symbols("x0 x1 x2")
    return from_sympy([x0 * x1, sympy.sin(x2), x0 + sympy.exp(x2)], [x0, x1, x2])


def _sympy_jacobian(x):
    x0, x1, x2 = x
    return np.array([[x1, x0, 0.0], [0.0, 0.0, np.cos(x2)], [1.0, 0.0, np.exp(x2)]])


TRACE = "inputs: a, b\noutputs: y, z\ny = a * b\nz = sin(b)\n"


def _trace_jacobian(x):
    a, b = x
    return np.array([[b, a], [0.0, np.cos(b)]])


def _bidiagonal(n):
    return {(i, i) for i in range(n - 1)} | {(i, i + 1) for i in range(n - 1)}


# (source, point, the dense Jacobian there, the structural pattern)
CASES = {
    "sympy": (
        _sympy_graph,
        np.array([0.3, 0.7, 1.1]),
        _sympy_jacobian,
        {(0, 0), (0, 1), (1, 2), (2, 0), (2, 2)},
    ),
    "jax": (
        lambda: shifted,
        X,
        lambda x: np.asarray(jref.jacobian(shifted)(jnp.asarray(x))),
        _bidiagonal(N),
    ),
    "trace": (
        lambda: from_trace(TRACE),
        np.array([0.4, 0.9]),
        _trace_jacobian,
        {(0, 0), (0, 1), (1, 1)},
    ),
}


# the method the codegen choice gives every element-level function here (the same code):
# this file is of the element level's sparse results, the choice has its own tests
CHOSEN = "forward"


def _made(case: str, mode: str, lang: str):
    make, x, _, _ = CASES[case]
    source = make()
    if case == "jax":
        return make_function(source, mode, lang, point=(x,), sparse=True, method=CHOSEN)
    return make_function(source, mode, lang, sparse=True, method=CHOSEN)


def _entries(J, lang: str) -> tuple[set[tuple[int, int]], np.ndarray]:
    """The stored (structural) entries of J and J dense."""
    if lang == "jax":
        assert isinstance(J, jsparse.BCOO)
        idx = np.asarray(J.indices)
        return {(int(i), int(j)) for i, j in idx}, as_dense(J)
    assert isinstance(J, scipy.sparse.csr_array)
    coo = J.tocoo()
    return set(zip(coo.row.tolist(), coo.col.tolist(), strict=True)), J.toarray()


@pytest.mark.parametrize("lang", ["python", "jax"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_jacobian_of_the_element_level(case: str, lang: str) -> None:
    _, x, dense, pattern = CASES[case]
    J = _made(case, "jacobian", lang)
    assert J.generated.verified and not J.generated.expression_set.graph.is_tensor
    got = J(x)
    stored, values = _entries(got, lang)
    assert stored == pattern and (got.nse if lang == "jax" else got.nnz) == len(pattern)
    np.testing.assert_allclose(values, dense(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("lang", ["python", "jax"])
@pytest.mark.parametrize("case", ["jax", "trace"])
def test_sparse_value_and_jacobian_of_the_element_level(case: str, lang: str) -> None:
    _, x, dense, pattern = CASES[case]
    F = _made(case, "value_and_jacobian", lang)
    value, got = F(x)
    stored, values = _entries(got, lang)
    assert stored == pattern
    np.testing.assert_allclose(values, dense(x), rtol=1e-12, atol=1e-14)
    if case == "jax":
        np.testing.assert_allclose(np.asarray(value), shifted(x), rtol=1e-14)


def test_the_array_level_gives_the_same_type_and_pattern() -> None:
    g = from_function(shifted, sizes=[(N,)], level="array")
    array_J = make_function(g, "jacobian", sparse=True)(X)
    element_J = make_function(shifted, "jacobian", point=(X,), sparse=True, method=CHOSEN)(X)
    assert type(array_J) is type(element_J) is scipy.sparse.csr_array
    assert array_J.shape == element_J.shape == (N - 1, N)
    a, e = array_J.tocoo(), element_J.tocoo()
    assert set(zip(a.row, a.col, strict=True)) == set(zip(e.row, e.col, strict=True))
    np.testing.assert_allclose(element_J.toarray(), array_J.toarray(), rtol=1e-14)


def test_a_zero_value_stays_a_stored_entry() -> None:
    """The pattern is structural: an entry that is 0 at the point is still stored."""
    J = make_function(shifted, "jacobian", point=(X,), sparse=True, method=CHOSEN)
    x = X.copy()
    x[2] = 0.0
    got = J(x)
    assert got.nnz == 2 * (N - 1) and got[1, 1] == 0.0 and got[2, 3] == 0.0
    np.testing.assert_allclose(got.toarray(), np.asarray(jref.jacobian(shifted)(x)), rtol=1e-14)


def test_a_batch_of_points_is_refused_in_one_line() -> None:
    J = make_function(shifted, "jacobian", point=(X,), sparse=True, method=CHOSEN)
    with pytest.raises(DGraphError, match=r"^a sparse Jacobian is of one point"):
        J(np.stack([X, X]))
    dense = make_function(shifted, "jacobian", point=(X,), method=CHOSEN)(np.stack([X, X]))
    assert dense.shape == (2, N - 1, N)


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_element_level_hessians_are_sparse_too(lang: str) -> None:
    x0, x1, x2 = sympy.symbols("x0 x1 x2")
    g = from_sympy(x0 * x1 + sympy.sin(x2) * x0, [x0, x1, x2])
    x = np.array([0.3, 0.7, 1.1])
    want = np.array(
        [[0.0, 1.0, np.cos(x[2])], [1.0, 0.0, 0.0], [np.cos(x[2]), 0.0, -np.sin(x[2]) * x[0]]]
    )
    pattern = {(0, 1), (1, 0), (0, 2), (2, 0), (2, 2)}
    H = make_function(g, "hessian", lang, sparse=True, method=CHOSEN)(x)
    stored, values = _entries(H, lang)
    assert stored == pattern
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-14)
    _, _, H = make_function(g, "value_gradient_hessian", lang, sparse=True, method=CHOSEN)(x)
    stored, values = _entries(H, lang)
    assert stored == pattern
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-14)


def test_unverified_element_level_code_warns() -> None:
    """sqrt's derivative is not finite at the given point 0: the check has no point to
    compare at there, so the code is not verified, and says so as the array level's does."""
    with pytest.warns(UserWarning, match="NOT verified"):
        got = make_function(
            jnp.sqrt, "jacobian", "python", point=[np.array([0.0, 1.0])], method=CHOSEN
        )
    assert not got.generated.verified and got.generated.check.status == "not verified"
    assert not got.generated.expression_set.graph.is_tensor


def test_verified_element_level_code_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        J = make_function(shifted, "jacobian", point=(X,), method=CHOSEN)
    assert J.generated.verified


def test_the_element_level_bcoo_jits() -> None:
    """As the array level's JAX code, the element level's sparse Jacobian can be jitted."""
    J = make_function(shifted, "jacobian", "jax", point=(X,), sparse=True, method=CHOSEN)
    got = jax.jit(J)(X)
    assert isinstance(got, jsparse.BCOO) and got.nse == 2 * (N - 1)
    np.testing.assert_allclose(as_dense(got), jref.jacobian(shifted)(X), rtol=1e-14)
