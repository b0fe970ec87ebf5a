"""Idioms that open NumPy objectives: ``x = np.asarray(x, dtype=float)``, ``np.array(x)``
(a copy, then written into), and a library function that converts its argument inside
(scipy.optimize's ``rosen``: its Hessian by the element level, the array tracer's route
refusing it). Each was refused on main in Hessian mode ("converting an array that depends
on the inputs to a NumPy array"); scipy's own ``rosen_der`` and ``rosen_hess`` judge."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import rosen, rosen_der, rosen_hess

import dgraph
from dgraph.errors import DGraphError, InputError
from dgraph.frontends import from_function
from tests import jax_reference as jref

_X = np.array([0.3, -0.2, 0.5, -0.4, 0.6, 0.1, 0.9])


def as_float(x):
    x = np.asarray(x, dtype=float)
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def copies_then_writes(x):
    y = np.array(x)
    y[0] = 2.0 * x[0]  # the copy is written; x is not
    return np.sum(100.0 * (y[1:] - y[:-1] ** 2) ** 2 + (1.0 - y[:-1]) ** 2) + x[0] ** 2


def _dense(h):
    return h.toarray() if hasattr(h, "toarray") else np.asarray(h)


def _gradient(f, x, method=None):
    """``f``'s gradient made from its array-level reading (the one reader; the element
    level, make_function's default at these sizes, is that graph expanded and cost 10-25
    times the CPU): the idiom is the reader's, the expansion the same for any program."""
    graph = from_function(f, sizes=[np.shape(x)], level="array", point=[x])
    assert graph.is_tensor
    return dgraph.make_function(graph, "jacobian", "python", method=method)


# The methods below (method=) are make_function's choice for each call's Jacobian (the
# same generated text), named so that no call builds and compares every candidate's
# program: the choice is codegen's (tests/test_codegen_choice.py). rosen's Hessian, read
# at the element level, is a Jacobian of its gradient's graph chosen the same way.
HESSIAN_CHOSEN = {"rosen": "symbolic", "as_float": "markowitz"}  # the other Hessians too


@pytest.mark.parametrize("f", [as_float, rosen], ids=["asarray-float", "scipy-rosen"])
def test_rosenbrock_hessian_equals_scipy(f):
    """``rosen``'s Hessian, sparse (its 3n - 2 entries), and gradient equal scipy's
    ``rosen_hess`` and ``rosen_der`` (the dense Hessian is the same graph's, printed
    dense: every other Hessian test's)."""
    method = HESSIAN_CHOSEN.get(f.__name__)
    sparse = dgraph.hessian(f, _X, sparse=True, method=method)(_X)
    assert sparse.nnz == 3 * _X.size - 2
    np.testing.assert_allclose(sparse.toarray(), rosen_hess(_X), rtol=1e-12)
    gradient = dgraph.make_function(f, "jacobian", "python", point=[_X], method="reverse")
    np.testing.assert_allclose(np.asarray(gradient(_X)).reshape(-1), rosen_der(_X), rtol=1e-12)


def test_a_written_copy_is_its_own_array():
    """``y = np.array(x); y[0] = 2·x[0]``: the Hessian of the written copy (rosen of y,
    y₀ = 2x₀), x itself unchanged (+ x₀²)."""
    y = _X.copy()
    y[0] *= 2.0
    expected = rosen_hess(y)
    expected[0, :] *= 2.0
    expected[:, 0] *= 2.0
    expected[0, 0] += 2.0
    np.testing.assert_allclose(
        _dense(dgraph.hessian(copies_then_writes, _X, method="markowitz")(_X)), expected
    )


def test_an_integer_asarray_is_refused_in_one_line():
    def f(x):
        return np.sum(np.asarray(x, dtype=int) * x)

    with pytest.raises(InputError, match=r"numpy\.asarray\(dtype=int64\)"):
        dgraph.hessian(f, _X)


