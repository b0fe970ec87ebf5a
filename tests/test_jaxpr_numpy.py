"""A long reference's equations run by NumPy (dgraph/frontends/jaxpr_numpy.py) where
XLA would compile a kernel per primitive and shape: the same values as JAX's, what
NumPy would round otherwise (integer division, a float converted to an integer) left
to JAX, and the binomial-tree put's Hessian (a new shape each level) checked so."""

from __future__ import annotations

import collections
import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr_arrays import run_eagerly, x64  # noqa: E402
from dgraph.frontends.jaxpr_numpy import numpy_equation  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.fixture
def counted(monkeypatch):
    """What ``run_eagerly`` bound in JAX and what NumPy ran, by primitive."""
    bound, taken = collections.Counter(), collections.Counter()
    real_bind = jaxpr_arrays.bind_equation

    def bind(eqn, args):
        bound[eqn.primitive.name] += 1
        return real_bind(eqn, args)

    def by_numpy(eqn, args):
        out = numpy_equation(eqn, args)
        taken[eqn.primitive.name] += out is not None
        return out

    monkeypatch.setattr(jaxpr_arrays, "bind_equation", bind)
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
        (lambda a, b: lax.div(a, b * 0), "div"),  # by zero: XLA's answer is its own
        (lambda a, b: (a.astype(float) * 1e300).astype(jnp.int64), "convert_element_type"),
        (lambda a, b: lax.rem(a, b * 0), "rem"),  # by zero: XLA's answer is its own
    ],
    ids=["div by zero", "float to int out of range", "rem by zero"],
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


def test_integer_quotients_round_toward_zero_as_lax_s(counted):
    """``lax.div`` of integers rounds toward zero (C's ``/``; NumPy's ``//`` floors), for
    signed and unsigned operands."""
    bound, taken = counted
    with x64(jax):
        for a, b in [(np.array([-7, 7, -8, 5, 0, -9]), np.array([2, -2, 3, -3, 4, 3])),
                     (np.array([7, 8, 0], np.uint32), np.array([2, 3, 5], np.uint32))]:  # fmt: skip
            closed = jax.make_jaxpr(lax.div)(a, b)
            (got,) = run_eagerly(closed.jaxpr, closed.consts, [a, b])
            want = np.asarray(lax.div(jnp.asarray(a), jnp.asarray(b)))
            assert got.dtype == want.dtype and np.array_equal(got, want)
    assert taken["div"] == 2 and not bound


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
    levels, K, T = 5, 1.0, 1.0  # 1,569 equations: over REFERENCE_JIT_MOST

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
        want = jref.forward_hessian(lambda params: put(params, jnp))(x)  # stored
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


SPECIAL_NAMES = ["sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "cbrt",
                 "logistic", "erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i0e",
                 "bessel_i1e"]  # fmt: skip


def _special_point(name: str, shape: str) -> np.ndarray:
    size = SPECIAL_SHAPES[shape]
    x = SPECIAL_POINTS[6] + 0.7 if not size else SPECIAL_POINTS.reshape(size)
    if name in ("asin", "acos", "atanh", "erf_inv"):  # inside their domain too
        x = np.concatenate([np.ravel(x), [-0.9, 0.3, 0.99]])[: np.size(x)].reshape(np.shape(x))
    return x


@functools.cache
def _lax_values(shape: str) -> dict[str, np.ndarray]:
    """``lax``'s value of each of :data:`SPECIAL_NAMES` at its point of ``shape``, as one
    jitted program per shape (each function called eagerly compiled its own: 51 compiles,
    now 3)."""
    points = {name: _special_point(name, shape) for name in SPECIAL_NAMES}
    with x64(jax):
        values = jax.jit(lambda xs: {n: getattr(lax, n)(x) for n, x in xs.items()})(points)
    return {name: np.asarray(value) for name, value in values.items()}


