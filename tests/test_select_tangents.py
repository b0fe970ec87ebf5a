"""A tangent through ``where``/``select_n`` leaves out the branch not taken: in
``where(x > 0, x*log(x), 0)`` at x = -3 the branch ``x*log(x)`` is NaN, and the tangent
sweep multiplied its NaN tangent by the selection's 0 (NaN), where JAX's ``select_n``
tangent rule ``select(c, ȧ, ḃ)`` gives 0, as the element level does
(:func:`dgraph.codegen.array_passes.selected_products`). A cotangent moved back past a
selection meets the branch's partials at a placeholder where the branch is not taken
(:mod:`dgraph.core.untaken`): the vjp is finite there, where JAX's reverse rule gives NaN."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

X = np.array([0.5, 2.0, -3.0, 0.7])


def entropy_terms(x):
    return np.where(x > 0, x * np.log(x), 0.0) + np.where(x < 1, 2 * x, x**2)


def entropy_terms_jax(x):
    return jnp.where(x > 0, x * jnp.log(x), 0.0) + jnp.where(x < 1, 2 * x, x**2)


V = np.array([1.0, -0.5, 2.0, 0.25])


@functools.cache
def _references() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """JAX's J·V, Jacobian and V·J (its reverse rule's NaN) at X, in one jitted program,
    once for the file (read-only arrays)."""

    def program(x, v):
        tangent = jax.jvp(entropy_terms_jax, (x,), (v,))[1]
        return tangent, jax.jacfwd(entropy_terms_jax)(x), jax.vjp(entropy_terms_jax, x)[1](v)[0]

    with jax.enable_x64(True):
        found = tuple(np.array(a) for a in jax.jit(program)(X, V))
    for a in found:
        a.flags.writeable = False
    return found


@pytest.mark.parametrize("lang", ["python", "c", "jax"])
def test_jvp_and_forward_jacobian_leave_the_untaken_branch_out(lang):
    graph = dgraph.from_function(entropy_terms, sizes=[4], point=[X], level="array")
    v = V
    tangent, J, pulled = _references()
    assert np.isfinite(tangent).all() and np.isnan(pulled[2])  # JAX's own two rules
    jvp = dgraph.make_function(graph, "jvp", lang)
    forward = dgraph.make_function(graph, "jacobian", lang, method="forward")
    vjp = dgraph.make_function(graph, "vjp", lang)
    with jax.enable_x64(True):  # the generated JAX code's precision
        np.testing.assert_allclose(jvp(X, v), tangent, rtol=1e-15)
        np.testing.assert_allclose(forward(X), J, rtol=1e-15)
        np.testing.assert_allclose(vjp(X, v), v @ J, rtol=1e-15)  # not JAX's NaN


def test_the_element_level_agrees():
    graph = dgraph.from_function(entropy_terms, sizes=[4], point=[X], level="element")
    J = _references()[1]
    made = dgraph.make_function(graph, "jacobian", method="symbolic")  # the choice's: same code
    np.testing.assert_allclose(made(X), J, rtol=1e-15)


def poincare_project(x):
    n = np.linalg.norm(x)
    return np.where(n >= 1, x / n, x)


def test_a_case_sharing_its_norm_with_the_predicate_is_left_out_at_the_origin():
    """``where(n >= 1, x/n, x)``, ``n = |x|``, at x = 0: ``∂n/∂x = x/n`` is 0/0 there and
    reached the jvp and vjp as ``0 · NaN`` through the case not taken (the scalar sweeps,
    :mod:`dgraph.codegen.untaken_products`); the function is the identity around 0."""
    origin = np.zeros(3)
    v = np.array([0.3, -0.2, 0.7])
    # symbolic: the method the choice gives (the same code)
    jvp = dgraph.make_function(poincare_project, "jvp", point=[origin], method="symbolic")
    vjp = dgraph.make_function(poincare_project, "vjp", point=[origin], method="symbolic")
    assert jvp.generated.verified and vjp.generated.verified  # at the user's point too
    np.testing.assert_array_equal(jvp(origin, v), v)
    np.testing.assert_array_equal(vjp(origin, v), v)
    for x in (np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 0.5])):  # n < 1, n > 1
        n = np.linalg.norm(x)
        J = np.eye(3) if n < 1 else (np.eye(3) - np.outer(x, x) / n**2) / n
        np.testing.assert_allclose(jvp(x, v), J @ v, rtol=1e-14)
        np.testing.assert_allclose(vjp(x, v), v @ J, rtol=1e-14)


def test_a_product_by_what_a_selection_made_is_a_selection():
    """A cotangent past a selection (``r2 = m · w``, ``m`` the select's 0/1 block) is 0
    where the case is not taken; its product by the case's partial ``d`` (NaN where data
    are missing) is a selection too, and so on down the chain, each reading the values
    where every condition on the way holds: ``0 · NaN`` never formed (main: ``r3 = r2 *
    d``, NaN)."""
    from dgraph.codegen import ir
    from dgraph.codegen.array_passes import selected_products
    from dgraph.codegen.evaluate import evaluate_statements

    c, k = ir.Name("c"), ir.Name("k")
    statements = [
        ir.ArrayStatement("m", ir.Call("where", (c, ir.Const(1.0), ir.Const(0.0)))),
        ir.ArrayStatement("n", ir.Call("where", (k, ir.Const(0.0), ir.Const(1.0)))),
        ir.ArrayStatement("r2", ir.BinOp("*", ir.Name("w"), ir.Name("m"))),
        ir.ArrayStatement("r3", ir.BinOp("*", ir.Name("r2"), ir.Name("d"))),
        ir.ArrayStatement(
            "r4", ir.BinOp("/", ir.BinOp("*", ir.Name("n"), ir.Name("r3")), ir.Name("d"))
        ),
    ]
    out = selected_products(statements)
    env = {
        "c": np.array([True, False, True]),
        "k": np.array([False, False, True]),
        "w": np.array(2.0),
        "d": np.array([3.0, np.nan, 0.0]),
    }
    with np.errstate(invalid="ignore"):
        found = evaluate_statements(out, dict(env))
    np.testing.assert_array_equal(found["r3"], [6.0, 0.0, 0.0])
    np.testing.assert_array_equal(found["r4"], [2.0, 0.0, 0.0])


def test_a_take_s_adjoint_is_zero_where_it_lands_nothing():
    """A take's adjoint (a segment sum marked with its ``hits``) is 0 where no position
    lands, by structure; moved (reshaped, raveled, scaled) and multiplied by a partial
    that is infinite or NaN there (``sqrt``'s at a clipped entry not taken), the product
    is a selection on the entries it lands on (main: ``0 · inf``, NaN). A segment sum of
    the program's own (no ``hits``) is what it computes: left as it is."""
    from dgraph.codegen import ir
    from dgraph.codegen.array_passes import selected_products
    from dgraph.codegen.evaluate import evaluate_statements

    w, ids, d = ir.Name("w"), ir.Name("ids"), ir.Name("d")
    ones = ir.Call("broadcast_to", (ir.Const(1.0), ir.Const((2,))))
    statements = [
        ir.ArrayStatement("s", ir.SegmentSum(w, ids, 4, ones)),
        ir.ArrayStatement("t", ir.Call("reshape", (ir.Name("s"), ir.Const((2, 2))))),
        ir.ArrayStatement("u", ir.BinOp("*", ir.Name("t"), ir.Const(-1.0))),
        ir.ArrayStatement(
            "v", ir.BinOp("*", ir.Call("ravel", (ir.Name("u"),)), ir.Call("ravel", (d,)))
        ),
        ir.ArrayStatement("p", ir.SegmentSum(w, ids, 4)),
        ir.ArrayStatement("q", ir.BinOp("*", ir.Name("p"), ir.Call("ravel", (d,)))),
    ]
    out = selected_products(statements)
    env = {
        "w": np.array([1.5, 2.0]),
        "ids": np.array([0, 3]),
        "d": np.array([[1.0, np.inf], [np.nan, 2.0]]),
    }
    with np.errstate(invalid="ignore"):
        found = evaluate_statements(out, dict(env))
    np.testing.assert_array_equal(found["v"], [-1.5, 0.0, 0.0, -4.0])
    np.testing.assert_array_equal(found["q"], [1.5, np.nan, np.nan, 4.0])
    assert out[2] == statements[2]  # a product by a number: no where


def test_a_chain_is_zeroed_where_something_other_than_a_product_reads_it():
    """Given the results, a chain's links that only products, moves and the chain's own
    sums read are left bare (NaN or the selected value outside ``c``), and the ``where``
    goes where something else reads one: ``t`` (a sum reads it: kept, else ``s`` would
    read ``x + 1`` outside ``c``), and the two ends' sum ``k`` — 2 ``where``s, not the 3
    of one a product (main), the results the same bit for bit."""
    from dgraph.codegen import ir
    from dgraph.codegen.array_passes import selected_products
    from dgraph.codegen.evaluate import evaluate_statements

    def n(name):
        return ir.Name(name)

    def square(name):
        return ir.Call("reshape", (n(name), ir.Const((2, 2))))

    statements = [
        ir.ArrayStatement("m", ir.Call("where", (n("c"), ir.Const(1.0), ir.Const(0.0)))),
        ir.ArrayStatement("t", ir.BinOp("*", n("m"), n("x"))),
        ir.ArrayStatement("s", ir.BinOp("+", n("t"), ir.Const(1.0))),
        ir.ArrayStatement("u", ir.BinOp("*", n("t"), n("d"))),
        ir.ArrayStatement("v", ir.BinOp("*", n("u"), ir.Const(-2.0))),
        ir.ArrayStatement("e", ir.BinOp("*", n("u"), n("d"))),
        ir.ArrayStatement("k", ir.BinOp("+", square("v"), square("e"))),
        ir.ArrayStatement("q", ir.BinOp("+", n("k"), square("s"))),
    ]
    env = {
        "c": np.array([True, False, True, False]),
        "x": np.array([1.5, 2.0, 1.0, 3.0]),
        "d": np.array([3.0, np.inf, 0.5, np.nan]),
    }
    known = {name: (4,) for name in env}
    old = selected_products(statements, known)
    new = selected_products(statements, known, ["q"])
    with np.errstate(invalid="ignore"):
        want, found = (evaluate_statements(out, dict(env))["q"] for out in (old, new))
    np.testing.assert_array_equal(found, [[7.0, 1.0], [1.25, 1.0]])
    np.testing.assert_array_equal(found, want)
    wheres = [sum(repr(s.value).count("'where'") for s in out) for out in (old, new)]
    assert wheres == [1 + 3, 1 + 2]  # the mask's own, and the chain's
