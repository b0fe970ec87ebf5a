"""NumPy's statistics, rounding, comparison and least-squares functions in NumPy code
(:mod:`dgraph.frontends.numpy_statistics`, ``np.linalg.qr`` in the tracer), refused
before ("numpy.cov on an array that depends on the inputs is not supported"): values,
gradients and Hessians against JAX's functions of the same names (``jnp.cov``,
``jnp.corrcoef``, ``jnp.nanmean``, ``jnp.round``, ``jnp.linalg.qr``, ...), and a count of a
mask (``np.sum(x > 0)``) as a number without a derivative."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

A = np.sqrt(np.arange(1.0, 19.0)).reshape(6, 3)


def _programs(xp):
    return {
        "cov": lambda x: (
            xp.sum(xp.cov(x.reshape(2, 3)) ** 2)
            + xp.sum(xp.cov(x.reshape(3, 2), rowvar=False, ddof=0) ** 3)
            + xp.cov(x[:3], x[3:], bias=True)[0, 1]
        ),
        "corrcoef": lambda x: xp.sum(xp.corrcoef(x.reshape(2, 3) ** 2 + x.reshape(2, 3)) ** 2),
        "nan": lambda x: (
            xp.nanmax(x**2)
            + xp.nanmin(x**3)
            + xp.nanmean(xp.log(x + 1.0))
            + xp.sum(xp.nansum(xp.sqrt(x.reshape(2, 3) + 1.5), axis=0) ** 2)
        ),
        "round": lambda x: (
            xp.sum(xp.floor(x) * x**2 + xp.round(x, 1) * x + xp.round(x, -1) * x)
            + xp.sum(xp.around(x) * x)
        ),
        "isclose": lambda x: xp.sum(xp.where(xp.isclose(x, 0.5), 1.0, xp.sin(x) * x)),
        "ptp": lambda x: xp.ptp(x**2) + xp.sum(xp.ptp(x.reshape(2, 3), axis=0) ** 2),
        "count": lambda x: xp.sum(x**2) * xp.sum(x > 0) + xp.mean(x < 0.5) * xp.sum(x**3),
        "lstsq": lambda x: xp.sum(xp.linalg.lstsq(A, x, rcond=None)[0] ** 2),
        "select": lambda x: xp.sum(xp.select([x < -0.5, x > 0.5], [x**2, xp.sin(x)], x**3)),
        "copysign-mod": lambda x: (
            xp.sum(xp.copysign(x**2, x - 0.35))
            + xp.sum(xp.mod(x * 3.0, 1.0) * x**2 + (x * 2.0) % 0.9 * x + 1.3 % (x**2 + 2))
        ),
        "any-all": lambda x: (
            xp.sum(
                xp.where(xp.all(x.reshape(2, 3) > -1.0, axis=1, keepdims=True), x.reshape(2, 3), 0)
                ** 2
            )
            + xp.any(x > 1.0) * xp.sum(x**3)
        ),
        "digitize-cond": lambda x: (
            xp.sum(xp.digitize(x, xp.array([1.0, 0.0, -1.0])) * x**2)
            + xp.linalg.cond(x[:4].reshape(2, 2))
        ),
        "qr": lambda x: (
            xp.sum(xp.linalg.qr(x.reshape(3, 2) + xp.eye(3, 2))[1] ** 2)
            + xp.sum(xp.linalg.qr(x.reshape(3, 2) + xp.eye(3, 2))[0] ** 3)
        ),
    }


X = np.array([0.3, -0.7, 1.1, 0.5, -0.4, 0.9])  # log(x + 1) at -0.7..1.1: no NaN
NAMES = list(_programs(np))
METHODS = {  # the method make_function's choice gives each program's Hessian (the same
    # generated text): the tests are of the frontend, the choice is codegen's
    # (tests/test_codegen_choice.py), so they do not build and cost every candidate
    "cov": "forward",
    "corrcoef": "reverse",
    "nan": "reverse",
    "round": "forward",
    "isclose": "forward",
    "ptp": "markowitz",
    "count": "forward",
    "lstsq": "forward",
    "select": "forward",
    "copysign-mod": "markowitz",
    "any-all": "forward",
    "digitize-cond": "markowitz",
    "qr": "forward",
}


@pytest.mark.parametrize("name", NAMES)
def test_against_jax(name):
    jref.assert_hessian(_programs(np)[name], _programs(jnp)[name], X, method=METHODS[name])


def special(x):  # scipy.special as a module global: multigammaln is a Python function
    y = x**2 + 0.5
    p = 1.0 / (1.0 + np.exp(-x))
    return np.sum(sps.gamma(y - 1.2) + sps.beta(y, 2.0) + sps.ndtri(p))


def bessel(x):
    orders = np.sum(sps.polygamma(1, x**2 + 1.5) + sps.polygamma(0, x**2 + 1.0))
    return np.sum(sps.i0(x) * sps.i1(x)) + np.sum(sps.multigammaln(x**2 + 2.5, 3)) + orders


def test_scipy_special_composites_against_jax():
    """``gamma`` (negative arguments: its sign), ``beta``, ``ndtri`` (Hessians), ``i0``,
    ``i1``, ``multigammaln``, ``polygamma`` (gradients: JAX's Hessian of its Bessel series
    takes seconds): refused before."""
    import jax.scipy.special as jsps

    def twin(x):
        y = x**2 + 0.5
        p = 1.0 / (1.0 + jnp.exp(-x))
        return jnp.sum(jsps.gamma(y - 1.2) + jsps.beta(y, 2.0) + jsps.ndtri(p))

    def bessel_twin(x):
        orders = jnp.sum(jsps.polygamma(1, x**2 + 1.5) + jsps.polygamma(0, x**2 + 1.0))
        return jnp.sum(jsps.i0(x) * jsps.i1(x)) + jnp.sum(jsps.multigammaln(x**2 + 2.5, 3)) + orders

    jref.assert_hessian(special, twin, X, rtol=1e-9, method="markowitz")  # as METHODS
    # JAX's value and gradient in one jitted program (the eager value compiled each of its
    # primitives: 22 XLA programs, 0.3 CPU-s of compiles)
    ((value, want),) = jref.references(
        [jref.Reference("value_and_grad", bessel_twin, (jnp.asarray(X),))]
    )
    assert np.isclose(bessel(X), float(value), rtol=1e-12)
    grad = dgraph.make_function(bessel, "jacobian", point=[X], method="markowitz")(X)
    np.testing.assert_allclose(np.ravel(grad), np.asarray(want), rtol=1e-10)


def test_nan_reductions_skip_nans_of_the_program():
    """``np.log`` of a negative entry is NaN in the traced values: the nan-reductions
    skip its value (the mean over the numbers), as NumPy and JAX do, and its derivative,
    where JAX's reverse mode gives NaN (the unsafe ``where``)."""

    def f(xp):
        return lambda x: xp.nanmean(xp.log(x)) + xp.nansum(xp.log(x) ** 2)

    x = np.array([0.5, -1.0, 2.0, 3.0])
    with np.errstate(invalid="ignore"):
        value = f(np)(x)
        grad = dgraph.make_function(f(np), "jacobian", point=[x + 2.0], method="symbolic")(x)
    ((jax_value, want),) = jref.references(  # one program, or stored
        [jref.Reference("value_and_grad", f(jnp), (jnp.asarray(x),))]
    )
    want = np.asarray(want)
    assert np.isclose(value, float(jax_value))
    assert np.isnan(want[1]) and np.ravel(grad)[1] == 0.0
    np.testing.assert_allclose(np.delete(np.ravel(grad), 1), np.delete(want, 1), rtol=1e-12)