@pytest.mark.parametrize("shape", sorted(SPECIAL_SHAPES))
@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_elementary_and_special_functions_by_numpy_are_lax_s(name, shape):
    """Each elementwise function NumPy or SciPy runs equals ``lax``'s on 0-d, 1-d and n-d
    operands, at poles, infinities, signed zeros and NaN too (the same NaN and infinities;
    values to lgamma's and digamma's 2e-14, lgamma(2) within 9e-16 of 0 in lax)."""
    x = _special_point(name, shape)
    with x64(jax):
        closed = jax.make_jaxpr(getattr(lax, name))(x)
    want = _lax_values(shape)[name]
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


EDGES = np.array([-np.inf, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 0.49999999999999994,
                  3.7, np.inf, np.nan])  # fmt: skip


def _by_numpy(f, *args):
    """``f``'s program by NumPy alone (nothing bound in JAX) at ``args``."""
    from dgraph.frontends.jaxpr_numpy import numpy_program

    with x64(jax):
        closed = jax.make_jaxpr(f)(*args)
    assert numpy_program(closed.jaxpr), closed
    got = run_eagerly(closed.jaxpr, closed.consts, list(args))
    assert all(isinstance(g, np.ndarray) for g in got)
    return got


def _lax_s(f, *args):
    """``f``'s program by NumPy alone (:func:`_by_numpy`) and by lax at ``args``."""
    got = _by_numpy(f, *args)
    with x64(jax):
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(f(*args))]
    return got, want


@pytest.mark.parametrize("shape", [(), (13,), (13, 2)], ids=["0-d", "1-d", "n-d"])
@pytest.mark.parametrize("method", [0, 1], ids=["away-from-zero", "to-nearest-even"])
def test_round_is_lax_s_at_halves(shape, method):
    """``lax.round`` of halves, signed zeros, the largest double below 0.5, infinities and
    NaN, both rounding methods, bit for bit (the sign of a zero too)."""
    x = EDGES[7] if not shape else np.resize(EDGES, shape)
    (got,), (want,) = _lax_s(lambda a: lax.round(a, method), x)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


CUMULATIVE = ["cumsum", "cumprod", "cummax", "cummin"]
_CUMULATED = np.array([[[0.5, -1.5, 2.0], [np.nan, 3.0, 3.0]],
                       [[1.25, 1.25, -0.5], [2.0, -4.0, 0.75]]])  # fmt: skip
CUMULATED = [(_CUMULATED[1, 1], 0), (_CUMULATED, 1), (_CUMULATED, 2),
             (np.arange(-3, 9).reshape(3, 4), 0)]  # fmt: skip


@functools.cache
def _cumulated_by_lax() -> dict[tuple[str, bool, int], np.ndarray]:
    """``lax``'s cumulative reductions of :data:`CUMULATED` (by name, reverse, operand),
    as one jitted program (one compile, where each call run eagerly compiled its own)."""

    def program(operands):
        out = {}
        for name in CUMULATIVE:
            for reverse in (False, True):
                for k, (a, (_, axis)) in enumerate(zip(operands, CUMULATED, strict=True)):
                    out[name, reverse, k] = getattr(lax, name)(a, axis=axis, reverse=reverse)
        return out

    with x64(jax):
        found = jax.jit(program)([a for a, _ in CUMULATED])
    return {key: np.asarray(value) for key, value in found.items()}


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_reductions_are_lax_s(name, reverse):
    """Along an axis of a 1-d and a 3-d operand, forwards and reversed, NaN and ties too;
    integers exactly."""
    f = getattr(lax, name)
    for k, (a, axis) in enumerate(CUMULATED):
        got = _by_numpy(lambda a, axis=axis: f(a, axis=axis, reverse=reverse), a)
        want = _cumulated_by_lax()[name, reverse, k]
        assert got[0].dtype == want.dtype
        np.testing.assert_allclose(got[0], want, rtol=1e-15, atol=0)


