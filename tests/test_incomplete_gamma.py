"""The regularized incomplete gammas and Hurwitz's zeta (``igamma``, ``igammac``, ``zeta``
of :mod:`dgraph.blocks.array_extra`), refused before in one line: scipy.special's
``gammainc``, ``gammaincc``, ``chdtr(c)``, ``pdtr(c)``, ``gdtr(c)`` and ``zeta`` and the
scipy.stats CDFs made of them (gamma, chi2, poisson) in a NumPy objective, and
``jax.scipy.special``'s in a JAX one: values, gradients and Hessians against
``jax.hessian`` of the same calls, in Python and C (whose ``dgraph_gammainc`` and
``dgraph_zeta`` tests/test_c_special.py checks against SciPy); a shape or exponent that
depends on the inputs refused in one line, as JAX has no derivative to give there."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps
from scipy import stats

import dgraph
from dgraph.codegen.c import compiler
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsps = pytest.importorskip("jax.scipy.special")
jst = pytest.importorskip("jax.scipy.stats")
jax.config.update("jax_enable_x64", True)

X = np.array([0.31, -0.69, 1.13, 0.52, -2.41, 0.93])
POSITIVE = np.abs(X)  # gdtr's and gammaincc's x·y: no NaN below the support


def special(x):
    y = x**2 + 0.5
    return np.sum(
        sps.gammainc(2.5, y) + sps.gammaincc(np.array([0.7, 1.5, 3.0, 0.7, 1.5, 3.0]), x * y)
        + sps.chdtr(3.0, y) + sps.chdtrc(2.0, y) + sps.pdtr(2.0, y) + sps.pdtrc(1.0, y)
        + sps.gdtr(x, 2.0, 1.5) + sps.gdtrc(1.2, 2.0, y) + sps.zeta(3.0, y) + sps.zeta(2.0, 1.5)
    )  # fmt: skip


def special_jax(x):
    y = x**2 + 0.5
    return jnp.sum(
        jsps.gammainc(2.5, y) + jsps.gammaincc(jnp.array([0.7, 1.5, 3.0, 0.7, 1.5, 3.0]), x * y)
        + jsps.gammainc(1.5, y / 2) + jsps.gammaincc(1.0, y / 2) + jsps.gammaincc(3.0, y)
        + jsps.gammainc(2.0, y) + jsps.gammainc(2.0, 1.5 * x) + jsps.gammaincc(2.0, 1.2 * y)
        + jsps.zeta(3.0, y) + jsps.zeta(2.0, 1.5)
    )  # fmt: skip


def distributions(x):
    y = x**2 + 0.5
    return np.sum(
        stats.gamma.cdf(y, 2.5) + stats.gamma.sf(x, 1.5, scale=2.0) + stats.chi2.cdf(y, 3.0)
        + stats.chi2.logpdf(y, 4.0) + stats.poisson.cdf(3.0, y) + stats.poisson.logsf(2.0, y)
        + stats.gamma(2.0).logcdf(y) + stats.chi2.sf(y, 2.0)
    )  # fmt: skip


def sf(x):
    """gamma.sf(x, 1.5, scale=2) as the double ``where`` (JAX's is NaN below 0). Its name
    is also the attribute ``stats.gamma.sf`` :func:`distributions` calls: a NumPy function
    read with JAX before (a global looked up for an attribute's name)."""
    return jnp.where(x > 0, jsps.gammaincc(1.5, jnp.where(x > 0, x, 1.0) / 2.0), 1.0)


def distributions_jax(x):
    y = x**2 + 0.5
    return jnp.sum(
        jst.gamma.cdf(y, 2.5) + sf(x)
        + jst.chi2.cdf(y, 3.0) + jst.chi2.logpdf(y, 4.0) + jst.poisson.cdf(3.0, y)
        + jnp.log(jsps.gammainc(3.0, y)) + jst.gamma.logcdf(y, 2.0) + jst.chi2.sf(y, 2.0)
    )  # fmt: skip


C = pytest.mark.skipif(compiler() is None, reason="no C compiler")


@pytest.mark.parametrize(
    ("f", "f_jax", "x", "lang"),
    [  # each language once: the two functions' operations are the same few
        (special, special_jax, POSITIVE, "python"),
        pytest.param(distributions, distributions_jax, X, "c", marks=C),
    ],
)
def test_numpy_calls_against_jax(f, f_jax, x, lang):
    """Value, gradient and Hessian at a point, the made function called at another. A
    negative ``x`` in ``gamma.sf`` is below the support: 1 there, derivatives 0 (JAX's
    ``gamma.sf`` gives NaN derivatives; the reference is :func:`sf`)."""
    F = dgraph.make_function(f, "value_gradient_hessian", lang=lang, point=[x])
    other = x[::-1] * 0.9
    value, gradient, hessian = F(other)
    want_value, want_gradient, want = jref.value_gradient_hessian(f_jax)(jnp.asarray(other))
    want = np.asarray(want)
    assert np.isclose(value, float(want_value), rtol=1e-12)
    np.testing.assert_allclose(gradient, want_gradient, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hessian, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def jax_program(x):
    y = x**2 + 0.5
    return jnp.sum(jsps.gammainc(2.5, y) * jsps.gammaincc(0.5, x * y) + jax.lax.zeta(3.0, y))


def test_jax_reader_against_jax():
    """``lax.igamma``/``igammac`` read as operations; ``lax.zeta`` (JAX has no derivative
    of it: only ``jax.scipy.special.zeta``'s custom rule) by dgraph's rule, its Jacobian
    checked against differences and compared here with ``jsps.zeta``'s."""
    J = dgraph.make_function(jax_program, "jacobian", lang="jax", point=[POSITIVE])
    same = lambda x: jnp.sum(  # noqa: E731
        jsps.gammainc(2.5, x**2 + 0.5) * jsps.gammaincc(0.5, x * (x**2 + 0.5))
        + jsps.zeta(3.0, x**2 + 0.5)
    )
    want = jax.jit(jax.grad(same))(POSITIVE)  # one compilation, not one an operation
    np.testing.assert_allclose(np.ravel(J(POSITIVE)), want, rtol=1e-11)


@pytest.mark.parametrize(
    ("f", "what"),
    [
        (lambda x: np.sum(sps.gammainc(x**2 + 1, 2.0)), "gammainc with a shape parameter"),
        (lambda x: np.sum(sps.pdtr(x, 2.0)), "pdtr with a shape parameter"),
        (lambda x: np.sum(sps.zeta(x**2 + 2, 1.5)), "zeta with an exponent"),
        (lambda x: np.sum(sps.zeta(x**2 + 2)), "zeta with an exponent"),
        (lambda x: jnp.sum(jsps.gammaincc(x**2 + 1, 2.0)), "gammaincc with a shape a"),
        (lambda x: jnp.sum(jax.lax.zeta(x**2 + 2, 1.5)), "zeta with an exponent"),
    ],
)
def test_a_shape_that_depends_on_the_inputs_is_one_line(f, what):
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(f, "jacobian", point=[X])
    assert what in str(e.value) and "\n" not in str(e.value)
