"""Memory in proportion to what the blocks need (issue 54, item 4), held by counts: the
value check applies a reverse-mode set from the left (each reference once per vector,
not once per path), ``wᵀ·J`` is checked without forming blocks, a product whose pattern
is every entry is a dense block (no index arrays), and ``make_function``'s pricing stops
a candidate once it costs more than the cheapest so far. Figures at scale:
benchmarks/transformer_memory.py and benchmarks/RESULTS.md."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dgraph import blocks, make_function
from dgraph.blocks import Labelled, dense, to_matrix
from dgraph.core import block_values
from dgraph.core.block_values import (
    apply_transposed,
    jacobian_blocks,
    jvp_of_expressions,
    vertex_values,
    vjp_and_scale,
)
from dgraph.elimination import kernel
from dgraph.errors import SearchTooLarge
from dgraph.frontends import from_function
from dgraph.methods import accumulate
from tests.test_block_jvp import UNUSUAL, random_values

METHODS = ("forward", "reverse", "markowitz")


def residual_chain(x, w):
    for _ in range(10):
        x = x + np.tanh(x * w)
    return np.sum(x * x)


def _graph_and_point(f, sizes, seed=0):
    g = from_function(f, sizes=sizes, level="array")
    rng = np.random.default_rng(seed)
    inputs = {x: rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs}
    return g, vertex_values(g, inputs)


def test_a_reverse_set_is_checked_once_per_edge(monkeypatch):
    """Ten residual blocks: 2¹⁰ paths. From the right every reference of the reverse set
    meets a new vector on each path (12,268 edge applications); from the left each edge
    is applied once per point."""
    g = from_function(residual_chain, sizes=[(3,), (3,)], level="array")
    es = accumulate(g, "reverse", verify=False)
    calls = {"edges": 0}
    apply = block_values._Entries.apply

    def counting(self, vector, left=False):
        calls["edges"] += 1
        return apply(self, vector, left)

    monkeypatch.setattr(block_values._Entries, "apply", counting)
    assert es.verify().status == "verified"
    assert 0 < calls["edges"] <= 2 * g.n_edges  # two points at most


def _mlp(x, w1, w2):
    h = np.tanh(x @ w1)
    return np.tanh(h.reshape(-1)[::-1].reshape(3, 8) @ w2) * 2.0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_both_sides_give_the_blocks_times_v(monkeypatch, method, side):
    """J·v from either side, and wᵀ·J from the left, equal the materialized blocks'."""
    g, values = _graph_and_point(_mlp, [(3, 4), (4, 8), (8, 5)], seed=2)
    es = accumulate(g, method, verify=False)
    rng = np.random.default_rng(5)
    v = {x: rng.standard_normal(g.shape(x)) for x in g.inputs}
    w = {y: rng.standard_normal(g.shape(y)) for y in g.outputs}
    monkeypatch.setattr(block_values, "applied_side", lambda *a, **k: side)
    got = jvp_of_expressions(es, values, v, by_entry=True)
    reference = jacobian_blocks(es, values)
    wj = {x: np.zeros(np.size(v[x])) for x in g.inputs}
    for (y, x), part in reference.items():
        m = to_matrix(*part)
        np.testing.assert_allclose(got[(y, x)], m @ v[x].ravel(), rtol=1e-12, atol=1e-12)
        wj[x] += m.T @ w[y].ravel()
    found = vjp_and_scale(es, values, w)
    if side == "left":
        assert found is not None
        for x in g.inputs:
            np.testing.assert_allclose(found[0][x], wj[x], rtol=1e-12, atol=1e-12)
            assert np.all(found[1][x] >= np.abs(found[0][x]) - 1e-12)
    else:
        assert found is None  # the caller forms the blocks


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_blocks_transposed_times_vectors(name):
    block = UNUSUAL[name]
    rng = np.random.default_rng(len(name))
    value = random_values(block, rng)
    w = rng.standard_normal(int(np.prod(block.out_shape)))
    expected = to_matrix(block, value).T @ w
    np.testing.assert_allclose(apply_transposed(block, value, w), expected, atol=1e-13)


def test_a_full_product_is_a_dense_block_priced_as_its_pattern():
    """A move given as a pattern (a reversal) times a dense block: every entry, so a
    dense block, not 65,536 pattern indices; the price, kind and values are the sparse
    product's."""
    order = np.arange(256)[::-1].copy()  # a reversal, as a pattern: one entry a row
    reshape = blocks.sparse((16, 16), (256,), np.arange(256), order, blocks.ONES)
    lower = dense((256,), (256,))
    cost, product = blocks.multiply(reshape, lower)
    assert isinstance(product, Labelled) and product.type_name == "dense"
    expected_cost, pattern = blocks._sparse_product(reshape, blocks.as_sparse(lower))
    assert (cost, product.nnz, product.kind) == (expected_cost, pattern.nnz, pattern.kind)
    assert product.nnz == 65536
    rng = np.random.default_rng(0)
    vl = rng.standard_normal((256, 256))
    found = blocks.multiply_values(reshape, lower, None, vl)
    np.testing.assert_allclose(
        np.asarray(found.values).reshape(256, 256), (to_matrix(reshape) @ vl), atol=0
    )