def test_total_order_comparisons_are_lax_s():
    """``lt_to``/``le_to`` (the total order ``sort`` uses): -NaN < -inf < -0.0 < 0.0 <
    inf < NaN."""
    from jax._src.lax import lax as lax_internal  # the primitives lax exports no function for

    values = np.array([-np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan])
    a, b = np.repeat(values, values.size), np.tile(values, values.size)
    for primitive in (lax_internal.lt_to_p, lax_internal.le_to_p):
        (got,), (want,) = _lax_s(primitive.bind, a, b)
        assert np.array_equal(got, want) and got.sum() >= 28  # a strict order of 8 values
    (got,), _ = _lax_s(lax_internal.lt_to_p.bind, values[:-1], values[1:])  # neighbours
    assert got.all()


def test_reductions_copies_and_interior_pads_are_lax_s():
    x = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]])
    cases = [
        (lambda a: jnp.prod(a, axis=1), [x]),
        (lambda a: jnp.any(a > 1.0, axis=0), [x]),
        (lambda a: jnp.all(a > -5.0, axis=1), [x]),
        (lambda a: lax.pad(a, -1.0, [(1, -1, 2), (0, 2, 1)]), [x]),
        (lambda a: lax.pad(a, 0.0, [(0, 0, 3)]), [x[0]]),
    ]
    for f, args in cases:
        (got,), (want,) = _lax_s(f, *args)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def _spd(rng, shape):
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + 4.0 * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4, 4)], ids=str)
def test_factorizations_by_lapack_are_lax_s_bit_for_bit(shape):
    """``lu``, ``svd`` (reduced, full, values only), ``qr`` (reduced, complete) of square,
    wide, tall and stacked matrices, and ``cholesky``, ``eigh`` (either triangle) and
    ``triangular_solve`` (every side, triangle, transpose, unit diagonal) of square ones:
    the same LAPACK routines as XLA's CPU kernels, so the same bits (pivots and the
    vectors' signs too)."""
    from jax.scipy import linalg as jsl

    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    x = rng.normal(size=shape)
    cases = [
        lax.linalg.lu,
        lambda a: jnp.linalg.svd(a),
        lambda a: jnp.linalg.svd(a, full_matrices=True),
        lambda a: jnp.linalg.svd(a, compute_uv=False),
        lambda a: jnp.linalg.qr(a),
        lambda a: jnp.linalg.qr(a, mode="complete"),
    ]
    square = shape[-1] == shape[-2]
    if square:
        s = _spd(rng, shape)
        b = rng.normal(size=(*shape[:-1], 2))
        cases += [
            (lax.linalg.cholesky, s),
            (lambda a: lax.linalg.eigh(a, lower=True), s),
            (lambda a: lax.linalg.eigh(a, lower=False), s + np.triu(x, 1)),
        ]
        options = [(True, True, False, False), (True, False, True, True),
                   (False, True, True, False), (False, False, False, True)]  # fmt: skip
        for left, lower, trans, unit in options:
            rhs = b if left else np.swapaxes(b, -1, -2)
            solve = functools.partial(
                lax.linalg.triangular_solve, b=rhs, left_side=left, lower=lower,
                transpose_a=trans, unit_diagonal=unit,
            )  # fmt: skip
            cases.append((solve, x))
        cases.append((lambda a: jsl.cho_solve(jsl.cho_factor(a), np.ones(shape[-1])), s))
    for case in cases:
        f, a = case if isinstance(case, tuple) else (case, x)
        with x64(jax):
            closed = jax.make_jaxpr(f)(a)
            want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(f)(a))]
        got = run_eagerly(closed.jaxpr, closed.consts, [a])
        for g, w in zip(got, want, strict=True):
            assert isinstance(g, np.ndarray) and g.dtype == w.dtype, (f, g, w)
            assert np.array_equal(g, w), (f, np.max(np.abs(g - w)))


