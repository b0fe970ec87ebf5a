"""A small reference NumPy runs whole is not compiled (dgraph/frontends/jaxpr_arrays.py's
``numpy_cheaper``): JAX's ``jvp`` program of elementwise arithmetic, moves, reductions
and ``dot_general`` runs equation by equation in NumPy (``run_eagerly``), lowering and
compiling nothing, with JAX's values; a program with an equation NumPy does not take, or
past ``REFERENCE_NUMPY_MOST`` entries times equations, is compiled as before. Counted by
JAX's lowerings (``jax.monitoring``), never by time."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

from dgraph import accumulate, from_jax  # noqa: E402
from dgraph.core import block_values  # noqa: E402
from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr_arrays import JaxJvp  # noqa: E402
from dgraph.frontends.jaxpr_numpy import numpy_equation, numpy_program  # noqa: E402
from tests.jax_events import counted  # noqa: E402

X = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])
V = np.array([1.0, -0.5, 2.0, 0.25, -1.5, 0.75])


def _layer(x):
    w = jnp.arange(18.0).reshape(3, 6) / 10
    h = jnp.tanh(w @ x) * jnp.exp(-x[:3]) + jax.nn.softmax(x)[::2]
    return jnp.concatenate([h, jnp.sum(x**2, keepdims=True)]) / (1.0 + x[3])


def _log_gamma(x):
    """igamma: an equation NumPy does not take (jnp.sort was one until NumPy ran sorts,
    lax.lgamma until SciPy's gammaln ran it)."""
    return lax.igamma(1.5, x * x + 0.5) * jnp.sin(x)


def _want(f):
    with jax.enable_x64(True):
        return np.asarray(jax.jvp(f, (jnp.asarray(X),), (jnp.asarray(V),))[1])


def _run(reference):
    """The reference's J·v at (X, V) twice (the check's two points), and JAX's lowerings."""
    lowerings, got = counted(lambda: [reference({"x": X}, {"x": V})["y"] for _ in range(2)])
    return got, lowerings


def test_a_small_program_numpy_runs_whole_compiles_nothing():
    reference = JaxJvp(_layer, ["x"], ["y"])
    got, lowerings = _run(reference)
    assert reference.jitted is False and lowerings == 0
    for g in got:
        np.testing.assert_allclose(g, _want(_layer), rtol=1e-13, atol=1e-15)


def test_a_program_with_an_equation_numpy_does_not_take_is_compiled():
    reference = JaxJvp(_log_gamma, ["x"], ["y"])
    got, lowerings = _run(reference)
    assert reference.jitted is True and lowerings <= 1  # 0 where an earlier test compiled it
    np.testing.assert_allclose(got[1], _want(_log_gamma), rtol=1e-13, atol=1e-15)


def test_past_its_size_a_program_numpy_runs_is_compiled(monkeypatch):
    monkeypatch.setattr(jaxpr_arrays, "REFERENCE_NUMPY_MOST", 5)
    reference = JaxJvp(_layer, ["x"], ["y"])
    got, _ = _run(reference)
    assert reference.jitted is True
    np.testing.assert_allclose(got[0], _want(_layer), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("primitive", ["tanh", "dot_general", "exp"])
def test_the_check_against_the_numpy_reference_catches_a_wrong_rule(monkeypatch, primitive):
    """The expression set verified against the reference NumPy ran, and a rule scaled by
    1.001 (tanh's, the matrix product's, exp's) caught by it."""
    g = from_jax(_layer, X, level="array")
    es = accumulate(g, "forward", verify=False)
    check = es.verify()
    assert check.status == "verified" and "JAX's jvp" in check.detail
    assert g.jvp_reference.jitted is False
    original = block_values.block_value

    def scaled(op, position, values, block):
        value = original(op, position, values, block)
        return value * 1.001 if op.primitive == primitive else value

    monkeypatch.setattr(block_values, "block_value", scaled)
    check = es.verify()
    assert check.status == "wrong" and "JAX's jvp" in check.detail, check.detail


DOTS = [  # (lhs shape, rhs shape, ((contracting), (batch)))
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((4, 3), (5, 4), (((0,), (1,)), ((), ()))),
    ((6,), (6,), (((0,), (0,)), ((), ()))),
    ((2, 3), (4,), (((), ()), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((2, 3, 4), (4, 2, 3), (((1, 2), (2, 0)), ((0,), (1,)))),
]


@pytest.mark.parametrize(("a", "b", "numbers"), DOTS)
def test_numpy_s_dot_general_is_lax_s(a, b, numbers):
    rng = np.random.default_rng(len(a) + len(b))
    x, y = rng.standard_normal(a), rng.standard_normal(b)
    with jax.enable_x64(True):
        closed = jax.make_jaxpr(lambda p, q: lax.dot_general(p, q, numbers))(x, y)
        want = np.asarray(lax.dot_general(x, y, numbers))
    assert numpy_program(closed.jaxpr)
    (got,) = numpy_equation(closed.jaxpr.eqns[0], [x, y])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def test_numpy_s_iota_and_stop_gradient_are_lax_s():
    with jax.enable_x64(True):
        for dtype, shape, axis in ((jnp.int32, (3, 4), 1), (jnp.float64, (2, 3, 2), 0)):
            closed = jax.make_jaxpr(
                lambda d=dtype, s=shape, a=axis: lax.broadcasted_iota(d, s, a)
            )()
            (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive.name == "iota"]
            (got,) = numpy_equation(eqn, [])
            want = np.asarray(lax.broadcasted_iota(dtype, shape, axis))
            assert got.dtype == want.dtype and np.array_equal(got, want)
        closed = jax.make_jaxpr(lax.stop_gradient)(X)
        assert numpy_program(closed.jaxpr)
        if closed.jaxpr.eqns:  # JAX may trace it away
            assert np.array_equal(numpy_equation(closed.jaxpr.eqns[0], [X])[0], X)
        integers = jax.make_jaxpr(lambda p, q: lax.dot_general(p, q, DOTS[0][2]))(
            np.ones((3, 4), np.int32), np.ones((4, 5), np.int32)
        )
        assert not numpy_program(integers.jaxpr)  # integer products: XLA's to compute


def test_a_program_of_prng_keys_is_left_to_jax():
    """A key's type is none NumPy has (``key<fry>``): such a program is compiled, with
    JAX's values (found by ``dgraph codegen`` of a custom rule drawing random numbers)."""

    def drawn(x):
        return jax.random.normal(jax.random.key(0), (6,)) * jnp.sin(x)

    with jax.enable_x64(True):
        closed = jax.make_jaxpr(lambda p, t: jax.jvp(drawn, (p,), (t,)))(X, V)
    assert not numpy_program(closed.jaxpr)
    reference = JaxJvp(drawn, ["x"], ["y"])
    got, _ = _run(reference)
    assert reference.jitted is True
    np.testing.assert_allclose(got[0], _want(drawn), rtol=1e-13, atol=1e-15)


def _looped(x):
    """A ``fori_loop`` reading ``x[i]`` (a ``scan`` in ``J·v``), a ``cond`` in its body."""

    def body(i, acc):
        grow = lax.cond(i % 2 == 0, lambda a: a * jnp.tanh(x[i]), lambda a: a + x[i] ** 2, acc)
        return grow + jnp.sin(x[i] * acc)

    return lax.fori_loop(0, x.size, body, 0.5) * x[::-1]


def _reverse_scan(x):
    """A reversed ``scan`` stacking ``ys`` and carrying a vector."""

    def step(c, xi):
        c = c * jnp.cos(xi) + xi
        return c, c[0] * xi

    carry, ys = lax.scan(step, x[:2], x, reverse=True)
    return jnp.concatenate([carry, ys])


@pytest.mark.parametrize("f", [_looped, _reverse_scan], ids=["fori_loop+cond", "reverse scan"])
def test_a_small_loop_numpy_steps_through_compiles_nothing(f):
    """A ``scan`` and a ``cond`` of NumPy's equations, small enough, are stepped through
    by NumPy (``numpy_loop``): nothing lowered, JAX's ``J·v``."""
    reference = JaxJvp(f, ["x"], ["y"])
    got, lowerings = _run(reference)
    assert reference.jitted is False and lowerings == 0
    for g in got:
        np.testing.assert_allclose(g, _want(f), rtol=1e-13, atol=1e-15)


def test_past_its_steps_a_loop_is_compiled(monkeypatch):
    from dgraph.frontends import jaxpr_numpy

    monkeypatch.setattr(jaxpr_numpy, "NUMPY_LOOP_MOST", 20)
    reference = JaxJvp(_looped, ["x"], ["y"])
    got, _ = _run(reference)
    assert reference.jitted is True
    np.testing.assert_allclose(got[0], _want(_looped), rtol=1e-13, atol=1e-15)


_I = np.array([7, -7, 5, -5, 0, 3])
_J = np.array([2, 2, -3, -3, 4, 5])
EQUATIONS = {  # one equation each, at (X, _I): NumPy's value is lax's
    "rem int": lambda x, i: lax.rem(i, _J),
    "rem float": lambda x, i: lax.rem(x * 7.0, 0.9 * jnp.ones_like(x)),
    "and": lambda x, i: lax.bitwise_and(x > 0, i > 0),
    "or int": lambda x, i: lax.bitwise_or(i, _J),
    "not": lambda x, i: lax.bitwise_not(x > 0),
    "clamp": lambda x, i: lax.clamp(-0.5, x, 0.6),
    "floor": lambda x, i: lax.floor(x * 3.0),
    "rev": lambda x, i: lax.rev(x.reshape(2, 3), (1,)),
    "float to int": lambda x, i: (x * 7.0).astype(np.int32),
    "dynamic_slice": lambda x, i: lax.dynamic_slice(x, (i[2],), (3,)),
    "dynamic_slice clamped": lambda x, i: lax.dynamic_slice(x, (i[0],), (4,)),
    "dynamic_update_slice": lambda x, i: lax.dynamic_update_slice(x, x[:2] * 2, (i[5],)),
    "dynamic_update_slice clamped": lambda x, i: lax.dynamic_update_slice(x, x[:3], (i[1],)),
}


@pytest.mark.parametrize("case", EQUATIONS)
def test_numpy_s_loop_equations_are_lax_s(case):
    """The equations a loop's body reads at its counter (a remainder, a window at it, a
    mask), by NumPy: lax's values, bit for bit, starts clamped into the array as lax's."""
    with jax.enable_x64(True):
        closed = jax.make_jaxpr(EQUATIONS[case])(X, _I)
        env = dict(zip(closed.jaxpr.invars, (X, _I), strict=True))
        env.update(zip(closed.jaxpr.constvars, map(np.asarray, closed.consts), strict=True))
        for e in closed.jaxpr.eqns:
            ins = [np.asarray(v.val) if hasattr(v, "val") else env[v] for v in e.invars]
            want = np.asarray(e.primitive.bind(*ins, **e.params))
            mine = numpy_equation(e, ins)
            if e is closed.jaxpr.eqns[-1]:
                assert numpy_program(closed.jaxpr) and mine is not None, e
            if mine is not None:
                assert mine[0].dtype == want.dtype and mine[0].tobytes() == want.tobytes(), e
            env[e.outvars[0]] = want
