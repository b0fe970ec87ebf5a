"""Jacobian blocks: structure kept through products and sums, prices in scalar mults."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph import blocks
from dgraph.blocks import (
    ONES,
    add,
    add_values,
    dense,
    diagonal,
    identity,
    multiply,
    multiply_values,
    to_matrix,
)
from dgraph.blocks.arrays import (
    ArrayOp,
    Const,
    block_value,
    evaluate,
    names_read,
    operand_block,
    with_leaves,
)
from dgraph.core.graph import DGraph
from dgraph.elimination.kernel import BLOCKS
from dgraph.methods import accumulate

from .strategies import programs


def _op(name, operands, shape, **params):
    return ArrayOp(name, tuple(operands), tuple(params.items()), tuple(shape))


def _dense_pattern(b) -> np.ndarray:
    return (to_matrix(b).toarray() != 0).astype(int)


def test_prices_of_the_structure_types():
    """diag·diag costs n, dense·dense m·n·k, a selection or a reduction nothing, and a
    chain of two Kronecker blocks I ⊗ W, I ⊗ V the small product W V only."""
    assert multiply(diagonal((7,)), diagonal((7,))).cost == 7
    assert multiply(dense((2,), (3,)), dense((3,), (4,))).cost == 24
    pick = operand_block(
        _op("slice", ["u"], (3,), start_indices=(1,), limit_indices=(4,)), 0, [(5,)]
    )
    cost, rows = multiply(pick, dense((5,), (6,)))
    assert cost == 0 and rows.type_name == "dense" and rows.nnz == 18
    numbers = (((1,), (0,)), ((), ()))
    first = operand_block(
        _op("dot_general", ["x", "W"], (8, 4), dimension_numbers=numbers), 0, [(8, 3), (3, 4)]
    )
    second = operand_block(
        _op("dot_general", ["h", "V"], (8, 5), dimension_numbers=numbers), 0, [(8, 4), (4, 5)]
    )
    assert first.type_name == "kronecker"
    cost, both = multiply(second, first)
    assert cost == 3 * 4 * 5 and both.type_name == "kronecker" and both.stored == 15


def test_a_shifted_selection_and_its_complement_give_zero():
    left = operand_block(
        _op("slice", ["u"], (2,), start_indices=(0,), limit_indices=(2,)), 0, [(5,)]
    )
    pad = operand_block(_op("pad", ["v", 0.0], (5,), padding_config=((3, 0, 0),)), 0, [(2,), ()])
    assert multiply(left, pad) == (0, None)  # rows 0-1 of a vector padded at 3-4


def test_sums_keep_one_structure_or_become_a_pattern():
    assert add(diagonal((3, 2)), identity((3, 2))).type_name == "diagonal"
    three = [
        operand_block(
            _op("slice", ["u"], (4,), start_indices=(s,), limit_indices=(s + 4,)), 0, [(6,)]
        )
        for s in range(3)
    ]
    stencil = add(add(three[0], three[1]), three[2])
    assert stencil.type_name == "sparse" and stencil.nnz == 12
    expected = sum(_dense_pattern(b) for b in three)
    assert (_dense_pattern(stencil) == (expected > 0)).all()


_SHAPES = st.sampled_from([(2, 3), (3, 2), (6,), (1, 6), (3, 1, 2)])


@st.composite
def _moves(draw):
    """An array operation on a (2, 3)-like input and its block."""
    shape = draw(_SHAPES)
    n = len(shape)
    kind = draw(
        st.sampled_from(
            ["exp", "reshape", "transpose", "slice", "pad", "reduce_sum", "broadcast_in_dim", "rev"]
        )
    )
    if kind == "exp":
        return _op("exp", ["u"], shape), shape
    if kind == "reshape":
        out = draw(st.sampled_from([(6,), (2, 3), (3, 2), (6, 1)]))
        return _op("reshape", ["u"], out, new_sizes=out, dimensions=None), shape
    if kind == "transpose":
        perm = tuple(draw(st.permutations(range(n))))
        return _op("transpose", ["u"], tuple(shape[p] for p in perm), permutation=perm), shape
    if kind == "slice":
        start = tuple(draw(st.integers(0, d - 1)) for d in shape)
        limit = tuple(draw(st.integers(s + 1, d)) for s, d in zip(start, shape, strict=True))
        out = tuple(e - s for s, e in zip(start, limit, strict=True))
        return _op(
            "slice", ["u"], out, start_indices=start, limit_indices=limit, strides=None
        ), shape
    if kind == "pad":
        config = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2)), 0) for _ in shape)
        out = tuple(d + lo + hi for d, (lo, hi, _) in zip(shape, config, strict=True))
        return _op("pad", ["u", 0.0], out, padding_config=config), shape
    if kind == "reduce_sum":
        axes = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1))))
        out = tuple(d for k, d in enumerate(shape) if k not in axes)
        return _op("reduce_sum", ["u"], out, axes=axes), shape
    if kind == "rev":
        return _op("rev", ["u"], shape, dimensions=(0,)), shape
    out = (4, *shape)
    return _op("broadcast_in_dim", ["u"], out, broadcast_dimensions=tuple(range(1, n + 1))), shape


def _block_and_matrix(op, shape, rng):
    shapes = [shape] + [()] * (len(op.operands) - 1)
    block = operand_block(op, 0, shapes)
    values = {"u": rng.standard_normal(shape)}
    v = block_value(op, 0, values, block)
    numeric = to_matrix(block, v).toarray()
    return block, numeric, values, v


def _finite_differences(op, values, h=1e-6):
    u = values["u"]
    cols = []
    for i in range(u.size):
        step = np.zeros(u.size)
        step[i] = h
        plus = evaluate(op, {"u": u + step.reshape(u.shape)}).ravel()
        minus = evaluate(op, {"u": u - step.reshape(u.shape)}).ravel()
        cols.append((plus - minus) / (2 * h))
    return np.stack(cols, axis=1)


@settings(max_examples=60, deadline=None)
@given(_moves(), _moves(), st.integers(0, 2**16))
def test_products_of_moves_have_the_dense_products_pattern(first, second, seed):
    """Each operation's block is its derivative (central differences), and a product of
    two blocks has exactly the pattern of the product of their dense 0/1 matrices."""
    rng = np.random.default_rng(seed)
    op1, shape1 = first
    b1, m1, values, v1 = _block_and_matrix(op1, shape1, rng)
    assert np.allclose(m1, _finite_differences(op1, values), atol=1e-5)
    op2, shape2 = second
    if op1.shape != shape2:
        op2 = ArrayOp("exp", ("u",), (), op1.shape)
        shape2 = op1.shape
    b2, m2, _, v2 = _block_and_matrix(op2, shape2, rng)
    cost, product = multiply(b2, b1)
    block, value = multiply_values(b2, b1, v2, v1)
    numeric = np.zeros((m2.shape[0], m1.shape[1])) if block is None else to_matrix(block, value)
    assert np.allclose(np.asarray(numeric.todense() if block is not None else numeric), m2 @ m1)
    expected = (_dense_pattern(b2) @ _dense_pattern(b1)) > 0
    got = np.zeros_like(expected) if product is None else _dense_pattern(product) > 0
    assert (got == expected).all()
    if b1.kind == ONES or b2.kind == ONES:
        assert cost == 0
    else:
        pairs = int((_dense_pattern(b2).sum(axis=0) * _dense_pattern(b1).sum(axis=1)).sum())
        assert cost <= pairs


def _chain_graph(n: int, ops: list[str]) -> DGraph:
    g = DGraph("chain")
    g.add_array_vertex("x", "input", (n,))
    prev = "x"
    for k, name in enumerate(ops):
        v = f"v{k}" if k < len(ops) - 1 else "y"
        g.add_array_vertex(
            v, "intermediate" if v != "y" else "output", (n,), _op(name, [prev], (n,))
        )
        prev = v
    return g.validate()


def test_forward_on_an_elementwise_chain_costs_one_diagonal_product_per_step():
    g = _chain_graph(10, ["sin", "exp", "tanh", "cos"])
    for method in ("forward", "reverse", "markowitz"):
        es = accumulate(g, method)
        assert es.verified
        assert es.mults == 3 * 10  # three diag·diag products of 10 values


def test_an_mlp_layer_prices_its_kronecker_blocks():
    """y = sum(tanh(x @ W), axis 1): reverse mode pays nothing for the reduction times the
    diagonal (a move), then 5·4·3 for those rows times I ⊗ Wᵀ and as many times I ⊗ x."""
    numbers = (((1,), (0,)), ((), ()))
    g = DGraph("layer")
    g.add_array_vertex("x", "input", (5, 3))
    g.add_array_vertex("W", "input", (3, 4))
    g.add_array_vertex(
        "h",
        "intermediate",
        (5, 4),
        _op("dot_general", ["x", "W"], (5, 4), dimension_numbers=numbers),
    )
    g.add_array_vertex("t", "intermediate", (5, 4), _op("tanh", ["h"], (5, 4)))
    g.add_array_vertex("y", "output", (5,), _op("reduce_sum", ["t"], (5,), axes=(1,)))
    g.validate()
    es = accumulate(g, "reverse")
    assert es.verified
    assert es.mults == 2 * 5 * 4 * 3
    # forward: diag(1 - tanh²) times I ⊗ Wᵀ and times I ⊗ x, 60 each; the sum is free
    assert accumulate(g, "forward").mults == 2 * 5 * 4 * 3


def test_blocks_algebra_prices_what_the_built_set_counts():
    from dgraph.elimination.kernel import move_costs

    g = _chain_graph(6, ["sin", "exp", "tanh", "cos", "exp"])
    order = ["v2", "v0", "v3", "v1"]
    es = accumulate(g, "vertex", order=order)
    assert move_costs(g, [("vertex", v) for v in order])[0] == es.mults


@pytest.mark.parametrize("bad", [(2, 3), (3,)])
def test_block_products_refuse_mismatched_shapes(bad):
    with pytest.raises(ValueError, match="block product"):
        blocks.multiply(dense((2,), bad), dense((4,), (1,)))


def test_sums_with_values_match_the_dense_sums():
    rng = np.random.default_rng(3)
    d, full = diagonal((2, 3)), dense((2, 3), (2, 3))
    vd, vf = rng.standard_normal((2, 3)), rng.standard_normal((2, 3, 2, 3))
    for a, b, va, vb in (
        (d, full, vd, vf),
        (d, identity((2, 3)), vd, np.asarray(1.0)),
        (d, d, vd, vd),
    ):
        total, v = add_values(a, b, va, vb)
        expected = to_matrix(a, va).toarray() + to_matrix(b, vb).toarray()
        assert np.allclose(to_matrix(total, v).toarray(), expected)


def test_verification_checks_the_block_values_against_the_program(monkeypatch):
    """The path identity holds for any blocks; J·v against central differences of the
    array program catches a block whose values are not the derivative."""
    from dgraph.core import block_values

    g = _chain_graph(4, ["sin", "exp", "tanh"])
    es = accumulate(g, "forward")
    assert es.verified and "central differences" in es.verification.detail
    wrong = block_values.block_value
    monkeypatch.setattr(block_values, "block_value", lambda *a: 1.01 * wrong(*a))
    check = es.verify()
    assert not check.ok and check.mode == "values" and "central differences" in check.detail
    assert check.status == "wrong"


def test_exact_vertex_search_prices_blocks():
    """On a tensor graph the scalar cut bound does not hold: the exact search prices
    every set's blocks (here over two independent parts) and proves the cheapest order,
    which Markowitz's degrees miss: 224 against forward 480 and Markowitz 232, with 10
    more for the elementwise chain beside."""
    numbers = (((1,), (0,)), ((), ()))
    g = DGraph("layer and chain")
    g.add_array_vertex("x", "input", (5, 3))
    g.add_array_vertex("W", "input", (3, 4))
    g.add_array_vertex("z", "input", (5,))
    dot = _op("dot_general", ["x", "W"], (5, 4), dimension_numbers=numbers)
    g.add_array_vertex("h", "intermediate", (5, 4), dot)
    g.add_array_vertex("e", "intermediate", (5, 4), _op("tanh", ["h"], (5, 4)))
    g.add_array_vertex("m", "intermediate", (5, 4), _op("mul", ["e", "h"], (5, 4)))
    g.add_array_vertex("s", "intermediate", (5,), _op("reduce_sum", ["m"], (5,), axes=(1,)))
    cut = _op("slice", ["s"], (3,), start_indices=(1,), limit_indices=(4,), strides=None)
    g.add_array_vertex("y", "output", (3,), cut)
    g.add_array_vertex("w", "output", (5, 4), _op("exp", ["e"], (5, 4)))
    g.add_array_vertex("a", "intermediate", (5,), _op("sin", ["z"], (5,)))
    g.add_array_vertex("b", "intermediate", (5,), _op("exp", ["a"], (5,)))
    g.add_array_vertex("c", "output", (5,), _op("cos", ["b"], (5,)))
    g.validate()
    best = accumulate(g, "vertex-optimal")
    assert best.verified and best.info["optimal"]
    modes = {m: accumulate(g, m).mults for m in ("forward", "reverse", "markowitz")}
    assert modes == {"forward": 480 + 10, "reverse": 224 + 10, "markowitz": 232 + 10}
    assert best.mults == 224 + 10
    assert g.copy() == g


def test_best_and_compare_on_a_tensor_graph_price_blocks():
    """best's portfolio over blocks (same seed, same result) and compare skipping the
    searches priced over scalar labels, saying why."""
    from dgraph.errors import DGraphError
    from dgraph.methods import compare

    g = _chain_graph(6, ["sin", "exp", "tanh", "cos", "exp"])
    one, two = accumulate(g, "best", budget=1), accumulate(g, "best", budget=1)
    assert one.mults == two.mults == 4 * 6 and one.info["order"] == two.info["order"]
    assert one.info["optimal_among"] == "vertex elimination"
    table = compare(g, ["forward", "edge-optimal", "best"], budget=2)
    assert "scalar labels" in table.skipped["edge-optimal"]
    assert table.results["best"].mults == 24
    with pytest.raises(DGraphError, match="tensor graph"):
        accumulate(g, "edge-optimal")


def test_a_tensor_expression_set_prints_its_blocks():
    from dgraph.render.text import expression_set_text

    g = _chain_graph(3, ["tanh", "exp"])
    text = expression_set_text(accumulate(g, "reverse"))
    assert "d_v0_x = diag(1 - tanh(x)**2)   [3 ← 3, diagonal]" in text
    assert "d_y_v0 = diag(exp(v0))   [3 ← 3, diagonal]" in text


def test_a_program_finite_nowhere_is_not_verified():
    """sqrt(-exp(u)) is NaN at every point: the identity holds, but the values could not
    be checked anywhere, so the result is not verified (a state of its own, never a pass,
    and not "wrong"); JSON and the report say so."""
    from dgraph.render.text import cost_line

    es = accumulate(_chain_graph(3, ["exp", "neg", "sqrt"]), "forward")
    assert not es.verified and es.verification.status == "not verified"
    assert "values not checked: no random point in" in es.verification.detail
    assert es.verification.detail.endswith("finite: give a point where it is (point=, --at)")
    summary = es.summary()
    assert summary["verified"] is False and summary["verification"] == "not verified"
    assert "values not checked" in summary["verification_detail"]
    assert "NOT verified: " in cost_line(es) and "WRONG" not in cost_line(es)


@settings(max_examples=40, deadline=None)
@given(programs(max_inputs=3, max_statements=10))
def test_scalar_graphs_as_tensor_graphs_price_as_today(g):
    """A scalar graph is a tensor graph of shapes (): its 1 x 1 blocks (ones for ±1
    labels, constants, general values) price every vertex order at the effective count,
    and the expression sets built on it match Bauer's formula; their blocks have no
    operation to give values, so the values are not checked: not verified, never wrong."""
    from dgraph.elimination.kernel import VALUES, Elimination

    t = g.as_tensor()
    orders = [g.intermediates, g.intermediates[::-1]]
    for order in orders:
        scalar = Elimination(g, VALUES)
        tensor = Elimination(t, BLOCKS)
        assert [scalar.eliminate_vertex(v) for v in order] == [
            tensor.eliminate_vertex(v) for v in order
        ]
    check = accumulate(t, "reverse").verification
    assert check.status == "not verified" and check.mode in ("exact", "random-point")
    assert "blocks given without the operations computing them" in check.detail


def test_compare_on_a_tensor_graph_says_what_its_code_ships(tmp_path, capsys):
    """The codegen line of compare names the set tensor code ships, and the bound its
    unit: multiplications over blocks."""
    import json

    from dgraph.cli import main

    model = tmp_path / "layer.py"
    model.write_text(
        "import numpy as np\n\ndef layer(x, W):\n    return np.sum(np.tanh(x @ W) ** 2, axis=1)\n"
    )
    args = ["compare", f"{model}:layer", "--inputs", "x:5x3,W:3x4"]  # in this process
    # a budget whose ceiling no load reaches (the work is the same: best proves reverse
    # optimal at once); with --budget 1 a busy machine's ceiling cut the codegen line
    args += ["--budget", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "(mults over blocks)" in out
    assert "codegen: ships reverse, the cheapest of forward, reverse and markowitz" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["codegen"]["tensor"].startswith("ships reverse")


def test_names_read_follows_nested_operations_and_skips_constants():
    inner = ArrayOp("mul", ("b", Const.of(np.ones(2))), (), (2,))
    outer = ArrayOp("add", ("a", inner), (), (2,))
    assert names_read([outer]) == {"a", "b"}
    assert names_read(["c", outer, Const.of(2.0)]) == {"a", "b", "c"}
    assert names_read([Const.of(np.zeros(3))]) == set()


def test_with_leaves_replaces_every_leaf_and_keeps_a_shared_operation_shared():
    shared = ArrayOp("sin", ("b",), (), (2,))
    op = ArrayOp("add", ("a", ArrayOp("mul", (shared, "c"), (), (2,))), (), (2,))
    op = ArrayOp("sub", (op, shared), (), (2,))
    got = with_leaves(op, lambda x: x.upper() if isinstance(x, str) else x)
    assert names_read([got]) == {"A", "B", "C"}
    assert got.operands[0].operands[1].operands[0] is got.operands[1]
    assert got == with_leaves(got, lambda x: x)
    assert got != op