def test_a_factorization_lapack_fails_or_does_not_do_is_left_to_jax():
    """A matrix that is not positive definite (``potrf``'s info > 0), pivoted ``qr``, a
    subset of eigenvalues, and a stack of more matrices than ``BATCH_MOST`` (a LAPACK
    call each from Python; XLA's kernel loops over them): None, for XLA to answer."""
    from dgraph.frontends.jaxpr_numpy_linalg import BATCH_MOST

    many = np.broadcast_to(np.eye(3), (BATCH_MOST + 1, 3, 3)).copy()
    with x64(jax):
        for f, a in [
            (lax.linalg.cholesky, -np.eye(3)),
            (lambda a: lax.linalg.qr(a, pivoting=True), np.eye(3)),
            (lambda a: lax.linalg.eigh(a, subset_by_index=(0, 2)), np.eye(3)),
            (lax.linalg.cholesky, many),
        ]:
            closed = jax.make_jaxpr(f)(a)
            eqn = next(
                e for e in closed.jaxpr.eqns if e.primitive.name in ("cholesky", "qr", "eigh")
            )
            assert numpy_equation(eqn, [a]) is None


def test_a_linear_algebra_program_s_jvp_compiles_nothing(counted):
    """``solve``, ``inv``, ``slogdet``, ``cholesky``, ``eigh``, ``svd``, ``qr``, ``pinv``
    and ``expm`` of a matrix: JAX's ``jvp`` of their sum runs by NumPy and LAPACK
    (``custom_linear_solve`` as JAX runs it, by its ``solve``), nothing bound in JAX;
    JAX's compiled values. And ``make_function``'s reference is not compiled."""
    import dgraph
    from dgraph.frontends.jaxpr_numpy import numpy_program

    bound, taken = counted

    def f(a):
        s = a @ a.T + 3.0 * jnp.eye(3)
        return (
            jnp.linalg.solve(a, jnp.arange(3.0)).sum() + jnp.linalg.inv(a)[0, 1]
            + jnp.linalg.slogdet(a)[1] + jnp.linalg.cholesky(s).sum()
            + jnp.linalg.eigh(s)[0] @ jnp.arange(3.0) + jnp.linalg.svd(a)[1].sum()
            + jnp.abs(jnp.linalg.qr(a)[1]).sum() + jnp.linalg.pinv(a).sum()
            + jax.scipy.linalg.expm(0.1 * a).sum()
        )  # fmt: skip

    a = np.array([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [1.0, 0.2, 4.0]])
    t = np.cos(np.arange(9.0)).reshape(3, 3)
    with x64(jax):
        closed = jax.make_jaxpr(lambda a, t: jax.jvp(f, (a,), (t,)))(a, t)
        assert numpy_program(closed.jaxpr)
        got = run_eagerly(closed.jaxpr, closed.consts, [a, t])
        want = jax.jit(lambda a, t: jax.jvp(f, (a,), (t,)))(a, t)
    assert not bound, bound
    assert {"lu", "triangular_solve", "cholesky", "eigh", "svd", "qr"} <= set(taken)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-13)
    fn = dgraph.make_function(f, "jacobian", "python", point=[a])
    assert fn.generated.verified
    assert fn.generated.graph.jvp_reference.jitted is False  # by NumPy and LAPACK
    with x64(jax):
        np.testing.assert_allclose(np.ravel(fn(a)), np.ravel(jref.grad(f)(a)), rtol=1e-10)


