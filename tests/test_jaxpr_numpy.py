"""A long reference's equations run by NumPy (dgraph/frontends/jaxpr_numpy.py) where
XLA would compile a kernel per primitive and shape: the same values as JAX's, what
NumPy would round otherwise (integer division, a float converted to an integer) left
to JAX, and the binomial-tree put's Hessian (a new shape each level) checked so."""

from __future__ import annotations

import collections

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr_arrays import run_eagerly, x64  # noqa: E402
from dgraph.frontends.jaxpr_numpy import numpy_equation  # noqa: E402


@pytest.fixture
def counted(monkeypatch):
    """What ``run_eagerly`` bound in JAX and what NumPy ran, by primitive."""
    bound, taken = collections.Counter(), collections.Counter()
    real_bind = jaxpr_arrays._bind

    def bind(eqn, args):
        bound[eqn.primitive.name] += 1
        return real_bind(eqn, args)

    def by_numpy(eqn, args):
        out = numpy_equation(eqn, args)
        taken[eqn.primitive.name] += out is not None
        return out

    monkeypatch.setattr(jaxpr_arrays, "_bind", bind)
    monkeypatch.setattr(jaxpr_arrays, "numpy_equation", by_numpy)
    return bound, taken


def _mixed(x):
    """Most of what the module takes: arithmetic, elementary functions, comparisons and
    selections, broadcasts, reshapes, reductions, pads (cropping too) and joins."""
    m = jnp.reshape(x, (2, 3))
    b = jnp.broadcast_to(x[:3], (2, 3)) ** 2.5 + m**3 + jnp.exp(m) / (1.0 + m * m)
    c = jnp.where(m > 0.2, jnp.tanh(b), jnp.log1p(m * m)) - jnp.maximum(m, b.T.T)
    d = lax.pad(c, 0.5, [(1, -1, 0), (-1, 2, 0)])  # a row added and one cropped, ...
    e = jnp.concatenate([d, jnp.sin(d)], axis=1).T
    f = jnp.squeeze(jnp.expand_dims(e, 0), 0)
    steps = jnp.arange(3).astype(x.dtype)  # an integer converted to a float
    return jnp.sum(f) + jnp.max(f, axis=0) @ jnp.cos(d[:, :3] @ steps) + jnp.min(x) * 2.0


def test_the_equations_run_by_numpy_equal_jax_s(counted):
    bound, taken = counted
    gradient = jax.grad(_mixed)
    with x64(jax):
        x = np.array([0.3, 0.9, -0.4, 0.5, 0.1, 0.7])
        v = np.cos(np.arange(6.0))
        closed = jax.make_jaxpr(lambda x, v: jax.jvp(gradient, (x,), (v,)))(x, v)
        got = run_eagerly(closed.jaxpr, closed.consts, [x, v])
        want = jax.jit(lambda x, v: jax.jvp(gradient, (x,), (v,)))(x, v)  # one compile
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-14, atol=1e-14)
    for name in ("pow", "exp", "tanh", "select_n", "pad", "concatenate", "broadcast_in_dim"):
        assert taken[name], name
    assert taken["dot_general"]  # a matrix product of floats: np.einsum
    assert not bound, bound  # nothing left to JAX


@pytest.mark.parametrize(
    "f, primitive",
    [
        (lambda a, b: lax.div(a, b), "div"),  # rounds toward zero; NumPy's floors
        (lambda a, b: (a.astype(float) * 1e300).astype(jnp.int64), "convert_element_type"),
        (lambda a, b: lax.rem(a, b * 0), "rem"),  # by zero: XLA's answer is its own
    ],
    ids=["div", "float to int out of range", "rem by zero"],
)
def test_integer_arithmetic_numpy_would_round_otherwise_is_jax_s(counted, f, primitive):
    bound, _ = counted
    with x64(jax):
        a, b = np.array([-7, 7, -8, 5]), np.array([2, -2, 3, 3])
        closed = jax.make_jaxpr(f)(a, b)
        (got,) = run_eagerly(closed.jaxpr, closed.consts, [a, b])
        want = f(jnp.asarray(a), jnp.asarray(b))
    assert np.array_equal(np.asarray(got), np.asarray(want))
    assert bound[primitive] == 1


def test_integer_remainders_are_numpy_s_fmod_as_lax_s(counted):
    """``lax.rem`` takes the dividend's sign (C's ``%``): ``np.fmod``, not ``np.remainder``."""
    bound, taken = counted
    with x64(jax):
        a, b = np.array([-7, 7, -8, 5]), np.array([2, -2, 3, -3])
        closed = jax.make_jaxpr(lax.rem)(a, b)
        (got,) = run_eagerly(closed.jaxpr, closed.consts, [a, b])
        want = np.asarray(lax.rem(jnp.asarray(a), jnp.asarray(b)))
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert taken["rem"] == 1 and not bound


def test_an_empty_reduction_is_left_to_jax():
    with x64(jax):
        closed = jax.make_jaxpr(lambda x: jnp.max(x, axis=0, initial=-1.0))(np.zeros((0, 3)))
        (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive.name == "reduce_max"]
        assert numpy_equation(eqn, [np.zeros((0, 3))]) is None