def test_a_library_converting_two_arguments_is_still_refused():
    """The element-level route is for a function of one vector; with two arguments the
    array tracer's refusal stands, in one line."""

    def f(x, a):
        return rosen(x) * a

    with pytest.raises(DGraphError, match="converting an array that depends on the inputs"):
        dgraph.hessian(f, _X, 2.0)


_A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [-0.2, 0.8, 1.1], [0.9, -0.4, 0.6]])
_B = np.array([1.0, -1.0, 1.0, -1.0])


def logistic_by_dot(w):
    """scikit-learn's ``_logistic_loss`` with ``X.dot(w)``, ``X[:, 1:].dot`` and ``.T.dot``."""
    z = _A.dot(w) + 0.5 * _A[:, 1:].dot(w[1:])
    return np.sum(np.logaddexp(0.0, -_B * z)) + 0.1 * _A.T.dot(np.tanh(z)).dot(w)


def test_ndarray_dot_of_a_traced_vector_is_np_dot():
    """``X.dot(w)`` of a NumPy ``X`` (the module's, or a closure's) converts ``w`` without
    NumPy's dispatch: refused on main ("converting an array that depends on the inputs");
    now the gradient and Hessian equal JAX's."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    A, B = jnp.asarray(_A), jnp.asarray(_B)

    def ref(w):
        z = A @ w + 0.5 * A[:, 1:] @ w[1:]
        return jnp.sum(jnp.logaddexp(0.0, -B * z)) + 0.1 * (A.T @ jnp.tanh(z)) @ w

    w = np.array([0.3, -0.6, 0.2])
    _, want_g, want_h = jref.value_gradient_hessian(ref)(w)  # one program, not two
    gradient = _gradient(logistic_by_dot, w)
    np.testing.assert_allclose(np.ravel(gradient(w)), want_g, rtol=1e-12)
    H = _dense(dgraph.hessian(logistic_by_dot, w, method="markowitz")(w))
    np.testing.assert_allclose(H, want_h, rtol=1e-12, atol=1e-14)

    X = _A.copy()

    def closure(w):
        return np.sum(np.sin(X.dot(w)))

    g = _gradient(closure, w)
    np.testing.assert_allclose(np.ravel(g(w)), X.T @ np.cos(X @ w), rtol=1e-12)
    assert type(X) is np.ndarray and type(_A) is np.ndarray  # restored after the trace


def test_a_boolean_mask_of_the_inputs_sums_as_numpy_does(monkeypatch):
    """scikit-learn's Huber loss selects ``residual[abs(residual) > eps·sigma]``: a number
    of entries that depends on the inputs, summed. Session 34 refused it in one line
    (without the sympy reading, which at 600×200 ran past a minute to refuse); now the
    selection is summed as ``np.where(mask, r, 0)`` is (MaskedSelection), without the
    sympy reading still, its gradient the piecewise one."""
    from dgraph.frontends import functions

    calls = []
    monkeypatch.setattr(functions, "_by_sympy", lambda *a: calls.append(a))

    def huber(w):
        r = _B - _A.dot(w)
        mask = np.abs(r) > 0.5
        return np.sum(r[~mask] ** 2) + np.sum(np.abs(r[mask]))

    w = np.array([0.3, -0.2, 0.1])
    g = _gradient(huber, w)
    r = _B - _A.dot(w)
    want = _A.T @ np.where(np.abs(r) > 0.5, -np.sign(r), -2.0 * r)
    assert 0 < np.count_nonzero(np.abs(r) > 0.5) < r.size  # both sides taken
    np.testing.assert_allclose(np.ravel(g(w)), want, rtol=1e-12, atol=1e-14)
    assert calls == []


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _jax_derivatives(ref, x):
    """JAX's value, gradient and Hessian of ``ref`` at ``x`` in one jitted program: one
    compile (not one per derivative, nor the eager value's one per primitive). The
    Hessian is ``jax.hessian``'s forward over reverse, the value and gradient carried out
    of its trace (``has_aux``): ``ref`` traced once, not three times (stored:
    tests/jax_reference.py)."""
    _jax()  # x64 on
    value, grad, hessian = jref.value_gradient_hessian(ref)(x)
    return float(value), grad, hessian


def _assert_like_jax(f, ref, x, method, hessian_method):
    """``f``'s value, dgraph's gradient (by ``method``, the choice's) and Hessian of it (by
    ``hessian_method``, the choice's) at ``x`` equal JAX's of ``ref``."""
    value, gradient, hessian = _jax_derivatives(ref, x)
    assert f(x) == pytest.approx(value, rel=1e-14)
    g = _gradient(f, x)
    np.testing.assert_allclose(np.ravel(g(x)), gradient, rtol=1e-12)
    np.testing.assert_allclose(
        _dense(dgraph.hessian(f, x, method=hessian_method)(x)), hessian, atol=1e-13
    )


def test_log_ndtr_is_log_phi_in_every_piece():
    """``scipy.special.log_ndtr`` (statsmodels' probit): refused on main ("log_ndtr on an
    array that depends on the inputs"); now the value equals SciPy's and the gradient and
    Hessian diagonal equal ``log Φ``'s from mpmath (50 digits) in all three pieces (below
    -20, between, above 8), at the switches -20 and 8 too."""
    from scipy import special

    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    x = np.array([-35.0, -20.5, -20.0, -19.0, -3.0, 0.0, 2.0, 8.0, 8.5, 12.0])

    def f(x):
        return np.sum(special.log_ndtr(x))

    def d(t, k):
        return float(mpmath.diff(lambda s: mpmath.log(mpmath.ncdf(s)), t, k))

    g = _gradient(f, x)
    np.testing.assert_allclose(np.ravel(g(x)), [d(t, 1) for t in x], rtol=1e-13)
    H = _dense(dgraph.hessian(f, x, method="forward")(x))
    np.testing.assert_allclose(np.diag(H), [d(t, 2) for t in x], rtol=1e-12)
    assert np.count_nonzero(H - np.diag(np.diag(H))) == 0


def test_lists_of_traced_scalars_reduced_as_numpy_and_math_do():
    """``np.prod([x[0], x[2]])``, ``math.fsum(terms)``, ``math.prod`` of a list of traced
    scalars and ``return float(total)``: each refused on main ("converting an array that
    depends on the inputs"); now the gradient and Hessian equal JAX's. ``isinstance(v,
    float)`` reads as outside the trace."""
    jax = _jax()
    jnp = jax.numpy

    def f(x):
        terms = [np.prod([x[i], x[i + 2]]) ** 2 + math.prod([x[i], x[i + 1], 0.5])
                 for i in range(4)]  # fmt: skip
        scale = 2.0 if isinstance(1.5, float) and not isinstance(x, float) else 0.0
        return float(math.fsum(terms) * scale + np.sum(np.sin(x)))

    def ref(x):
        return 2.0 * jnp.sum((x[:4] * x[2:]) ** 2 + 0.5 * x[:4] * x[1:5]) + jnp.sum(jnp.sin(x))

    x = np.array([0.3, -0.6, 0.2, 0.9, -0.4, 0.7])
    _assert_like_jax(f, ref, x, "paths", "markowitz")


def test_accumulate_and_vector_and_matrix_norms():
    """``np.maximum.accumulate`` / ``np.minimum.accumulate`` / ``np.multiply.accumulate``,
    ``np.linalg.norm(v, ord=3)`` and ``ord=-inf``, a matrix's ``ord=1``/``-inf`` norms:
    refused on main; now gradient and Hessian equal JAX's (cummax, cummin, cumprod)."""
    jax = _jax()
    jnp = jax.numpy

    def f(x):
        y = np.maximum.accumulate(x) + np.minimum.accumulate(x * x) + np.multiply.accumulate(x)
        M = x.reshape(2, 3)
        return (
            np.linalg.norm(y, ord=3) + np.linalg.norm(M, ord=1)
            + np.linalg.norm(M, ord=-np.inf) + np.linalg.norm(x, -np.inf)
        )  # fmt: skip

    def ref(x):
        y = jax.lax.cummax(x) + jax.lax.cummin(x * x) + jnp.cumprod(x)
        M = x.reshape(2, 3)
        return (
            jnp.linalg.norm(y, ord=3) + jnp.linalg.norm(M, ord=1)
            + jnp.linalg.norm(M, ord=-jnp.inf) + jnp.linalg.norm(x, -jnp.inf)
        )  # fmt: skip

    x = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
    _assert_like_jax(
        f, ref, x, "paths", "reverse"
    )  # the choice's method (comparing its candidates: 2.9 s)


def test_ufunc_reduce_of_arrays_and_of_lists():
    """``np.maximum.reduce([a, b, c])`` (a list of traced arrays, converted as NumPy
    does), ``np.minimum.reduce`` of a matrix (axis 0 by default), ``np.add.reduce(...,
    axis=1)`` and ``np.multiply.reduce``: refused on main ("converting an array that
    depends on the inputs", "numpy.maximum.reduce is not supported"); now gradient and
    Hessian equal JAX's."""
    jax = _jax()
    jnp = jax.numpy

    def f(x):
        env = np.maximum.reduce([x, 0.5 - x, 0.3 * x**2])
        M = x.reshape(2, 3)
        return (
            np.sum(env) + np.sum(np.minimum.reduce(M) ** 2)
            + np.sum(np.sin(np.add.reduce(M, axis=1))) + np.multiply.reduce(x[:3])
        )  # fmt: skip

    def ref(x):
        env = jnp.max(jnp.stack([x, 0.5 - x, 0.3 * x**2]), axis=0)
        M = x.reshape(2, 3)
        return (
            jnp.sum(env) + jnp.sum(jnp.min(M, axis=0) ** 2)
            + jnp.sum(jnp.sin(jnp.sum(M, axis=1))) + jnp.prod(x[:3])
        )  # fmt: skip

    x = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
    _assert_like_jax(f, ref, x, "forward", "forward")


def test_det_of_stacks_of_small_matrices():
    """``np.linalg.det`` of ``(k, 3, 3)`` and ``(k, 2, 2)`` stacks (a mesh's element
    volumes): refused on main ("one square matrix is supported"); each written out by
    its cofactors, the gradient and Hessian equal JAX's."""
    jax = _jax()
    jnp = jax.numpy

    def body(lib, x):
        E = x[:18].reshape(2, 3, 3) + lib.eye(3)
        F = x[10:].reshape(2, 2, 2)
        return lib.sum(lib.log(lib.linalg.det(E))) + lib.sum(lib.linalg.det(F) ** 2)

    x = np.random.default_rng(3).normal(size=18) * 0.3

    def ref(x):
        return body(jnp, x)

    # JAX's value, gradient and Hessian in one jitted program (not the eager value's
    # program per primitive, then the gradient's and the Hessian's)
    value, want, want_h = jref.value_gradient_hessian(ref)(x)
    assert body(np, x) == pytest.approx(float(value), rel=1e-13)
    g = _gradient(lambda x: body(np, x), x)
    np.testing.assert_allclose(np.ravel(g(x)), want, rtol=1e-12)
    H = _dense(dgraph.hessian(lambda x: body(np, x), x, method="markowitz")(x))
    np.testing.assert_allclose(H, want_h, atol=1e-12)


def test_builtin_sum_of_a_traced_array_is_one_reduction():
    """scipy's tutorial Rosenbrock, ``x = np.asarray(x); return sum(100.0*(x[1:] -
    x[:-1]**2.0)**2.0 + (1 - x[:-1])**2.0)`` with the builtin ``sum``: on main it iterated,
    one vertex per entry (its sparse Hessian at n = 500 ran past 60 s in
    benchmarks/real_programs9.py); now one reduction, the Hessian scipy's ``rosen_hess``."""
    from dgraph.frontends import from_python

    def tutorial(x):
        x = np.asarray(x)
        return sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)

    x = np.linspace(-0.5, 1.5, 60)
    graph = from_python(tutorial, sizes=[60], level="array")
    assert len(graph.order()) < 20
    H = dgraph.hessian(tutorial, x, sparse=True, method="markowitz")(x)
    assert H.nnz == 3 * 60 - 2
    np.testing.assert_allclose(H.toarray(), rosen_hess(x), rtol=1e-12)


def _cauchy(t, c=1.5):
    return np.log1p((t / c) ** 2) + np.where(t > 0, t**3, 0.0)


_LOSS = np.vectorize(_cauchy)


def test_np_vectorize_of_an_elementwise_function_reads_it_once():
    """``np.vectorize`` of a per-sample loss (made at module level, or inside ``f``):
    refused on main ("converting an array that depends on the inputs"); now the gradient
    and Hessian equal JAX's. A lifted function that is not elementwise (a sum inside) is
    not read once on the whole array (that would change its numbers): the entries' own
    reading gives ``t·sum(t) = t²`` per entry, NumPy's."""
    jax = _jax()
    jnp = jax.numpy

    def f(w):
        r = _A.dot(w) - _B
        inner = np.vectorize(lambda a, b: a * np.sin(b))
        return np.sum(_LOSS(r)) + np.sum(inner(w, 2.0))

    def ref(w):
        r = jnp.asarray(_A) @ w - _B
        loss = jnp.log1p((r / 1.5) ** 2) + jnp.where(r > 0, r**3, 0.0)
        return jnp.sum(loss) + jnp.sum(w * jnp.sin(2.0))

    w = np.array([0.3, -0.6, 0.2])
    value, gradient, hessian = _jax_derivatives(ref, w)
    assert f(w) == pytest.approx(value, rel=1e-14)
    g = _gradient(f, w)
    np.testing.assert_allclose(np.ravel(g(w)), gradient, rtol=1e-12)
    np.testing.assert_allclose(
        _dense(dgraph.hessian(f, w, method="markowitz")(w)), hessian, atol=1e-13
    )

    def summing(w):
        return np.sum(np.vectorize(lambda t: t * np.sum(t))(w))

    g = dgraph.make_function(summing, "jacobian", "python", point=[w], method="forward")
    np.testing.assert_allclose(np.ravel(g(w)), 2.0 * w, rtol=1e-14)


@pytest.mark.parametrize(("shape", "axis"), [((19,), 0), ((5, 9), 1)])
def test_running_extremes_take_log_rounds(shape, axis):
    """np.maximum.accumulate / np.minimum.accumulate are ⌈log₂ n⌉ rounds of the array
    against itself shifted (main: a slice and a maximum per position; a drawdown's
    gradient at 1,000 entries 9.9 CPU-s, now 0.4): a few vertices whatever n, and the
    drawdown's gradient (and, 1-d, Hessian) equal JAX's lax.cummax / cummin's."""
    import jax
    import jax.numpy as jnp

    from dgraph.frontends import from_function

    from . import jax_reference as jref

    size = int(np.prod(shape))
    x = np.sin(np.arange(size) * 0.37) + 0.01 * np.arange(size)

    def f(u):
        y = np.cumsum(u.reshape(shape), axis=axis)
        top, bottom = np.maximum.accumulate(y, axis), np.minimum.accumulate(y, axis)
        return np.sum((top - y) ** 2) + np.sum(np.sin(bottom) * y)

    def twin(u):
        y = jnp.cumsum(u.reshape(shape), axis=axis)
        top, bottom = jax.lax.cummax(y, axis), jax.lax.cummin(y, axis)
        return jnp.sum((top - y) ** 2) + jnp.sum(jnp.sin(bottom) * y)

    g = from_function(f, sizes=[(size,)], level="array")
    assert len(g.vertices) < 60  # main: more than 2 × the axis length
    G = dgraph.make_function(f, "jacobian", point=[x], method="reverse")
    with jax.enable_x64(True):  # 1-d: the gradient and Hessian in one program, not two
        jax_ = jref.value_gradient_hessian(twin) if len(shape) == 1 else jref.jacrev(twin)
        wants = jax_(jnp.asarray(x))
    want_g = np.asarray(wants[1] if len(shape) == 1 else wants)
    np.testing.assert_allclose(np.asarray(G(x)).ravel(), want_g, rtol=1e-11, atol=1e-12)
    if len(shape) == 1:  # the Hessian once (the rounds are the same along any axis)
        H = dgraph.hessian(f, x, method="markowitz")
        np.testing.assert_allclose(np.asarray(H(x)), np.asarray(wants[2]), rtol=1e-11, atol=1e-12)


def test_a_product_with_a_constant_of_zeros_is_zeros():
    """``np.zeros((2, 3)) @ x``, its ``einsum``, and ``np.fft.fft2`` of a real array
    (whose imaginary part's zeros it multiplies): the product's block has no entry, so
    its vertex had no edge and the graph was refused ("vertex 't1' is dangling: no
    input reaches it", an internal line). Now the zeros are a constant; Hessians JAX's."""
    jax = _jax()
    jnp = jax.numpy

    def program(xp):
        def f(x):
            zero = xp.sum(xp.zeros((2, 6)) @ x + 1.0) * xp.sum(x**2)
            summed = xp.sum(xp.einsum("ij,j->i", xp.zeros((2, 6)), x) ** 2)
            return zero + summed + xp.sum(xp.abs(xp.fft.fft2(x.reshape(2, 3))) ** 2)

        return f

    x = np.array([0.3, -0.7, 1.1, 0.5, -0.4, 0.9])
    want = np.asarray(jref.hessian(program(jnp))(jnp.asarray(x)))
    np.testing.assert_allclose(
        dgraph.hessian(program(np), x, method="markowitz")(x), want, atol=1e-12
    )


def reshape_order_none_and_cell_fraction(x):
    """autograd's reverse pass writes ``np.reshape(g, shape, order=None)`` (NumPy reads
    None as "C"); a semi-Lagrangian step's cell index ``np.floor(x).astype(int)`` and the
    fraction of ``x`` inside its cell (fluidsim.py)."""
    square = np.reshape(x, (2, 2), order=None) @ x.ravel(order=None)[:2]
    cell = np.floor(2.0 * x).astype(int)
    frac = 2.0 * x - cell
    return np.sum(square**2) + np.sum(frac**3 * x) + np.sum(np.ceil(x).astype(float) * x**2)


def test_reshape_order_none_and_whole_casts_of_passive_values():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def ref(x):
        square = x.reshape(2, 2) @ x[:2]
        frac = 2.0 * x - jnp.floor(2.0 * x)
        return jnp.sum(square**2) + jnp.sum(frac**3 * x) + jnp.sum(jnp.ceil(x) * x**2)

    x = np.array([0.3, -0.7, 1.1, 0.45])
    H = dgraph.hessian(reshape_order_none_and_cell_fraction, x, method="markowitz")(x)
    np.testing.assert_allclose(H, np.asarray(jref.hessian(ref)(jnp.asarray(x))), rtol=1e-10)


def cast_of_a_sign_product(x):
    return np.sum((np.sign(x) * 1.5).astype(int) * x)


def lookup_table(t):
    """A linear interpolation in a table at cells ``(t * 10).astype(int)``."""
    i = np.clip((t * 10).astype(int), 0, 9)
    w = t * 10 - i
    return np.sum(((1 - w) * TABLE[i] + w * TABLE[i + 1]) * t**2)


TABLE = np.sin(3 * np.linspace(0, 1, 11))


def test_a_cast_to_int_of_a_value_not_known_whole_rounds_toward_zero():
    """``astype(int)`` of a value not known whole (a passive one, or a traced one: a
    table's cell) is NumPy's cast toward zero, no derivative through it, as JAX's
    ``convert_element_type`` reads (both were refused: 'astype(int64) on an array that
    depends on the inputs is not supported'); the cells are read at each call."""
    x = np.array([0.4, -2.0, 3.0])
    J = dgraph.make_function(cast_of_a_sign_product, "jacobian", point=[x], method="forward")(x)
    np.testing.assert_array_equal(np.ravel(J), [1.0, -1.0, 1.0])
    t = np.array([0.05, 0.37, 0.81, -0.2, 1.3])
    G = dgraph.make_function(lookup_table, "jacobian", point=[t], method="markowitz")
    for p in (t, np.array([0.15, 0.77, 0.11, 0.62, 0.9])):  # other cells at the second
        i = np.clip((p * 10).astype(int), 0, 9)
        w = p * 10 - i
        slope, value = 10 * (TABLE[i + 1] - TABLE[i]), (1 - w) * TABLE[i] + w * TABLE[i + 1]
        want = slope * p**2 + 2 * p * value
        np.testing.assert_allclose(np.ravel(G(p)), want, rtol=1e-13, atol=1e-13)


def truncated_rounding(x):
    return np.sum(np.round(x, 1).astype(int) * x)


def test_a_truncated_rounding_s_derivative_is_its_value():
    """``np.round(x, 1).astype(int)``: NumPy refuses the cast of a non-whole passive value,
    JAX reads it (trunc of a rounding); zeroing the steps' derivatives in the product of
    two ``Subs`` of a floor's derivative raised sympy's TypeError before (issue 55's
    survey37a). The Jacobian is the truncated values, the Hessian zero."""
    x = np.array([0.26, 1.73, -0.44, 2.96])
    J = dgraph.make_function(truncated_rounding, "jacobian", point=[x], method="forward")(x)
    np.testing.assert_array_equal(np.ravel(J), np.round(x, 1).astype(int).astype(float))
    H = dgraph.hessian(truncated_rounding, x, method="forward")(x)
    np.testing.assert_array_equal(H, np.zeros((4, 4)))


def cell_lookup(x):
    """fluidsim.py's bilinear lookup ``f[i, j]`` at cells ``np.floor(...).astype(int)``."""
    f = np.reshape(x, (2, 2))
    i = np.mod(np.floor(x[:2]).astype(int), 2)
    j = np.mod(np.floor(x[2:]).astype(int), 2)
    return np.sum(f[i, j] * x[:2])


def test_a_lookup_at_computed_cells_along_two_axes_is_one_clear_line():
    with pytest.raises(InputError) as e:
        dgraph.make_function(cell_lookup, "jacobian", point=[np.array([0.3, 1.2, 0.7, 1.6])])
    assert "not at several (x[i, j])" in str(e.value) and "\n" not in str(e.value)


def test_array_api_norms_a_count_of_nonzeros_and_ldexp():
    """NumPy 2's ``np.linalg.vector_norm`` (every axis, or some) and ``matrix_norm``,
    ``np.count_nonzero`` of a comparison (a count: no derivative) and ``np.ldexp`` by
    constant integers: each was refused ('on an array that depends on the inputs');
    gradient and Hessian equal JAX's."""
    jax = _jax()
    jnp = jax.numpy
    if not hasattr(np.linalg, "vector_norm"):
        pytest.skip("NumPy 1 has no vector_norm")

    def f(x):
        M = x.reshape(2, 3)
        return (
            np.linalg.vector_norm(M) + np.sum(np.linalg.vector_norm(M, axis=1, ord=3))
            + np.linalg.matrix_norm(M, ord=1) + np.count_nonzero(x > 0.5) * x[0] ** 2
            + np.sum(np.ldexp(x, np.array([1, 0, -1, 2, 3, 0])) ** 2)
        )  # fmt: skip

    def ref(x):
        M = x.reshape(2, 3)
        return (
            jnp.linalg.vector_norm(M) + jnp.sum(jnp.linalg.vector_norm(M, axis=1, ord=3))
            + jnp.linalg.matrix_norm(M, ord=1) + jnp.count_nonzero(x > 0.5) * x[0] ** 2
            + jnp.sum((x * 2.0 ** jnp.array([1, 0, -1, 2, 3, 0])) ** 2)
        )  # fmt: skip

    x = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
    _assert_like_jax(f, ref, x, "paths", "reverse")


def test_a_literal_float_zero_in_the_program_prints():
    """``np.insert(x, 1, 0.0)`` puts sympy's ``Float(0.0)`` in the primal, which compares
    unequal to 0 since SymPy 1.13: it was refused as 'constant 0.0 is beyond the range of a
    double' (``np.block`` with ``np.eye(2) * x[0]`` too)."""
    x = np.array([0.31, 0.72, 0.45])
    J = dgraph.make_function(
        lambda x: np.insert(x, 1, 0.0) ** 2, "jacobian", point=[x], method="forward"
    )(x)
    want = np.zeros((4, 3))
    want[[0, 2, 3], [0, 1, 2]] = 2 * x
    np.testing.assert_array_equal(np.reshape(J, (4, 3)), want)


def _from_another_module():
    """A helper whose globals are another module's (``sps``, as a user's helpers
    module imports SciPy): a namespace the tracer patches only where it reaches it."""
    import scipy.special

    namespace = {"sps": scipy.special}
    exec("def softmax_helper(z):\n    return sps.softmax(2 * z)\n", namespace)
    return namespace["softmax_helper"]


_SOFTMAX_HELPER = _from_another_module()


def loss_with_a_default_helper(x, act=_SOFTMAX_HELPER):
    return np.sum(np.sin(act(x)) ** 2)


def vander_block_insert(x):
    V = np.vander(x[:3], 4)  # (3, 4), powers 3, 2, 1, 0
    B = np.block([[np.eye(2) * x[0], x[1:5].reshape(2, 2)], [x[1:5].reshape(2, 2).T, np.eye(2)]])
    return np.sum(V**2 * x[3]) + np.sum(np.sin(B) @ x[:4]) + np.sum(np.insert(x, 2, 0.5) ** 3)


def test_a_helper_in_a_default_argument_and_vander_block_insert_read():
    """A helper given as a default argument (``def loss(x, act=helper)``) is looked into
    as one in a closure (its SciPy ``softmax`` took traced arrays: 'converting an array
    that depends on the inputs to a NumPy array' in dgraph.hessian); ``np.vander``,
    ``np.block`` and ``np.insert`` are NumPy's definitions of them (each refused, or
    read only at the element level: 'numpy.vander on an array that depends on the inputs
    is not supported'). Hessians against JAX's."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = np.array([0.31, 0.72, 0.45, 0.93, 0.18, 0.66])

    def softmax_loss(z):
        return jnp.sum(jnp.sin(jax.nn.softmax(2 * z)) ** 2)

    def vbi(z):
        V = jnp.vander(z[:3], 4)
        top = jnp.concatenate([jnp.eye(2) * z[0], z[1:5].reshape(2, 2)], axis=1)
        B = jnp.concatenate([top, jnp.concatenate([z[1:5].reshape(2, 2).T, jnp.eye(2)], 1)])
        inserted = jnp.concatenate([z[:2], jnp.array([0.5]), z[2:]])
        return jnp.sum(V**2 * z[3]) + jnp.sum(jnp.sin(B) @ z[:4]) + jnp.sum(inserted**3)

    for f, ref in ((loss_with_a_default_helper, softmax_loss), (vander_block_insert, vbi)):
        with jax.enable_x64(True):
            want = np.asarray(jref.hessian(ref)(jnp.asarray(x)))
        H = dgraph.hessian(f, x, method="forward")
        np.testing.assert_allclose(H(x), want, rtol=1e-12, atol=1e-12)