def test_stacks_unstacks_and_tiles_run_by_numpy_are_jax_s(counted):
    """``lax.stack``, ``unstack`` and ``tile`` (``jnp.stack`` of a list, ``jnp.unstack``,
    ``jnp.tile``; ``det``'s rule tiles a mask): JAX's ``jvp`` of a gradient through them
    is a NumPy program, run with nothing bound in JAX, to JAX's compiled values."""
    from dgraph.frontends.jaxpr_numpy import numpy_program

    bound, taken = counted

    def f(a):
        rows = jnp.stack(jnp.unstack(a)[::-1], axis=1)
        return jnp.linalg.det(a) + (rows * a).sum() + jnp.tile(a[0], 2) @ jnp.arange(6.0)

    a = np.array([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [1.0, 0.2, 4.0]])
    t = np.cos(np.arange(9.0)).reshape(3, 3)
    jvp = lambda a, t: jax.jvp(jax.grad(f), (a,), (t,))  # noqa: E731
    with x64(jax):
        closed = jax.make_jaxpr(jvp)(a, t)
        assert numpy_program(closed.jaxpr)
        got = run_eagerly(closed.jaxpr, closed.consts, [a, t])
        want = jax.jit(jvp)(a, t)
    assert not bound, bound
    assert {"stack", "unstack", "tile"} <= set(taken)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-13)


def test_a_bcoo_densified_by_numpy_is_its_todense():
    """The code check's ``dense_result`` and ``densified`` (the tests' ``dense``) densify
    a BCOO by NumPy (no kernel compiled per shape): ``todense``'s array, with padding past
    the shape dropped, repeated positions summed and (``densified``) single precision
    kept."""
    from jax.experimental import sparse

    from dgraph.codegen.tensor.check import dense_result
    from dgraph.codegen.tensor.check import densified as dense

    rng = np.random.default_rng(7)
    m = rng.normal(size=(5, 7)) * (rng.random((5, 7)) < 0.3)
    # JAX's own BCOO code jitted: one program per case, not one per operation run eagerly
    fromdense = jax.jit(sparse.BCOO.fromdense, static_argnames="nse")
    todense = jax.jit(sparse.BCOO.todense)
    cases = [
        fromdense(m, nse=15),  # padded
        sparse.BCOO((np.array([1.0, 2.0, 3.0]), np.array([[0, 1], [0, 1], [2, 2]])), shape=(3, 3)),
        sparse.BCOO((np.array([1.5, 2.5], np.float32), np.array([[0], [2]])), shape=(4,)),
    ]
    for b in cases:
        want = np.asarray(todense(b))
        assert dense(b).dtype == want.dtype and np.array_equal(dense(b), want)
        assert np.array_equal(dense_result(b, want.shape), want)


def _complex_program(x):
    """Complex arithmetic, functions, conversions, moves and every kind of ``lax.fft``."""
    z = jnp.fft.fft(x) * jnp.exp(1j * x) / (2.0 + jnp.conj(jnp.fft.rfft(x, n=10)[: x.size]))
    w = jnp.fft.ifft(z**3) + jnp.sqrt(z) - jnp.log(z + 3.0)
    p = jnp.abs(w) ** 2 + jnp.fft.irfft(w, x.size).sum() + jnp.imag(jnp.sin(w) * jnp.cos(w))
    q = jnp.fft.fft2(jnp.outer(w, w))[0] + (w[:, None] * w).T.conj() @ w  # a complex product
    r = jnp.take(w, jnp.array([0, 9, 2, 1, 4, 3]), mode="fill")  # a window off it: NaN
    return p + jnp.abs(q) + jnp.real(jnp.where(x > 0, w, 2j * w) + jnp.nan_to_num(r))


