"""JAX gathers of a padded, reshaped vector at constant positions composed at generation
(dgraph/codegen/tensor/jax_spreads.py): dropped where they take the padded array as it
is (Rosenbrock's ``3i + (0, 2, 2)``, the identity), a spread where they take the vector
in order at evenly stepping places (``3i + (0, 2)``), kept otherwise (a periodic index
that duplicates the vector's entries, a shuffled one, irregular head or tail); the
values bit for bit those of the gather, and a Hessian's those of ``jax.hessian``."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen import ir
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import ArrayProgram, ArrayStatement, BinOp, Call, Const, Index, Name
from dgraph.codegen.tensor.constants import Constants
from dgraph.codegen.tensor.jax_spreads import spread_gathers

from .dense import dense as as_dense

M = 7  # rows of the spread: d's entries


def _spread3(d: ir.Node) -> ir.Node:
    """Rosenbrock's ``pad(ravel(pad(reshape(d, (m, 1)), ((0, 0), (0, 2)))), ((0, 1),))``:
    d's entries at 3i, zeros elsewhere, one zero more (3m + 1 entries)."""
    column = Call("reshape", (Call("ravel", (d,)), Const((M, 1))))
    rows = Call("pad", (column, Const(((0, 0), (0, 2)))))
    return Call("pad", (Call("ravel", (rows,)), Const(((0, 1),))))


def _program(constants: Constants, at: np.ndarray, source=_spread3) -> ArrayProgram:
    """``y = source(u_ * 2) [at] + 1``."""
    statements = [
        ArrayStatement("u_", Call("reshape", (Call("asarray", (Name("u"),)), Const((M,))))),
        ArrayStatement("d", BinOp("*", Name("u_"), Const(2.0))),
        ArrayStatement(
            "y", BinOp("+", Index(source(Name("d")), (constants.index(at),)), Const(1.0))
        ),
    ]
    return ArrayProgram("f", ("u",), ((M,),), ("u",), statements, ["y"])


def _gathers(statements) -> int:
    return sum(
        isinstance(n, Index) and isinstance(n.items[0], Name)
        for s in statements
        for n in ir.walk(s.value)
    )


def _same_values(program: ArrayProgram, out, constants: Constants) -> None:
    u = np.random.default_rng(5).standard_normal(M)
    u[2] = -0.0  # a negative zero moves as it is
    env = dict(constants.arrays)
    want = ArrayEvaluator().run(program.statements, {**env, "u": u})["y"]
    got = ArrayEvaluator().run(out, {**env, "u": u})["y"]
    assert got.shape == want.shape
    assert np.array_equal(got.view(np.int64), want.view(np.int64))  # bit for bit


def test_rosenbrocks_periodic_gather_is_dropped():
    """``3i + (0, 2, 2)`` and the last place: each row's d entry and two of its zeros,
    the padded array as it is."""
    at = np.concatenate([(3 * np.arange(M)[:, None] + [0, 2, 2]).ravel(), [3 * M]])
    assert at[:9].tolist() == [0, 2, 2, 3, 5, 5, 6, 8, 8]
    constants = Constants()
    program = _program(constants, at)
    out = spread_gathers(program, constants)
    assert _gathers(program.statements) == 1 and _gathers(out) == 0
    assert out[-1].value.left == _spread3(Name("d"))  # the padded array itself
    _same_values(program, out, constants)


def test_a_gather_of_every_other_row_entry_is_a_spread():
    """``3i + (0, 2)`` and the last place: d spread with step 2 (the lower triangle's)."""
    at = np.concatenate([(3 * np.arange(M)[:, None] + [0, 2]).ravel(), [3 * M]])
    constants = Constants()
    program = _program(constants, at)
    out = spread_gathers(program, constants)
    assert _gathers(out) == 0
    assert "pad" in {n.func for n in ir.walk(out[-1].value) if isinstance(n, Call)}
    _same_values(program, out, constants)


def test_the_identity_is_dropped():
    constants = Constants()
    program = _program(constants, np.arange(M + 1), lambda d: Call("pad", (d, Const(((1, 0),)))))
    out = spread_gathers(program, constants)
    assert _gathers(out) == 0
    _same_values(program, out, constants)


@pytest.mark.parametrize(
    "at",
    [
        np.random.default_rng(1).permutation(3 * M + 1),  # no period
        np.concatenate([[3], (3 * np.arange(M)[:, None] + [0, 2]).ravel()]),  # irregular head
        np.concatenate([(3 * np.arange(M)[:, None] + [0, 2]).ravel(), [0]]),  # irregular tail
        (3 * np.arange(M)[:, None] + [0, 0]).ravel(),  # each entry twice: a gather stays
        np.arange(3 * M + 1)[::-1].copy(),  # reversed
    ],
)
def test_other_positions_are_kept(at):
    constants = Constants()
    program = _program(constants, at)
    out = spread_gathers(program, constants)
    assert out == program.statements
    _same_values(program, out, constants)


def test_a_zero_at_the_head_or_tail_is_part_of_the_spread():
    rows = (3 * np.arange(M)[:, None] + [0, 2]).ravel()
    for at in (np.concatenate([[1], rows]), np.concatenate([rows, [4]])):
        constants = Constants()
        program = _program(constants, at)
        out = spread_gathers(program, constants)
        assert _gathers(out) == 0
        _same_values(program, out, constants)


def test_a_gather_without_a_pad_is_left_to_the_grid_search():
    constants = Constants()
    program = _program(constants, np.arange(M), lambda d: Call("ravel", (d,)))
    assert spread_gathers(program, constants) == program.statements


def test_rosenbrock_hessian_in_jax(monkeypatch):
    """With the mirror pushed into the assembly (GATHER_FROM lowered to this size), the
    module's Rosenbrock Hessian holds no gather the pass drops; its values, bit for bit,
    are those of the module written without the pass, and equal ``jax.hessian``'s."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    import dgraph
    from dgraph.codegen.tensor import gathers, module

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    monkeypatch.setattr(gathers, "GATHER_FROM", 10)
    monkeypatch.setattr(module, "GATHER_FROM", 10)
    n = 12
    results = {}
    with jax.enable_x64(True):
        x = np.random.default_rng(2).uniform(-1.0, 1.0, n)
        for on in (True, False):
            if not on:
                monkeypatch.setattr(module, "spread_gathers", lambda p, c: list(p.statements))
            hess = dgraph.make_function(rosenbrock, "hessian", "jax", point=[x], sparse=True)
            text = hess.gradient.generated.text
            body = text[text.index("def _jacobian_arrays") : text.index("_jacobian_arrays = ")]
            whole, low = hess(jnp.asarray(x)), hess.gradient.generated.tril(jnp.asarray(x))
            results[on] = [(np.asarray(a.indices), np.asarray(a.data)) for a in (whole, low)]
            results[on].append(body)
            dense = [as_dense(a) for a in (whole, low)]
        want = np.asarray(jax.jit(jax.hessian(rosenbrock))(x))  # one compile, not one per operation
    on, off = results[True], results[False]
    assert on[2].count("[_K") < off[2].count("[_K")  # gathers dropped
    for (i, a), (j, b) in zip(on[:2], off[:2], strict=True):
        assert np.array_equal(i, j) and a.dtype == b.dtype == np.float64
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
    np.testing.assert_allclose(dense[0], want, rtol=1e-13, atol=1e-13)
    low = dense[1]
    np.testing.assert_allclose(low, np.tril(want), rtol=1e-13, atol=1e-13)
