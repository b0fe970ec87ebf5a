"""``cumsum``'s block values held as the running sums they apply (:class:`~dgraph.blocks.
cumulative.SumValues`): products with a vector either side, the dense matrix and the
magnitudes against ``jax.jacfwd`` of ``jnp.cumsum`` (``lax.cumsum`` reversed) on 1-d,
2-d and 3-d arrays along each axis, a deliberate mutation caught; no entry stored where
a product is all that is asked; a sparse Hessian through cumsum against JAX."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.blocks import to_matrix
from dgraph.blocks.arrays import ArrayOp, block_size, block_value, operand_block
from dgraph.core.block_values import apply_block

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402

CASES = [((1,), 0), ((7,), 0), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 1), ((2, 3, 4), 2)]


def _case(shape, axis, reverse):
    op = ArrayOp("cumsum", ("x",), (("axis", axis), ("reverse", reverse)), shape)
    x = np.random.default_rng(sum(shape) + axis).normal(size=shape)
    block = operand_block(op, 0, [shape])
    want = jref.jacfwd(lambda a: jax.lax.cumsum(a, axis=axis, reverse=reverse))(jnp.asarray(x))
    return op, x, block, np.asarray(want).reshape(x.size, x.size)


def _stored(values) -> int:
    """The entries the values hold as an array."""
    if isinstance(values, np.ndarray):
        return values.size
    return np.size(vars(values).get("entries", ()))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_running_sums_against_jax(shape, axis, reverse):
    op, x, block, want = _case(shape, axis, reverse)
    values = block_value(op, 0, {"x": x}, block)
    assert _stored(values) == 0  # main: n(n+1)/2 ones per lane, stored
    rng = np.random.default_rng(1)
    v, w = rng.normal(size=x.size), rng.normal(size=x.size)
    np.testing.assert_allclose(values.applied(v), want @ v, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(values.applied_transposed(w), w @ want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(apply_block(block, values, v), want @ v, rtol=1e-13, atol=1e-13)
    assert _stored(values) == 0  # applied without its entries
    dense = to_matrix(block, np.asarray(values)).toarray()  # the explicit form: the entries
    np.testing.assert_array_equal(dense, want)
    sizes = block_size(op, 0, {"x": x}, block)  # the magnitudes
    np.testing.assert_array_equal(to_matrix(block, sizes).toarray(), np.abs(want))
    # a deliberate mutation (the running sum the wrong way) is caught where it can differ
    wrong = type(values)(values.shape, values.axis, not values.reverse, values.nnz)
    differs = not np.allclose(wrong.applied(v), want @ v)
    assert differs == (shape[axis] > 1)


def test_scalar_cumsum_and_hessian_against_jax():
    """``np.cumsum`` of a 0-d value (one entry) and the survey's cumsum profile's sparse
    Hessian at n = 60, every entry against ``jax.hessian``; its cumsum block's values
    apply it without storing its 1,830 ones."""
    n = 60
    t = np.linspace(0, 1, n)

    def f(x):
        c = np.cumsum(np.exp(x))
        p = c / c[-1]
        s = np.cumsum(x[0] * x[1])[0]
        return np.sum((p - t) ** 2) + np.sum(np.diff(p, n=2) ** 2) + s**2

    def ref(x):
        c = jnp.cumsum(jnp.exp(x))
        p = c / c[-1]
        s = jnp.cumsum(x[0] * x[1])[0]
        return jnp.sum((p - t) ** 2) + jnp.sum(jnp.diff(p, n=2) ** 2) + s**2

    x = np.random.default_rng(3).normal(size=n) * 0.3
    op, _, block, _ = _case((n,), 0, False)
    values = block_value(op, 0, {"x": x}, block)
    assert block.nnz == n * (n + 1) // 2 and _stored(values) == 0  # main: 1,830 stored
    np.testing.assert_allclose(apply_block(block, values, x), np.cumsum(x), rtol=1e-13)
    assert _stored(values) == 0
    H = dgraph.hessian(f, x, sparse=True)(x)
    want = np.asarray(jref.hessian(ref)(jnp.asarray(x)))
    np.testing.assert_allclose(H.toarray(), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())