def test_a_complex_and_fft_program_s_jvp_by_numpy_is_jax_s(counted):
    """``J·v`` of a gradient through complex numbers and FFTs runs by NumPy (C99's complex
    functions, pocketfft) with nothing bound to JAX, to 1e-14 of the largest entry of
    JAX's compiled ``jvp``;
    ``sqrt`` on its branch cut takes XLA's side (a zero imaginary part as +0)."""
    from dgraph.frontends.jaxpr_numpy import numpy_program

    bound, taken = counted
    gradient = jax.grad(lambda x: jnp.sum(_complex_program(x)))
    with x64(jax):
        x, v = np.linspace(0.2, 1.3, 6), np.cos(np.arange(6.0))
        closed = jax.make_jaxpr(lambda x, v: jax.jvp(gradient, (x,), (v,)))(x, v)
        got = run_eagerly(closed.jaxpr, closed.consts, [x, v])
        want = jax.jit(lambda x, v: jax.jvp(gradient, (x,), (v,)))(x, v)  # one compile
        cut = np.array([complex(-1, -0.0), complex(-4, 0), complex(0, -0.0)])
        root = jax.make_jaxpr(lax.sqrt)(cut)
        (root_got,) = numpy_equation(root.jaxpr.eqns[0], [cut])
        root_want = np.asarray(lax.sqrt(cut))
    assert numpy_program(closed.jaxpr)
    for a, b in zip(got, want, strict=True):  # to 1e-14 of the largest entry (cancellations)
        b = np.asarray(b)
        np.testing.assert_allclose(np.asarray(a), b, rtol=0, atol=1e-14 * np.abs(b).max())
    for name in ("fft", "mul", "div", "exp", "log", "sqrt", "complex", "dot_general", "gather"):
        assert taken[name], name
    assert not bound, bound  # nothing left to JAX
    assert np.array_equal(root_got, root_want) and np.array_equal(
        np.signbit(root_got.imag), np.signbit(root_want.imag)
    )


def _iterated(x, trips):
    """A ``while_loop`` of at most ``trips`` trips, stopping early where it grows."""

    def go_on(s):
        return (s[0] < trips) & (jnp.max(jnp.abs(s[1])) < 1e6)

    def step(s):
        return s[0] + 1, s[1] * jnp.cos(s[1]) + 0.1 * s[1] ** 2 + x

    return lax.while_loop(go_on, step, (0, x))[1]


@pytest.mark.parametrize("trips", [5, 2_000], ids=["by numpy", "continued in jax"])
def test_a_while_loop_s_jvp_by_numpy_is_jax_s(counted, trips):
    """``J·v`` of a ``while_loop`` runs by NumPy trip by trip (nothing bound) and equals
    JAX's compiled ``jvp``; past ``NUMPY_WHILE_MOST`` equations the loop is bound in JAX
    from its state there, with the same values."""
    from dgraph.frontends.jaxpr_numpy import numpy_program

    bound, _ = counted
    f = functools.partial(_iterated, trips=trips)
    with x64(jax):
        x, v = np.full(6, 0.05), np.cos(np.arange(6.0))
        closed = jax.make_jaxpr(lambda x, v: jax.jvp(f, (x,), (v,)))(x, v)
        got = run_eagerly(closed.jaxpr, closed.consts, [x, v])
        want = jax.jit(lambda x, v: jax.jvp(f, (x,), (v,)))(x, v)  # one compile
    assert numpy_program(closed.jaxpr)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13, atol=1e-15)
    assert dict(bound) == ({} if trips == 5 else {"while": 1})


def test_polygamma_by_scipy_is_lax_s():
    """``lax.polygamma`` by SciPy equals lax's to 3e-14 (``digamma``'s, order 0), with
    lax's NaN and infinities (poles, ±inf, an order not a whole number ≥ 0)."""
    orders = np.array([0.0, 1.0, 2.0, 3.0, 40.0, 1.5, -1.0, np.nan])
    points = np.concatenate([SPECIAL_POINTS, [0.3, 7.5, 1e5]])
    order, x = np.repeat(orders, points.size), np.tile(points, orders.size)
    with x64(jax):
        (eqn,) = jax.make_jaxpr(lax.polygamma)(order, x).jaxpr.eqns
        want = np.asarray(lax.polygamma(order, x))
    (got,) = numpy_equation(eqn, [order, x])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    infinite = np.isinf(want)
    assert np.array_equal(np.isinf(got), infinite)
    assert np.array_equal(np.sign(got[infinite]), np.sign(want[infinite]))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=3e-14, atol=0)
