"""A gather of a gather at constant positions is one gather
(dgraph/codegen/tensor/gather_chains.py), and a scatter-add into a scatter-add's result
one scatter-add (scatter_chains.py): the minimal surface's ``vjp`` moved its cotangent
back through the pad and the slices by three gathers in a row, now one, and added into it
by three scatter-adds in a row, now one, with the same values (JAX's gradient) in NumPy, C
and JAX; both passes follow only names written once, and a scatter-add's base only
through views that keep its size."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.ir import ArrayStatement, Call, Const, Index, Name, ScatterAdd  # noqa: E402
from dgraph.codegen.tensor.gather_chains import gathers_of_gathers  # noqa: E402
from dgraph.codegen.tensor.scatter_chains import merged_scatter_adds  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def minsurf(u):
    """The COPS minimal surface on a padded grid (benchmarks/hessian_functions.py)."""
    h = 1.0 / (u.shape[0] + 1)
    s = jnp.linspace(0.0, 1.0, u.shape[0] + 2)
    edge = 1.0 - (2.0 * s - 1.0) ** 2
    p = jnp.pad(u, 1).at[0, :].set(edge).at[-1, :].set(edge)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


@pytest.mark.parametrize("lang", ["python", "c", "jax"])
def test_the_minimal_surface_vjp_gathers_its_cotangent_once(lang):
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    u = np.cos(np.arange(36.0)).reshape(6, 6) * 0.3
    with jax.enable_x64(True):
        graph = dgraph.from_jax(minsurf, u, level="array")
        vjp = dgraph.make_function(graph, "vjp", lang=lang)
        want = np.asarray(jref.jacrev(minsurf)(jnp.asarray(u)))
        got = np.asarray(vjp(u, np.ones(())) if lang != "jax" else vjp(jnp.asarray(u), 1.0))
    assert vjp.generated.verified
    np.testing.assert_allclose(got.reshape(u.shape), want, rtol=1e-13, atol=1e-15)
    if lang == "python":  # the last statements: one gather, then the result's reshape
        lines = vjp.generated.text.rstrip().splitlines()
        assert sum("[_K" in line for line in lines[-4:]) == 1, "\n".join(lines[-4:])
        assert vjp.generated.text.count("_scatter_add(") == 1 + 1  # its definition, one call


def _gather(source: str, key: str):
    return Index(Call("ravel", (Name(source),)), (Name(key),))


def test_positions_compose_and_only_names_written_once_are_followed():
    constants = {"K1": np.array([5, 3, 1, 0]), "K2": np.array([[2, 0], [1, 3]])}
    made: dict[str, np.ndarray] = {}

    def add(array):
        made[f"_M{len(made)}"] = array
        return Name(f"_M{len(made) - 1}")

    statements = [
        ArrayStatement("u", _gather("z", "K1")),
        ArrayStatement("t", _gather("u", "K2")),
        ArrayStatement("r", Call("add", (Name("t"), Name("u")))),  # u still read here
    ]
    out = gathers_of_gathers(statements, constants, add)
    assert out[0] == statements[0] and out[2] == statements[2]
    assert out[1].value == _gather("z", "_M0")
    np.testing.assert_array_equal(made["_M0"], [[1, 5], [3, 0]])  # K1[K2]
    z = np.arange(10.0, 16.0)
    assert np.array_equal(
        np.ravel(z)[made["_M0"]], np.ravel(np.ravel(z)[constants["K1"]])[constants["K2"]]
    )
    twice = [ArrayStatement("z", Call("sin", (Name("x"),))), *statements[:2]]
    twice.insert(2, ArrayStatement("z", Call("cos", (Name("x"),))))  # z written again
    assert gathers_of_gathers(twice, constants, add) == twice
    masks = {"K1": np.array([True, False]), "K2": constants["K2"]}  # a mask is no gather
    assert gathers_of_gathers(statements, masks, add) == statements
    outside = {"K1": constants["K1"], "K2": np.array([4])}  # the program's own IndexError
    assert gathers_of_gathers(statements, outside, add) == statements


def _views(name: str, *calls) -> object:
    node = Name(name)
    for func, *shape in calls:
        node = Call(func, (node, *(Const(v) for v in shape)))
    return node


def test_a_scatter_add_into_a_scatter_add_adds_both_parts_in_order():
    p, q, r = (Name("K1"), Name("d1")), (Name("K2"), Name("d2")), (Name("K3"), Name("d3"))
    first = ArrayStatement("s", ScatterAdd(Name("b"), (p, q)))
    shaped = ArrayStatement("m", Call("reshape", (Name("s"), Const((3, 4)))))
    base = _views("m", ("ravel",), ("broadcast_to", (12,)))
    second = ArrayStatement("t", ScatterAdd(base, (r,)))
    out = merged_scatter_adds([first, shaped, second])
    assert out[:2] == [first, shaped] and out[2].value == ScatterAdd(Name("b"), (p, q, r))
    unsized = ArrayStatement("t", ScatterAdd(_views("s", ("broadcast_to", (12,))), (r,)))
    assert merged_scatter_adds([first, unsized]) == [first, unsized]  # s's size not known
    other = ArrayStatement("m", Call("reshape", (Name("s"), Const((3, 5)))))
    assert merged_scatter_adds([first, other, second]) == [first, other, second]
    again = ArrayStatement("s", Call("sin", (Name("s"),)))  # s written twice
    assert merged_scatter_adds([first, again, shaped, second])[3] == second
    stored = ArrayStatement("d1", Const(0.0), at=(Const(0),))  # d1 changed in between
    assert merged_scatter_adds([first, stored, shaped, second])[3] == second
