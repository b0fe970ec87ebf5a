"""JAX gathers of an input's moved entries composed into gathers of the input
(dgraph/codegen/tensor/jax_moves.py), and JAX grid gathers that stay gathers where a
concatenation would hold a broadcast (grid_jax.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen import ir
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import ArrayProgram, ArrayStatement, BinOp, Call, Const, Index, Name
from dgraph.codegen.tensor.constants import Constants
from dgraph.codegen.tensor.grid_index import pieces
from dgraph.codegen.tensor.grid_jax import _assembled
from dgraph.codegen.tensor.jax_moves import composed_gathers

from .dense import dense as as_dense


def _program(constants: Constants) -> ArrayProgram:
    """u (6) padded by one constant each side, masked, sliced; gathered at K, doubled."""
    mask = constants.add(np.array([True, True, False, True, True, True, True, False]))
    other = constants.add(np.linspace(-1.0, 1.0, 8))
    at = constants.index(np.array([7, 0, 2, 3, 3, 6, 1]))
    statements = [
        ArrayStatement("u_", Call("reshape", (Call("asarray", (Name("u"),)), Const((6,))))),
        ArrayStatement(
            "p", Call("pad", (Name("u_"), Const(((1, 1),))), (("constant_values", Const(5.0)),))
        ),
        ArrayStatement("q", Call("where", (mask, Name("p"), other))),
        ArrayStatement("y", BinOp("*", Index(Call("ravel", (Name("q"),)), (at,)), Const(2.0))),
    ]
    return ArrayProgram("f", ("u",), ((6,),), ("u",), statements, ["y"])


def test_a_gather_of_moved_entries_reads_the_input():
    constants = Constants()
    program = _program(constants)
    out = composed_gathers(program, constants, {"y"})
    assert [s.target for s in out] == ["u_", "y"]  # the pad and the where are gone
    read = ir.names_in(out[-1].value)
    assert "u_" in read and not read & {"p", "q"}
    u = np.arange(10.0, 16.0)
    env = {k: v for k, v in constants.arrays.items()}
    want = ArrayEvaluator().run(program.statements, {**env, "u": u})["y"]
    got = ArrayEvaluator().run(out, {**env, "u": u})["y"]
    # entries: constants at places 7 and 2 (masked out), the pad's 5, u[2] twice, u[5], u[0]
    np.testing.assert_array_equal(got, want)
    assert got.tolist() == [2.0, 10.0, 2 * np.linspace(-1.0, 1.0, 8)[2], 24.0, 24.0, 30.0, 20.0]


def test_gathers_of_arithmetic_stay():
    constants = Constants()
    program = _program(constants)
    statements = list(program.statements)
    statements[2] = ArrayStatement("q", BinOp("*", Name("p"), Const(3.0)))  # not a move
    program.statements = statements
    assert composed_gathers(program, constants, {"y"}) == statements


def test_a_concatenation_with_a_broadcast_stays_a_gather():
    # a run, then each entry of a row twice (stride 0), then a run: three grids
    a = np.concatenate([np.arange(4), np.repeat(np.arange(10, 16), 2), np.arange(20, 23)])
    found = pieces(a, limit=3, period=1)
    assert found is not None and len(found) > 1
    assert _assembled(Name("v"), 30, found) is None
    single = pieces(np.repeat(np.arange(10, 16), 2), limit=3, period=1)
    assert single is not None and _assembled(Name("v"), 30, single) is not None


@pytest.mark.parametrize("m", [4])
def test_minimal_surface_hessian_in_jax(m, monkeypatch):
    """The Hessian equals ``jax.hessian``'s; the padded grid, of which the gradient reads
    35 of 36 entries at m = 4, is computed whole (more than ``WHOLE_ABOVE`` demanded), and
    narrowed to gathers of ``u`` when every statement not wholly demanded is narrowed."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    import dgraph
    from dgraph.codegen.tensor import triangle

    def area(u):
        h = 1.0 / (m + 1)
        s = jnp.linspace(0.0, 1.0, m + 2)
        edge = 1.0 - (2.0 * s - 1.0) ** 2
        p = jnp.pad(jnp.reshape(u, (m, m)), 1)
        p = p.at[0, :].set(edge).at[-1, :].set(edge)
        dx = (p[1:, :-1] - p[:-1, :-1]) / h
        dy = (p[:-1, 1:] - p[:-1, :-1]) / h
        return 0.5 * h * h * jnp.sum(jnp.sqrt(1.0 + dx**2 + dy**2))

    x = np.random.default_rng(3).uniform(0.0, 0.5, m * m)
    with jax.enable_x64(True):  # jitted: run eagerly, each operation compiles on its own
        want = np.asarray(jax.jit(jax.hessian(area))(jnp.asarray(x)))
    for whole_above, padded in [(triangle.WHOLE_ABOVE, True), (1.0, False)]:
        monkeypatch.setattr(triangle, "WHOLE_ABOVE", whole_above)
        with jax.enable_x64(True):
            hess = dgraph.make_function(area, "hessian", "jax", point=[x], sparse=True)
            text = hess.gradient.generated.text
            body = text[text.index("def _jacobian_arrays") : text.index("def _jacobian_tril")]
            assert ("constant_values" in body) is padded
            assert ("jnp.ravel(u_)[" in body) is not padded
            got = as_dense(hess(jnp.asarray(x)))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