def test_the_binomial_tree_put_s_hessian_is_checked_without_a_kernel_per_level(counted):
    """A new array shape each level: the reference's ``J·v`` (over REFERENCE_JIT_MOST
    equations: run operation by operation) compiled a kernel per primitive and level
    (289 at 12 levels, 10 CPU-s); now NumPy runs them all. Values against JAX's Hessian,
    forward over forward and jitted (eager ``jax.hessian`` compiled a kernel per primitive
    and level: 7 of the test's 11 CPU-s)."""
    import dgraph

    bound, taken = counted
    levels, K, T = 8, 1.0, 1.0

    def put(params, xp):
        s0, sigma, rate = params[0], params[1], params[2]
        dt = T / levels
        u = xp.exp(sigma * xp.sqrt(dt))
        d = 1.0 / u
        p = (xp.exp(rate * dt) - d) / (u - d)
        disc = xp.exp(-rate * dt)
        j = xp.arange(levels + 1)
        V = xp.maximum(K - s0 * u**j * d ** (levels - j), 0.0)
        for level in range(levels - 1, -1, -1):
            jj = xp.arange(level + 1)
            S = s0 * u**jj * d ** (level - jj)
            V = xp.maximum(disc * (p * V[1:] + (1.0 - p) * V[:-1]), K - S)
        return V[0]

    x = np.array([1.013, 0.27, 0.031])
    H = dgraph.hessian(lambda params: put(params, np), x)
    assert H.gradient.generated.verified
    reference = H.gradient.generated.graph.jvp_reference
    assert reference.jitted is False  # a long program: operation by operation
    assert reference.equations > jaxpr_arrays.REFERENCE_JIT_MOST
    assert taken["pow"] and taken["max"] and not bound, bound
    with x64(jax):
        want = jax.jit(jax.jacfwd(jax.jacfwd(lambda params: put(params, jnp))))(x)
    assert np.abs(np.asarray(want)).max() > 1.0
    np.testing.assert_allclose(H(x), want, rtol=1e-10, atol=1e-12)


def test_the_sign_of_a_signed_zero_is_lax_s():
    """``lax.sign(-0.0)`` is ``-0.0`` (NumPy's ``sign`` gives ``0.0``): the evaluator and
    the exact fold share one table (``jaxpr_numpy.ANY_DTYPE``) and its ``lax_sign``."""
    x = np.array([-0.0, 0.0, -2.5, 3.0])
    with x64(jax):
        closed = jax.make_jaxpr(jnp.sign)(x)
        (eqn,) = closed.jaxpr.eqns
        want = np.asarray(jax.lax.sign(x))
    (got,) = numpy_equation(eqn, [x])
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))


SPECIAL_POINTS = np.array([-np.inf, -3.0, -2.5, -1.0, -0.5, -0.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 30.0,
                           800.0, np.inf, np.nan])  # fmt: skip
SPECIAL_SHAPES = {"0-d": (), "1-d": (15,), "n-d": (3, 5)}


@pytest.mark.parametrize("shape", sorted(SPECIAL_SHAPES))
@pytest.mark.parametrize(
    "name",
    ["sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "cbrt", "logistic",
     "erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i0e", "bessel_i1e"],
)  # fmt: skip
def test_elementary_and_special_functions_by_numpy_are_lax_s(name, shape):
    """Each elementwise function NumPy or SciPy runs equals ``lax``'s on 0-d, 1-d and n-d
    operands, at poles, infinities, signed zeros and NaN too (the same NaN and infinities;
    values to lgamma's and digamma's 2e-14, lgamma(2) within 9e-16 of 0 in lax)."""
    size = SPECIAL_SHAPES[shape]
    x = SPECIAL_POINTS[6] + 0.7 if not size else SPECIAL_POINTS.reshape(size)
    if name in ("asin", "acos", "atanh", "erf_inv"):  # inside their domain too
        x = np.concatenate([np.ravel(x), [-0.9, 0.3, 0.99]])[: np.size(x)].reshape(np.shape(x))
    with x64(jax):
        f = getattr(lax, name)
        closed = jax.make_jaxpr(f)(x)
        want = np.asarray(f(x))
    (eqn,) = closed.jaxpr.eqns
    (got,) = numpy_equation(eqn, [x])
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(np.isnan(got), np.isnan(want))
    infinities = [np.where(np.isinf(a), np.sign(a), 0.0) for a in (got, want)]
    assert np.array_equal(*infinities)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=3e-14, atol=4e-15)


def test_a_reshape_permuting_its_axes_is_lax_s():
    x = np.arange(24.0).reshape(2, 3, 4)
    with x64(jax):
        closed = jax.make_jaxpr(lambda a: lax.reshape(a, (4, 6), dimensions=(2, 0, 1)))(x)
        want = np.asarray(lax.reshape(x, (4, 6), dimensions=(2, 0, 1)))
    (got,) = numpy_equation(closed.jaxpr.eqns[0], [x])
    assert np.array_equal(got, want)


def test_a_custom_rule_s_function_is_run_as_its_primal(counted):
    """``jax.nn.relu``, ``softplus`` and ``logsumexp`` (custom_jvp calls) and a
    ``custom_vjp`` function: inlined, run by NumPy, JAX's values; nothing bound."""
    from dgraph.frontends.jaxpr_numpy import numpy_program

    bound, taken = counted

    @jax.custom_vjp
    def clipped(a):
        return jnp.clip(a, -1.0, 1.0)

    clipped.defvjp(lambda a: (clipped(a), a), lambda a, g: (g,))

    def f(a):
        return jax.nn.relu(a) + jax.nn.softplus(a) * jax.nn.logsumexp(a) + clipped(a)

    x = np.array([[0.3, -1.7, 2.5], [-0.2, 0.0, 1.1]])
    with x64(jax):
        closed = jax.make_jaxpr(f)(x)
        assert {"custom_jvp_call", "custom_vjp_call"} <= {
            e.primitive.name for e in closed.jaxpr.eqns
        }
        assert numpy_program(closed.jaxpr)
        (got,) = run_eagerly(closed.jaxpr, closed.consts, [x])
        want = np.asarray(f(x))
    assert not bound and taken
    np.testing.assert_allclose(got, want, rtol=1e-14)
