"""The regularized incomplete beta I_x(a, b) as one elementwise operation of three operands
(``betainc`` of :mod:`dgraph.blocks.array_extra`), refused before in one line:
scipy.special's ``betainc``, ``betaincc``, ``bdtr(c)``, ``fdtr(c)`` and ``stdtr``, the
scipy.stats CDFs made of them (``t``, ``beta``, ``f``, ``binom``) in a NumPy program, and
JAX's ``jax.scipy.special.betainc`` / ``jax.scipy.stats.beta.cdf`` (jaxpr primitive
``regularized_incomplete_beta``) in a JAX one: values, gradients and Hessians against JAX's
``jacfwd``/``hessian`` of the same calls and against the closed forms (the t density at
t = 0), in Python, C, JAX and CUDA on the host; C's ``dgraph_betainc`` against SciPy and
mpmath on a grid, and with a constant changed; the shapes a and b constant (JAX has no
derivative in them either: "Betainc gradient with respect to a and b not supported")."""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import pytest
import scipy.special as sps
from scipy import stats

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.native_build import shared_library
from dgraph.errors import DGraphError

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsps = pytest.importorskip("jax.scipy.special")
jst = pytest.importorskip("jax.scipy.stats")
jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402

C = pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
X = np.array([0.12, 0.47, 0.83, 0.31])  # in (0, 1): each call's argument inside its support
K = np.array([0.0, 2.0, 5.0, 7.0])  # bdtrc's counts, k = n = 7 the impossible event
K6 = np.array([0.0, 2.0, 5.0, 6.0])  # binom.logsf's (log 0 = -inf at k = n)


def special(x):
    return np.sum(
        sps.betainc(2.0, 3.5, x) + sps.betaincc(np.array([0.5, 2.0, 30.0, 4.0]), 1.5, x**2)
        + sps.bdtr(3, 7, x) + sps.bdtrc(K, 7, x) + sps.fdtr(3.0, 5.0, x)
        + sps.fdtrc(2.0, 4.0, 3.0 * x) + sps.stdtr(3.0, 4.0 * x - 2.1)
        + sps.stdtr(np.array([1.0, 2.5, 4.0, 30.0]), x - 0.4) * x
    )  # fmt: skip


def _t_cdf(df, t):
    """Student's t CDF by I_(df/(df+t²))(df/2, 1/2) (Abramowitz and Stegun 26.7.1), JAX's
    derivatives finite but at t = 0."""
    tail = 0.5 * jsps.betainc(0.5 * df, 0.5, df / (df + t * t))
    return jnp.where(t < 0, tail, 1.0 - tail)


def special_jax(x):
    B = jsps.betainc
    upper = jnp.where(K == 7.0, 0.0, B(K + 1.0, jnp.maximum(7.0 - K, 1.0), x))
    return jnp.sum(
        B(2.0, 3.5, x) + 1.0 - B(jnp.array([0.5, 2.0, 30.0, 4.0]), 1.5, x**2)
        + B(4.0, 4.0, 1.0 - x) + upper + B(1.5, 2.5, 3.0 * x / (5.0 + 3.0 * x))
        + B(2.0, 1.0, 4.0 / (4.0 + 6.0 * x)) + _t_cdf(3.0, 4.0 * x - 2.1)
        + _t_cdf(jnp.array([1.0, 2.5, 4.0, 30.0]), x - 0.4) * x
    )  # fmt: skip


def _check_block(got, want, block=slice(None), rtol=1e-9):
    """``got`` (value, gradient, Hessian) equals ``want``: the value, and the gradient and
    the Hessian in ``block`` (one program's inputs; its atol from its block's largest)."""
    value, gradient, hessian = got
    want_value, want_gradient, want = (np.asarray(w) for w in want)
    assert np.isclose(value, float(want_value), rtol=1e-12)
    np.testing.assert_allclose(gradient[block], want_gradient[block], rtol=1e-10, atol=1e-12)
    want = want[block, block]
    np.testing.assert_allclose(
        hessian[block, block], want, rtol=rtol, atol=rtol * np.abs(want).max()
    )


def _others_are_zero(hessian: np.ndarray, block: slice) -> None:
    """The rows of ``block`` are 0 outside it (a block-diagonal Hessian's)."""
    rest = np.ones(len(hessian), dtype=bool)
    rest[block] = False
    np.testing.assert_array_equal(hessian[block][:, rest], 0.0)


