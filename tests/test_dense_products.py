"""Products of sparse blocks in which many pairs of entries meet, done as dense matrices
(:func:`dgraph.blocks.dense_pays`): their patterns (the block algebra) and their values
(the generated code's one ``einsum``) are those of the pair-by-pair product, at a
fraction of its memory (the Hessian of ``sum(cumsum(x)**2)`` at 2,000 unknowns once ran
out of 24 GB)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dgraph
import dgraph.blocks as blocks
from dgraph.blocks import GENERAL, ONES, dense_pays, multiply, sparse
from tests import jax_reference as jref

from .dense import dense as _dense


def test_dense_pays_for_a_triangle_times_a_triangle_not_for_a_band():
    """cumsum's triangle at 2,000: 1.3·10⁹ pairs, a dense product of 8·10⁹ multiplications
    (6 a pair) and 4·10⁶ entries: dense. A tridiagonal band at 10⁶: 9·10⁶ pairs, under
    the threshold; at 10⁸ unknowns its 10²⁴ dense multiplications would not pay."""
    n = 2000
    assert dense_pays(n, n, n, n * (n + 1) * (n + 2) // 6)
    assert not dense_pays(10**6, 10**6, 10**6, 9 * 10**6)
    assert not dense_pays(10**8, 10**8, 10**8, 9 * 10**8)
    # a long thin factor: the pairs would pay, but a dense factor holds more than them
    assert not dense_pays(10**5, 10**3, 1, 10**7)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**31 - 1))
def test_the_dense_pattern_product_is_the_sparse_one(m, k, n, seed):
    """The product's pattern and kind (ones whose pairs sum to 2 or more: a constant) are
    the same whichever way it is found."""
    rng = np.random.default_rng(seed)

    def drawn(rows, cols, kind):
        keep = rng.random(rows * cols) < rng.uniform(0.2, 1.0)
        flat = np.flatnonzero(keep)
        return sparse((rows,), (cols,), flat // cols, flat % cols, kind)

    for kind in (ONES, GENERAL):
        a, b = drawn(m, k, kind), drawn(k, n, kind)
        sparse_way = multiply(a, b)
        saved = blocks.DENSE_PAIRS_FROM
        try:
            blocks.DENSE_PAIRS_FROM = 0
            dense_way = multiply(a, b)
        finally:
            blocks.DENSE_PAIRS_FROM = saved
        assert sparse_way[0] == dense_way[0]  # the price: the pairs
        if sparse_way[1] is None:
            assert dense_way[1] is None
            continue
        p, q = sparse_way[1], dense_way[1]
        assert p.kind == q.kind
        assert np.array_equal(p.rows, q.rows) and np.array_equal(p.cols, q.cols)


def _cumsum_energy(x):
    return jnp.sum(jnp.exp(0.1 * jnp.cumsum(x))) + jnp.sum(jnp.sin(x))


def _flipped_energy(x):
    """:func:`_cumsum_energy` of the running sum from the end, as a flip, a cumsum and a
    flip: the flips times cumsum's block are explicit (anti-)triangles."""
    return jnp.sum(jnp.exp(0.1 * jnp.flip(jnp.cumsum(jnp.flip(x))))) + jnp.sum(jnp.sin(x))


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_a_triangle_squared_is_one_einsum_and_right(lang, monkeypatch):
    """With the threshold lowered to 10³ pairs, the Hessian of a flipped cumsum energy (a
    full matrix: a triangle's transpose times a triangle) multiplies its triangles as one
    einsum through BLAS; sparse, its pattern full, its values JAX's, the same as pair by
    pair. (cumsum's own block times a block is a running sum: tests/test_cumsum_pattern.py.)"""
    n = 40
    x = np.random.default_rng(3).uniform(-1, 1, n)
    plain = dgraph.make_function(_flipped_energy, "hessian", lang, point=[x], sparse=True)
    monkeypatch.setattr(blocks, "DENSE_PAIRS_FROM", 1000)
    H = dgraph.make_function(_flipped_energy, "hessian", lang, point=[x], sparse=True)
    text = H.gradient.generated.text
    if lang == "python":  # a product of matrices: numpy.matmul (BLAS; X @ b's rounding)
        assert "numpy.matmul(" in text
    else:
        assert "einsum('ik,kj->ij'" in text and "optimize=True" in text
    assert "einsum(" not in plain.gradient.generated.text
    assert "matmul(" not in plain.gradient.generated.text
    with jax.enable_x64(True):  # JAX's code computes in the context's precision
        ref = np.asarray(jref.hessian(_flipped_energy)(jnp.asarray(x)))
        got, before = (_dense(f(x)) for f in (H, plain))
    assert np.count_nonzero(got) == np.count_nonzero(ref) == n * n
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(got, before, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_a_product_pairing_too_many_entries_is_refused_in_one_line(monkeypatch):
    """Past PAIRS_MOST pairs (here lowered to 100), where the dense matrices would be
    larger than the pairs, the code is refused with one line naming the product, never
    made until the memory runs out."""
    import dgraph.codegen.tensor.blockops as blockops
    from dgraph.errors import DGraphError

    monkeypatch.setattr(blockops, "PAIRS_MOST", 100)
    x = np.random.default_rng(3).uniform(-1, 1, 40)
    with pytest.raises(DGraphError, match=r"pairs [\d,]+ entries \(at most 100,") as found:
        dgraph.make_function(_flipped_energy, "hessian", "python", point=[x], sparse=True)
    assert "\n" not in str(found.value)
    # cumsum's own block is multiplied as a running sum: no pairs to refuse
    dgraph.make_function(_cumsum_energy, "hessian", "python", point=[x], sparse=True)
