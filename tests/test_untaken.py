"""A where's untaken case guarded (dgraph.core.untaken): reverse mode and Hessians of
``where(x > 0, sqrt(x), 0)`` at ``x < 0`` are finite, as ``jax.jacfwd`` of ``jax.jacfwd``
gives them, where ``jax.grad`` and ``jax.hessian`` give NaN; a case's shared vertex is
not guarded."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.core.untaken import guarded
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _sigmoid_sq(xp):
    """The stable sigmoid, squared: ``exp(1000)`` in the case not taken at ``x = -1000``."""
    return lambda x: xp.sum(
        xp.where(x >= 0, 1 / (1 + xp.exp(-x)), xp.exp(x) / (1 + xp.exp(x))) ** 2
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_numpy_reverse_and_hessian_are_finite_at_an_untaken_sqrt():
    x = np.array([-1.0, 4.0, 0.5, 2.0])
    f = lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0) * x)  # noqa: E731
    fj = lambda x: jnp.sum(jnp.where(x > 0, jnp.sqrt(x), 0.0) * x)  # noqa: E731
    with jax.enable_x64(True):
        J = np.asarray(jref.jacfwd(fj)(x))  # the references jitted: one compile each
        H = np.asarray(jref.forward_hessian(fj)(x))
        assert np.isnan(np.asarray(jax.jit(jax.grad(fj))(x))[0])  # JAX's reverse mode: 0 · NaN
    vjp = dgraph.make_function(f, "vjp", point=[x], method="symbolic")  # the choice's
    np.testing.assert_allclose(vjp(x, np.ones(1)), J, rtol=1e-12)
    hess = dgraph.make_function(f, "hessian", point=[x])
    np.testing.assert_allclose(hess(x), H, rtol=1e-12, atol=1e-15)
    assert hess.generated.verified is True
    y = np.array([3.0, -4.0, 1.0, -2.0])  # the other entries untaken at another call
    with jax.enable_x64(True):
        np.testing.assert_allclose(hess(y), jref.forward_hessian(fj)(y), atol=1e-15)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_jax_hessian_of_the_stable_sigmoid_is_finite_where_exp_overflows():
    x = np.array([-1000.0, 800.0, 1.0, -2.0])
    fj = _sigmoid_sq(jnp)
    hess = dgraph.make_function(fj, "hessian", point=[x])
    with jax.enable_x64(True):
        H = np.asarray(jref.forward_hessian(fj)(x))  # jitted: one compile, not op by op
        assert np.isnan(np.asarray(jref.hessian(fj)(x))[0, 0])
    np.testing.assert_allclose(hess(x), H, rtol=1e-12, atol=1e-300)
    assert hess.generated.verified is True
    assert hess(x)[0, 0] == 0.0 and hess(x)[1, 1] == 0.0


def test_a_vertex_the_case_shares_is_not_guarded():
    """``r`` is read by the condition too: its NaN partial at ``d = 0`` is the
    function's (no derivative there), and ``1/r``, read by the case alone, is guarded."""

    def f(d):
        r = np.sqrt(np.sum(d * d, axis=1))
        return np.where(r > 0, 1 / r, 0.0)

    g = dgraph.from_function(f, sizes=[(3, 2)], level="array")
    assert guarded(g)
    guards = [v for v in g.intermediates if v.endswith("_taken")]
    assert len(guards) == 1 and g.op(guards[0]).operands[2] == "r"

    def shared(x):  # sqrt(x) is an output as well: its value is seen, never guarded
        s = np.sqrt(x)
        return np.where(x > 0, s, 0.0), s

    assert not guarded(dgraph.from_function(shared, sizes=[(3,)], level="array"))

    def powered(x, p):  # p a parameter: no derivative to guard (it raised KeyError)
        return np.where(x > 0, x**p + np.log(p * x), 0.0)

    g = dgraph.from_function(powered, sizes=[3, 3], params=["p"], level="array")
    assert sorted(v for v in g.intermediates if v.endswith("_taken")) == ["t2_taken", "x_taken"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_loop_body_s_untaken_case_is_guarded():
    """A scan whose body reads ``where(x > 0, sqrt(x), 0)``: its vjp was refused ("did
    not verify": 0 · NaN in the body's sweep at the user's point)."""

    def f(x):
        def body(c, xi):
            c = c + jnp.where(xi > 0, jnp.sqrt(xi), 0.0) * c
            return c, c

        return jnp.sum(jax.lax.scan(body, 1.0, x)[1])

    x = np.array([-1.0, 4.0, 0.5, 2.0])
    vjp = dgraph.make_function(f, "vjp", point=[x])
    with jax.enable_x64(True):
        J = np.asarray(jref.jacfwd(f)(x))
    np.testing.assert_allclose(vjp(x, np.ones(())), J, rtol=1e-12)
    assert J[0] == 0.0 and vjp.generated.verified is True


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_jax_hessian_through_a_cond_and_a_loop_is_the_guarded_one():
    """A ``where`` in a ``fori_loop``'s body beside a ``lax.cond``: the Hessian of the
    guarded graph's primal needs the cond under JAX's trace (``lax.switch``, not a Python
    branch on a concrete index); it was JAX's own, NaN, and not verified."""

    def f(x):
        y = jax.lax.cond(x[0] > 0, lambda x: jnp.where(x > 0, jnp.log(x), 0.0), lambda x: x, x)
        z = jax.lax.fori_loop(0, 3, lambda i, c: c + jnp.where(c > 1, jnp.sqrt(c - 1), 0.0), x)
        return jnp.sum(y * z)

    x = np.array([1.5, -4.0, 0.5, 2.0])
    hess = dgraph.make_function(f, "hessian", point=[x])
    with jax.enable_x64(True):
        H = np.asarray(jref.forward_hessian(f)(x))
    np.testing.assert_allclose(hess(x), H, rtol=1e-12, atol=1e-15)
    assert hess.generated.verified is True


def test_a_guard_comes_after_its_predicate_made_after_the_case():
    """A case made before its select's predicate (scipy's ``truncnorm`` log tails: the
    complement's ``log1p(−exp(·))`` then the test on the direct one): the guard, which
    reads the predicate, is placed after it (before, the graph was refused: 'unknown
    operand'); the graph's tangent equals the derivative of the case taken."""
    from dgraph.core.block_values import graph_jvp_and_scale, vertex_values
    from dgraph.frontends import from_python

    def f(x):
        case = np.log1p(-np.exp(-x))
        lower = x * x - 1.0
        return np.where(lower > -0.1, case, lower)

    x = np.array([0.5, 2.0])
    g = from_python(f, point=[x], level="array")
    assert guarded(g)
    values = vertex_values(g, {g.inputs[0]: x})
    (y,) = g.outputs
    jv = graph_jvp_and_scale(g, values, {g.inputs[0]: np.ones(2)})[0][y]
    np.testing.assert_allclose(values[y], f(x), rtol=1e-15)
    np.testing.assert_allclose(jv, [2 * 0.5, np.exp(-2.0) / (1 - np.exp(-2.0))], rtol=1e-14)
