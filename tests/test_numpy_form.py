"""The printed form of a NumPy Hessian module (``dgraph/codegen/tensor/numpy_form.py``):
evenly stepping positions as slices, assembly by writes, arithmetic in place, temporaries
freed early, and the CSR made from a pattern checked once. The form changes no double:
the values equal those of the same statements printed plainly, bit for bit."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.tensor import module as tensor_module  # noqa: E402
from dgraph.codegen.tensor.numpy_form import _Printer, runs, strided_runs  # noqa: E402


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def minsurf(x):
    """The COPS minimal-surface area on a 3 x 3 grid of unknowns (zero boundary)."""
    h = 1.0 / 4
    p = jnp.pad(jnp.reshape(x, (3, 3)), 1)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


def pieces(x):
    """A part of the assembly written in two pieces (x[5]'s entry: another part got there
    first), its value an in-place sum: computed once, not once per piece."""
    return (
        jnp.sum(jnp.sin(x[1:])) - jnp.sum(jnp.sin(x[1:])) + jnp.sum(jnp.sin(x[:-1]) + x[1:] * x[1:])
    )


CASES = {
    "rosenbrock": (rosenbrock, 10, None),
    "pieces": (pieces, 6, None),
    "minsurf": (minsurf, 9, None),
}


def test_runs_cut_evenly_stepping_positions():
    assert runs(np.arange(3, 30, 3)) == [(0, 9)]
    assert runs(np.array([0, 1, 2, 10, 11, 12])) == [(0, 3), (3, 6)]
    assert runs(np.array([0, 1, 1, 2])) == [(0, 2), (2, 4)]  # a position in two runs
    assert runs(np.array([3, 2, 1])) is None  # a slice steps forward
    assert runs(np.array([5, 0, 9, 4]), limit=3) is None
    # two diagonals interleaved: residues mod 2, each one slice
    a = np.ravel([[3 * i + 2, 3 * i + 3] for i in range(20)])  # 20 pairs: 20 runs of 2
    want = [(slice(0, 39, 2), slice(2, 60, 3)), (slice(1, 40, 2), slice(3, 61, 3))]
    assert strided_runs(a) == want
    assert strided_runs(np.random.default_rng(0).permutation(50)) is None


def _plain(statements, constants, env, ends, later=None, mirror=None):
    printer = _Printer()
    return [printer.statement(s) for s in statements]


@pytest.mark.parametrize("name", ["rosenbrock", "minsurf"])  # a band; a grid (no slices)
def test_the_form_changes_no_double(name, monkeypatch):
    """The module as printed (slices, writes, in place) against the same statements
    printed plainly: equal bit for bit, symmetric bit for bit, equal to jax.hessian."""
    f, n, v = CASES[name]
    rng = np.random.default_rng(n)
    x, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    args = (x2,) if v is None else (x2, v)
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    monkeypatch.setattr(tensor_module, "numpy_body", _plain)
    P = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    h, p = H(*args), P(*args)
    np.testing.assert_array_equal(h.indices, p.indices)
    np.testing.assert_array_equal(h.data, p.data)  # bit for bit
    assert (h != h.T).nnz == 0
    t, tp = H.gradient.generated.tril(*args), P.gradient.generated.tril(*args)
    np.testing.assert_array_equal(t.data, tp.data)
    with jax.enable_x64(True):
        g = f if v is None else (lambda x: jnp.dot(jnp.asarray(v), f(x)))
        ref = np.asarray(jax.hessian(g)(jnp.asarray(x2)))
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    assert "del " in H.gradient.generated.text and "del " not in P.gradient.generated.text


def test_a_band_is_assembled_by_slices():
    """Rosenbrock's tridiagonal Hessian: no index array in its assembly or its mirror."""
    f, n, _ = CASES["rosenbrock"]
    H = dgraph.make_function(f, "hessian", point=[np.full(n, 0.3)], sparse=True)
    text = H.gradient.generated.text
    body = text[text.index("def _jacobian_lower") : text.index("def jacobian_tril")]
    assert "_scatter" not in body and "numpy.empty(" in body and ", out=" in body
    # the mirror: the off-diagonal's own vector written above the diagonal too, in the
    # assembly, not a strided copy of the assembled values afterwards
    assert re.search(rf"\n    \w+\[1:{3 * n - 4}:3\] = \w+\n", body)
    assert "data[1:" not in body


def test_each_call_its_own_matrix_and_values_the_pattern_shared_read_only():
    f, n, _ = CASES["rosenbrock"]
    rng = np.random.default_rng(1)
    H = dgraph.make_function(f, "hessian", point=[rng.uniform(0.1, 0.6, n)], sparse=True)
    x1, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    a, b = H(x1), H(x2)
    assert a is not b and not np.shares_memory(a.data, b.data)
    kept = a.data.copy()
    b.data *= 2.0  # the user's own values
    np.testing.assert_array_equal(a.data, kept)
    np.testing.assert_array_equal(H(x2).data, b.data / 2.0)
    assert a.has_canonical_format and not a.indices.flags.writeable
    with pytest.raises(ValueError):  # a change of the shared pattern raises
        a.eliminate_zeros()
    rhs = np.ones(n)  # SciPy's solver takes it as it is
    np.testing.assert_allclose(
        scipy.sparse.linalg.spsolve(a, rhs), np.linalg.solve(a.toarray(), rhs), rtol=1e-10
    )