def test_pricing_stops_a_candidate_dearer_than_the_cheapest(monkeypatch):
    """make_function's gradient of a scalar loss: reverse priced first, forward and
    Markowitz stopped once they cost more, before their last vertex; the code the
    cheapest's."""
    g = from_function(
        lambda x, w1, w2: np.sum(np.tanh(np.tanh(x @ w1) @ w2) ** 2),
        sizes=[(8, 16), (16, 16), (16, 16)],
        level="array",
    )
    stopped = []
    record = kernel.Elimination._record

    def watching(self, *args, **kwargs):
        try:
            return record(self, *args, **kwargs)
        except SearchTooLarge:
            stopped.append(len(self.steps))
            raise

    monkeypatch.setattr(kernel.Elimination, "_record", watching)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = make_function(g, "jacobian")
    assert J.generated.method == "reverse"
    assert len(stopped) == 2 and max(stopped) < len(g.intermediates)  # forward, Markowitz
    assert J.generated.expression_set.mults == accumulate(g, "reverse", verify=False).mults


def _attention_loss(p, w):
    s = (p @ w) @ p.T
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return np.mean((e / np.sum(e, axis=-1, keepdims=True)) ** 2)


def test_a_vjp_through_a_saturated_softmax_is_checked_by_its_magnitudes():
    """A vjp is checked against the reverse set's wᵀ·J, applied from the left, in units
    of |w|ᵀ·|J| as the blocks bracket it; its values agree with differences."""
    g = from_function(_attention_loss, sizes=[(8, 16), (16, 16)], level="array")
    vjp = make_function(g, "vjp")
    assert vjp.generated.verified and vjp.generated.expression_set.method == "reverse"
    rng = np.random.default_rng(0)
    p, w = rng.normal(size=(8, 16)), rng.normal(size=(16, 16)) / 4
    _, dw = vjp(p, w, np.array(1.0))
    eps = 1e-6
    probe = rng.standard_normal((16, 16))
    slope = (_attention_loss(p, w + eps * probe) - _attention_loss(p, w - eps * probe)) / 2 / eps
    assert abs(float(np.sum(dw * probe)) - slope) <= 1e-6 * max(1.0, abs(slope))


def test_a_dense_factor_labelled_otherwise_is_contracted_not_paired():
    """A dense row reading its second axis as 2 × 64 (heads), times a Kronecker block
    reading it by one label: their labels do not line up, so the product was formed
    from the pairs of the second's 49,152 entries; the row read as a dense block, it is
    one contraction, with the same values."""
    row = Labelled((), (64, 128), (), (((0,), 0), ((1, 2), 0)), (64, 2, 64), (2, 1, 0))
    kron = Labelled(
        (64, 128), (64, 6), (((0,), 0), ((2,), 0)), (((0,), 0), ((1,), 0)), (64, 6, 128), (1, 2)
    )
    assert blocks.einsum_plan(row, kron) is False and blocks.plain_dense(row) == (2, 1, 0)
    plan, perms = blocks.dense_plan(row, kron)
    assert perms == ((2, 1, 0), None) and plan.product.type_name == "dense"
    rng = np.random.default_rng(1)
    vr, vk = rng.standard_normal((64, 2, 64)), rng.standard_normal((6, 128))
    got = blocks.multiply_values(row, kron, vr, vk)
    expected = to_matrix(row, vr) @ to_matrix(kron, vk)
    np.testing.assert_allclose(np.ravel(got.values), expected.toarray().ravel(), atol=1e-12)


def _elementwise_chain(x, w):
    for _ in range(10):
        x = x + np.tanh(x * w)
    return x


def test_a_wide_output_is_checked_from_the_right_where_the_left_touches_more():
    """Ten residual blocks of 4,000 entries, a vector out, reverse mode: the left applies
    4,000 rows (one per output entry) to every edge, 16 million entries an edge; the
    right's 2¹⁰ paths visit some 12,000 edges of 4,000 entries. Main stopped the right's
    dry run at twice the edges and references and took the left (its check killed for
    memory; 500 entries: 0.59 CPU-s, now 0.13)."""
    g = from_function(_elementwise_chain, sizes=[(4000,), (4000,)], level="array")
    rng = np.random.default_rng(0)
    values = vertex_values(g, {x: rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs})
    es = accumulate(g, "reverse", verify=False)
    parts, _ = block_values._parts_and_sizes(g, values)
    assert block_values.applied_side(es, parts) == "right"
    assert es.verify().status == "verified"