def test_lstsq_s_other_results_are_numpy_s():
    def f(x):
        solution, residuals, rank, s = np.linalg.lstsq(A, x, rcond=None)
        return np.sum(solution**2) + residuals[0] * rank + np.sum(s)

    got = dgraph.make_function(f, "jacobian", point=[X], method="symbolic")  # the choice
    solution, residuals, rank, s = np.linalg.lstsq(A, X, rcond=None)
    assert np.isclose(f(X), np.sum(solution**2) + residuals[0] * rank + np.sum(s))
    P = np.linalg.pinv(A)
    want = 2 * P.T @ (P @ X) + rank * 2 * (A @ P - np.eye(6)).T @ (A @ P @ X - X)
    np.testing.assert_allclose(np.ravel(got(X)), want, rtol=1e-10, atol=1e-12)


def test_builtin_round_and_refusals_in_one_line():
    g = dgraph.make_function(
        lambda x: round(x[0] * 10.0, 1) * x[1] ** 2, "jacobian", point=[X], method="forward"
    )  # the choice's method, as METHODS
    np.testing.assert_allclose(np.ravel(g(X)), [0.0, 2 * round(3.0, 1) * X[1], 0, 0, 0, 0])
    for f, words in [
        (lambda x: np.linalg.lstsq(x.reshape(3, 2), x[:3])[2], "its solution [0] is read"),
        (lambda x: np.linalg.qr(x.reshape(2, 3))[0], "at least as many rows as columns"),
    ]:
        with pytest.raises(DGraphError) as e:
            dgraph.make_function(f, "jacobian", point=[X])
        assert words in str(e.value) and "\n" not in str(e.value)
