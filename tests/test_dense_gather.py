"""Dense Hessians whose block products meet a dense block and a sparse one with few
entries a line (``dgraph/codegen/tensor/dense_gather.py``): the product is gathers of the
dense block's columns or rows, so the generated module's index arrays stay within a few
times N² entries (N unknowns), where one index per pair made them 6–30 N²; the values
against ``jax.hessian``."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dgraph
from tests import jax_reference as jref

N = 60
_RNG = np.random.default_rng(23)
_Y = _RNG.normal(size=N)
_M = _RNG.normal(size=(8, N + N // 2)) * 0.3
_X = _RNG.normal(size=(20, 3))
_LABELS = np.sign(_RNG.normal(size=20))


def _qr_least_squares(x):
    """real_programs5's least squares by ``jnp.linalg.qr``: QR's dense block (3N × 3N)
    times the stacked features' block (two entries a column)."""
    A = jnp.stack([jnp.ones_like(x), x, jnp.sin(x)], axis=1)
    Q, R = jnp.linalg.qr(A)
    w = jax.scipy.linalg.solve_triangular(R, Q.T @ _Y)
    return jnp.sum((A @ w - _Y) ** 2) + 0.1 * jnp.sum(w**2)


def _ragged(x):
    """A dense map of x and sin of its first half: the sparse block's columns hold two
    entries or one (gathers padded with zeros)."""
    z = jnp.concatenate([x, jnp.sin(x[: N // 2])])
    return jnp.sum(jnp.tanh(_M @ z) ** 2)


def _mlp(w):
    """real_programs5's SiLU/softplus MLP and logistic loss (a sparse block of many
    entries a row times a dense one)."""
    h = N // 4
    W1, w2 = w[: 3 * h].reshape(3, h), w[3 * h : 4 * h]
    a = _X @ W1
    z = (jax.nn.silu(a) + 0.5 * jax.nn.softplus(-a)) @ w2
    return jnp.mean(jnp.logaddexp(0.0, -_LABELS * z)) + 1e-3 * jnp.sum(w**2)


def _index_entries(text: str) -> list[int]:
    """The sizes of the module's integer arrays (its index arrays)."""
    return [
        int(np.prod([int(t) for t in m.group(1).split(",") if t.strip()]))
        for m in re.finditer(r"_array\('[^']*', numpy\.int\d+, \(([\d, ]+)\)", text)
    ]


@pytest.mark.parametrize(
    ("f", "total", "largest"),
    [
        (_qr_least_squares, 5, 1),  # main: 44,942 entries (12.5 N²), largest 21,600 (6 N²)
        (_ragged, 3.4, 1),  # main: 13,337 (3.7 N²)
        (_mlp, 15, 4),  # main: 108,049 (30 N²), largest 20,700
    ],
)
def test_a_dense_times_sparse_product_forms_no_index_per_pair(f, total, largest):
    """The dense Hessian equals ``jax.hessian`` (every entry kept) and its module's index
    arrays hold at most ``total`` N² entries, none more than ``largest`` N²."""
    x = _RNG.uniform(0.2, 0.8, size=N)
    H = dgraph.hessian(f, x, sparse=True)
    got = H(x)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(f)(jnp.asarray(x)))
    assert got.nnz == np.count_nonzero(want) == N * N
    assert np.abs(got.toarray() - want).max() <= 1e-12 * np.abs(want).max()
    sizes = _index_entries(H.generated.text)
    assert sum(sizes) <= total * N * N
    assert max(sizes) <= largest * N * N