def _check(F, f_jax, x, rtol=1e-9):
    _check_block(F(x), jref.value_gradient_hessian(f_jax)(jnp.asarray(x)), rtol=rtol)


DATA = np.array([-1.3, 0.4, 2.2, 0.9, -0.2, 3.1])
CENSORED = np.array([2.5, -1.0, 1.8])  # known only to exceed these


def student(theta):
    """A censored Student-t likelihood (df = 4): the density at the observed values, the
    survival function at the censored ones, a t test's p-value of the location."""
    mu, log_s = theta[0], theta[1]
    s = np.exp(log_s)
    observed = np.sum(stats.t.logpdf(DATA, 4.0, loc=mu, scale=s))
    censored = np.sum(stats.t.logsf(CENSORED, 4.0, loc=mu, scale=s))
    p_value = 2.0 * stats.t(5.0).cdf(-np.abs(mu) / (s / np.sqrt(6.0)))
    return observed + censored + p_value


def student_jax(theta):
    mu, log_s = theta[0], theta[1]
    s = jnp.exp(log_s)
    observed = jnp.sum(jst.t.logpdf(DATA, 4.0, loc=mu, scale=s))
    censored = jnp.sum(jnp.log(1.0 - _t_cdf(4.0, (CENSORED - mu) / s)))
    return observed + censored + 2.0 * _t_cdf(5.0, -jnp.abs(mu) / (s / jnp.sqrt(6.0)))


THETA = np.array([0.7, 0.2])  # student's point; its other point below
C_BLOCKS = {"special": slice(0, 4), "student": slice(4, 6)}


def c_programs(z):
    """:func:`special` and :func:`student` of their own inputs (``z[:4]``, ``z[4:]``): one
    C make for the two tests below, its Hessian block diagonal, each block one program's."""
    return special(z[:4]) + student(z[4:])


def c_programs_jax(z):
    return special_jax(z[:4]) + student_jax(z[4:])


@functools.cache
def _c_made():
    """:func:`c_programs`' value, gradient and Hessian in C, made at (X, THETA)."""
    point = np.concatenate([X, THETA])
    return dgraph.make_function(c_programs, "value_gradient_hessian", lang="c", point=[point])


@functools.cache
def _c_other():
    """The other point (special's X[::-1]·0.9, student's (-0.4, 0.5)) and JAX's value,
    gradient and Hessian of :func:`c_programs_jax` there (one compile for both tests and
    the CUDA one)."""
    other = np.concatenate([X[::-1] * 0.9, [-0.4, 0.5]])
    return other, jref.value_gradient_hessian(c_programs_jax)(jnp.asarray(other))


def _c_case(program: str) -> None:
    """``program``'s block of :func:`c_programs`' C function at (X, THETA) (the value:
    both programs') and at the other point; the blocks between it and the other 0."""
    F = _c_made()
    assert np.isclose(F(np.concatenate([X, THETA]))[0], special(X) + student(THETA), rtol=1e-13)
    other, want = _c_other()
    got = F(other)
    block = C_BLOCKS[program]
    _check_block(got, want, block)
    _others_are_zero(got[2], block)
    assert "dgraph_betainc(" in F.generated.text


@C
def test_scipy_special_calls_against_jax():
    """Value, gradient and Hessian in C at a point, the made function called at another
    (the Python printer's: the scipy.stats test below)."""
    _c_case("special")


@C
@pytest.mark.slow  # ~4-8 s: a C Hessian (with special's: made once for both)
def test_a_student_t_program_with_a_constant_df():
    _c_case("student")


def distributions(x):
    return np.sum(
        stats.beta.cdf(x, 2.0, 3.0) + stats.beta.sf(2.0 * x - 0.3, 0.5, 1.5)
        + stats.f.cdf(3.0 * x, 4.0, 6.0) + stats.f.logpdf(x + 0.5, 3.0, 7.0)
        + stats.f(2.0, 5.0).sf(x) + stats.binom.cdf(3, 8, x) + stats.binom.logsf(K6, 7, x)
        + stats.beta(1.5, 2.5).logcdf(x)
    )  # fmt: skip


def _f_logpdf(z, m, n):
    return (
        0.5 * m * jnp.log(m) + 0.5 * n * jnp.log(n) + (0.5 * m - 1.0) * jnp.log(z)
        - 0.5 * (m + n) * jnp.log(n + m * z) - jsps.betaln(0.5 * m, 0.5 * n)
    )  # fmt: skip


