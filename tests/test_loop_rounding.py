"""The rounding scale of a loop's blocks in the value check
(:meth:`dgraph.core.regions.Region.block_magnitude`): ``|D| + |F|``, where ``D`` is the
chain product of the body Jacobians and ``F ← J_t·F + E_t·|D|`` carries each step's
excess of magnitudes over values (a rule whose terms cancel, ``1 - tanh(a)**2`` at a
saturated ``a``) through the loop's own products: the first-order bound on the
rounding of the chain, with the later steps' signed products in place of their
magnitudes. It is wider than ``|D|`` only where a step's sums cancel, and never the
chain of magnitudes ``|J_T|···|J_1|``, which grows without bound over a loop whose
products do not (a rotation by 45°: ``√2`` a step) and would let a wrong rule pass."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.blocks import arrays  # noqa: E402
from dgraph.core.block_values import vertex_values  # noqa: E402
from dgraph.core.value_check import check_expression_set  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

C = np.cos(np.pi / 4)
ROTATION = np.array([[C, -C], [C, C]])
W = np.random.default_rng(0).normal(size=(3, 3))


def _rows(X):
    return lax.fori_loop(0, 4, lambda i, a: a + jnp.tanh(X[i] @ X[i]), 0.0)


def _rotation(x):
    return lax.fori_loop(0, 60, lambda i, z: ROTATION @ jnp.sin(z), x)


def _rnn(x):
    return lax.fori_loop(0, 40, lambda i, h: jnp.tanh(W @ h + x), x)


def _saturated_rows() -> np.ndarray:
    rows = np.random.default_rng(2).normal(size=(4, 3))
    rows[2] *= np.sqrt(10.5 / (rows[2] @ rows[2]))  # 1 - tanh(10.5)**2 ≈ 3e-9
    return rows


@pytest.mark.usefixtures("loops_as_regions")
def test_a_saturated_tanh_in_a_loop_verifies():
    """The Hessian of Σ_i tanh(X[i]·X[i]) in a loop, one row at X[i]·X[i] = 10.5: JAX's
    forward-over-reverse reference rounds sech² as (1 - t)(1 + t), 1e-8 relative there,
    and the check in units of the loop's block values (3e-9 in that row) read it as a
    wrong result ("did not verify"). In units of the terms' size it verifies, and the
    values equal the closed form."""
    rows = _saturated_rows()
    h = dgraph.make_function(_rows, "hessian", point=[rows])
    assert h.generated.verified
    got = np.asarray(h(rows)).reshape(12, 12)
    expected = np.zeros((12, 12))
    for i, r in enumerate(rows):
        s = r @ r
        sech2 = 1 / np.cosh(s) ** 2
        block = 2 * sech2 * np.eye(3) - 8 * np.tanh(s) * sech2 * np.outer(r, r)
        expected[3 * i : 3 * i + 3, 3 * i : 3 * i + 3] = block
    assert np.abs(got - expected).max() <= 1e-12 * np.abs(expected).max()


def _wrong(name: str):
    real = arrays._derivative_function

    def derivative(n, k):
        rule = real(n, k)
        return (lambda *operands: 1.001 * rule(*operands)) if n == name else rule

    return derivative


@pytest.mark.parametrize(
    ("f", "x", "rule", "excess"),
    [
        (_rotation, np.array([0.01, 0.02]), "sin", False),
        (_rnn, np.array([0.2, -0.4, 0.6]), "tanh", True),
    ],
    ids=["rotation", "rnn"],
)
def test_a_rule_made_wrong_in_a_long_loop_is_caught(monkeypatch, f, x, rule, excess):
    """A rule scaled by 1.001 in the body of a 60-step rotation by 45° (no sum that
    cancels: the scale is exactly |D|) and of a 40-step tanh RNN (1 - t² cancels: the
    scale is wider, by less than the error) is wrong by far more than the tolerance. At
    the rotation the chain of magnitudes |J_60|···|J_1| is 5e8 times |D| (√2 a step):
    in its units the error, 0.04 of |J|·|v| here, is 1e-10, and would pass."""
    g = from_jax(f, x, level="array")
    es = accumulate(g, "forward", verify=False)
    check = es.verify()
    assert check.status == "verified"
    y = g.outputs[0]
    op = g.op(y)
    values = vertex_values(g, {g.inputs[0]: x})
    k = op.operands.index(g.inputs[0])
    block = arrays.operand_block(op, k, [g._operand_shape(u) for u in op.operands])
    size = np.asarray(arrays.block_magnitude(op, k, values, block))
    value = np.abs(arrays.block_value(op, k, values, block))
    assert size.shape == value.shape
    assert np.all(size >= value)
    if excess:
        assert np.any(size > value) and np.all(size <= 10 * value.max())
    else:
        assert np.array_equal(size, value)
    monkeypatch.setattr(arrays, "_derivative_function", _wrong(rule))
    wrong = check_expression_set(accumulate(from_jax(f, x, level="array"), "forward", verify=False))
    assert wrong.status == "wrong" and wrong.error > 1e-4