def distributions_jax(x):
    B = jsps.betainc
    z = 2.0 * x - 0.3  # beta.sf: 1 at z <= 0 (x = 0.12), 0 at z >= 1
    inside = (z > 0) & (z < 1)
    sf = jnp.where(
        inside, 1.0 - B(0.5, 1.5, jnp.where(inside, z, 0.5)), jnp.where(z <= 0, 1.0, 0.0)
    )
    return jnp.sum(
        jst.beta.cdf(x, 2.0, 3.0) + sf + B(2.0, 3.0, 12.0 * x / (6.0 + 12.0 * x))
        + _f_logpdf(x + 0.5, 3.0, 7.0) + B(2.5, 1.0, 5.0 / (5.0 + 2.0 * x))
        + B(5.0, 4.0, 1.0 - x)
        + jnp.log(B(K6 + 1.0, 7.0 - K6, x))
        + jnp.log(B(1.5, 2.5, x))
    )  # fmt: skip


T = np.array([0.0, -1e-9, 1e-6, 0.07, -0.071, 0.099, 0.11, 0.99, -1.01, 1.58, 3.0, -40.0])
DFS = (0.5, 1000.0)
PY_BLOCKS = {0.5: slice(0, 12), 1000.0: slice(12, 24), "distributions": slice(24, 28)}


def python_programs(z):
    """``stats.t.cdf`` of df 0.5 and 1000 (``z[:12]``, ``z[12:24]``) and
    :func:`distributions` (``z[24:]``), each of its own inputs: one Python make for the
    tests below, its Hessian block diagonal, each block one program's."""
    t_cdfs = np.sum(stats.t.cdf(z[:12], 0.5)) + np.sum(stats.t.cdf(z[12:24], 1000.0))
    return t_cdfs + distributions(z[24:])


@functools.cache
def _python_made():
    """:func:`python_programs`' value, gradient and Hessian in Python, made at (T, T, X)."""
    point = np.concatenate([T, T, X])
    return dgraph.make_function(python_programs, "value_gradient_hessian", point=[point])


def _t_cdfs(t: np.ndarray) -> float:
    return sum(np.sum(stats.t.cdf(t, df)) for df in DFS)


@pytest.mark.parametrize("df", DFS)
def test_the_t_cdf_s_derivatives_are_the_t_density_s(df):
    """The gradient of ``stdtr`` is the t density f (closed form), the Hessian its slope
    -(df+1)·t/(df+t²)·f(t), at t = 0 and on both sides of the switches at
    min(1, √df/10) (the series near 0: I_x(1/2, df/2)'s derivatives there cancel,
    1.3e-4 off at t = 1e-6, and are 0·∞ at 0) and at t² = df. Its block of
    :func:`python_programs`' (the value: all three programs')."""
    t = T
    F = _python_made()
    value, gradient, hessian = F(np.concatenate([T, T, X]))
    assert np.isclose(value, _t_cdfs(T) + distributions(X), rtol=1e-15)
    block = PY_BLOCKS[df]
    density = stats.t.pdf(t, df)
    slope = -(df + 1.0) * t / (df + t * t) * density
    np.testing.assert_allclose(gradient[block], density, rtol=1e-12)
    np.testing.assert_allclose(np.diag(hessian[block, block]), slope, rtol=1e-12, atol=1e-300)
    _others_are_zero(hessian, block)


def test_scipy_stats_cdfs_against_jax():
    """:func:`distributions`' block of :func:`python_programs`' (the value: all three
    programs')."""
    F = _python_made()
    assert np.isclose(F(np.concatenate([T, T, X]))[0], _t_cdfs(T) + distributions(X), rtol=1e-13)
    other = X[::-1] * 0.9
    value, gradient, hessian = F(np.concatenate([T, T, other]))
    want = jref.value_gradient_hessian(distributions_jax)(jnp.asarray(other))
    block = PY_BLOCKS["distributions"]
    got = (value - _t_cdfs(T), gradient[block], hessian[block, block])
    _check_block(got, want)
    _others_are_zero(hessian, block)


def jax_program(x):
    return jnp.sum(
        jsps.betainc(2.0, 3.5, x) * jst.beta.cdf(x, 0.7, 2.0)
        + jst.beta.sf(x**2, 3.0, 30.0)
        + jsps.betainc(jnp.array([1.0, 2.0, 3.0, 4.0]), 0.5, x)
    )


def test_a_jax_program_against_jax():
    """``regularized_incomplete_beta`` read as ``betainc``; the Jacobian against
    ``jax.jacfwd``, the Hessian against ``jax.hessian``."""
    graph = dgraph.from_jax(jax_program, X, level="array")
    assert "betainc" in {graph.op(v).primitive for v in graph.nx if graph.op(v) is not None}
    F = dgraph.make_function(jax_program, "value_gradient_hessian", lang="jax", point=[X])
    _check(F, jax_program, X[::-1] * 0.9)


def device_program(x):
    """Two of :func:`special`'s calls, a shape a number and an array, one times x (its
    Jacobian calls ``dgraph_betainc``): what the CUDA text prints of them is
    :func:`special`'s."""
    return np.sum(sps.betainc(2.0, 3.5, x) * x + sps.betaincc(SHAPES, 1.5, x**2))


@C
def test_cuda_device_functions_on_the_host():
    """The C values' CUDA text (``dgraph_betainc`` a device function), compiled as C++ on
    the host, gives the C's Jacobian, and both the slope dI_x(a, b)/dx = the beta
    density (SciPy's). :func:`special`'s C Jacobian against JAX's: the C tests above."""
    from dgraph.codegen.cuda import cxx_compiler

    if cxx_compiler() is None:
        pytest.skip("needs a C++ compiler")
    J = dgraph.make_function(device_program, "jacobian", lang="c", point=[X])
    values = J.generated.values
    assert "dgraph_betainc(" in values.cuda
    z = X[::-1] * 0.9
    got = np.ravel(values.load_cuda_host()(z).data)
    np.testing.assert_allclose(got, np.ravel(J(z)), rtol=1e-14)
    want = stats.beta.pdf(z, 2.0, 3.5) * z + sps.betainc(2.0, 3.5, z)
    want -= 2.0 * z * stats.beta.pdf(z**2, SHAPES, 1.5)
    np.testing.assert_allclose(np.ravel(J(z)), want, rtol=1e-12)


def test_the_array_graph_reads_back_from_json():
    graph = dgraph.from_function(special, sizes=[X.size], point=[X], level="array")
    again = dgraph.from_json(graph.to_json())
    assert "betainc" in {again.op(v).primitive for v in again.nx if again.op(v) is not None}
    assert dgraph.accumulate(again, "reverse").verified


# -- dgraph_betainc in C --------------------------------------------------------------

_CALL = "dgraph_betainc(a[k], b[k], x[k])"


def _c_betainc(definitions: list[str]):
    harness = "\n".join(
        [
            "#include <math.h>",
            *definitions,
            "void run(long n, const double *a, const double *b, const double *x, double *y)",
            f"{{ for (long k = 0; k < n; ++k) y[k] = {_CALL}; }}",
        ]
    )
    library = shared_library(compiler(), ("-O2",), harness, ".c", ("-lm",))

    def run(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
        y = np.empty_like(x)
        pointer = lambda v: ctypes.c_void_p(v.ctypes.data)  # noqa: E731
        library.run(ctypes.c_long(x.size), pointer(a), pointer(b), pointer(x), pointer(y))
        return y

    return run


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b from 1e-2 to 1e3 (11 each, across Stirling's switch at 10), x from 1e-300 to
    0.1, from 1 - 1e-15 to 0.9 and uniform: 4,235 points; then the edges."""
    shapes = 10 ** np.linspace(-2, 3, 11)
    a, b = (v.ravel() for v in np.meshgrid(shapes, shapes, indexing="ij"))
    rng = np.random.default_rng(0)
    xs = np.concatenate(
        [10.0 ** -np.arange(1, 301, 20), 1 - 10.0 ** -np.arange(1, 17, 2), rng.uniform(0, 1, 12)]
    )
    a, b, x = np.repeat(a, xs.size), np.repeat(b, xs.size), np.tile(xs, a.size)
    edges = [
        (0, 2, 0.3), (0, 2, 0), (2, 0, 0.3), (2, 0, 1), (0, 0, 0.3), (2, 3, 0), (2, 3, 1),
        (2, 3, -0.1), (2, 3, 1.1), (-1, 2, 0.3), (np.inf, 2, 0.3), (2, np.inf, 0.3),
        (np.inf, np.inf, 0.3), (2, 3, np.nan), (1e-300, 2, 0.3),
    ]  # fmt: skip
    ea, eb, ex = (np.array(v, dtype=float) for v in zip(*edges, strict=True))
    return np.concatenate([a, ea]), np.concatenate([b, eb]), np.concatenate([x, ex])


def _worst(y: np.ndarray, want: np.ndarray, floor: float) -> float:
    finite = np.isfinite(want)
    np.testing.assert_array_equal(y[~finite], want[~finite])  # NaN where SciPy's is
    return float(np.max(np.abs(y - want)[finite] / np.maximum(np.abs(want[finite]), floor)))


@C
def test_c_betainc_equals_scipy_and_mpmath():
    """Within 1e-12 of SciPy's where its value is above 1e-250 (below, SciPy's own error
    reaches 1.5e-6: I_0.27(562, 31.6) = 1.24641e-273, mpmath's and the C's agree to
    5e-14), and of mpmath's (40 digits) on 300 of the points, at every size; the edges
    (a or b 0 or inf, x at 0, 1 or outside) SciPy's."""
    mpmath = pytest.importorskip("mpmath")
    a, b, x = _grid()
    y = _c_betainc(special_definitions(_CALL))(a, b, x)
    want = sps.betainc(a, b, x)
    assert _worst(y, want, 1e-250) < 1e-12
    pick = np.random.default_rng(1).choice(x.size - 15, 300, replace=False)
    with mpmath.workdps(40):
        exact = [
            mpmath.betainc(mpmath.mpf(a[i]), mpmath.mpf(b[i]), 0, mpmath.mpf(x[i])) for i in pick
        ]
        exact = np.array(
            [float(e / mpmath.beta(a[i], b[i])) for e, i in zip(exact, pick, strict=True)]
        )
    assert _worst(y[pick], exact, 1e-300) < 1e-12


@C
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("-(a + m) * (a + b + m) * x", "-(a + m) * (a + b + m + 1e-7) * x"),  # odd step
        ("r * (1.0 / 360 - r", "r * (1.0 / 361 - r"),  # Stirling's second term
        ("- lgamma(a) - lgamma(b) + lgamma(s)", "- lgamma(a) - lgamma(b) + lgamma(s) + 1e-9"),
    ],
)
def test_a_changed_constant_is_caught(old, new):
    right = special_definitions(_CALL)
    wrong = [line.replace(old, new) for line in right]
    assert wrong != right
    a, b, x = _grid()
    y = _c_betainc(wrong)(a, b, x)
    assert _worst(y, sps.betainc(a, b, x), 1e-250) > 1e-9


@pytest.mark.parametrize(
    ("f", "what"),
    [
        (lambda x: np.sum(sps.betainc(x + 1.0, 2.0, 0.3)), "betainc with a shape parameter"),
        (lambda x: np.sum(sps.betaincc(2.0, x + 1.0, 0.3)), "betaincc with a shape parameter"),
        (lambda x: np.sum(sps.stdtr(x + 1.0, 0.3)), "stdtr with degrees of freedom"),
        (lambda x: np.sum(stats.t.cdf(0.3, x + 1.0)), "stdtr with degrees of freedom"),
        (lambda x: np.sum(sps.bdtr(x, 5, 0.3)), "bdtr with a count k"),
        (lambda x: np.sum(sps.bdtr(6, 5, x)), "bdtr with k outside 0..n is not supported"),
        (lambda x: jnp.sum(jsps.betainc(2.0, x + 1.0, 0.3)), "betainc with a shape a or b"),
        (lambda x: jnp.sum(jst.beta.cdf(0.3, x + 1.0, 2.0)), "betainc with a shape a or b"),
    ],
)
def test_a_shape_that_depends_on_the_inputs_is_one_line(f, what):
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(f, "jacobian", point=[X])
    assert what in str(e.value) and "\n" not in str(e.value)


SHAPES = np.array([0.5, 2.0, 30.0, 4.0])  # a module's constant: a view of it while tracing


def test_a_module_constant_as_a_shape_parameter():
    """``sps.betainc(SHAPES, 1.5, x)`` with ``SHAPES`` the module's array (was "calling
    it with traced arrays failed: AttributeError: '_Dotting' object has no attribute
    'name'" at the array level): JAX's gradient."""
    from dgraph.frontends import from_python

    def f(x):
        return np.sum(sps.betainc(SHAPES, 1.5, x) * x)

    graph = from_python(f, point=[X], level="array")
    made = dgraph.make_function(graph, "jacobian")
    want = jax.grad(lambda x: jnp.sum(jsps.betainc(jnp.asarray(SHAPES), 1.5, x) * x))(X)
    assert made.generated.verified
    np.testing.assert_allclose(made(X), want, rtol=1e-11)
