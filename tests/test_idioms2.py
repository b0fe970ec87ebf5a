"""Idioms of the second survey (``benchmarks/idioms_survey2.py``, session 36) that dgraph
refused or failed, each checked against JAX's derivatives or a formula written out."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.core import extremes
from tests import jax_reference as jref

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy
lax = jax.lax

_X = np.array([0.31, -0.69, 1.13, 0.52, -0.41, 0.93])


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def test_symbolic_jacobian_zeroes_steps():
    """sympy's Jacobian of a sign times a square holds ``DiracDelta``; as the graph's
    partials, a step's derivative is zero."""
    x = sympy.Symbol("x", real=True)
    found = extremes.jacobian([sympy.sign(x) * x**2, sympy.cbrt(x) * sympy.Abs(x)], [x])
    assert not found.has(sympy.DiracDelta)
    assert sympy.simplify(found[0] - 2 * x * sympy.sign(x)) == 0


def test_select_clamp_cbrt_jacobian():
    """``lax.select_n`` + ``lax.clamp`` + ``lax.cbrt``: the cheapest Jacobian program was
    sympy's whole Jacobian, whose ``DiracDelta`` no printer prints ("cannot print
    DiracDelta")."""

    def v(x):
        return lax.select_n(x > 0.2, x**2, jnp.sin(x)) + lax.clamp(-0.5, x, 0.8) + lax.cbrt(x + 2)

    got = dgraph.make_function(v, "jacobian", point=[_X])(_X)
    np.testing.assert_allclose(np.asarray(got), jref.jacfwd(v)(_X), rtol=1e-12, atol=1e-14)


_EDGES = {  # scipy.special's own values at the ends of each piece, and NaN-free infinities
    "erfcx": (np.array([-30.0, -3.0, 0.0, 2.0, 24.9, 25.1, 100.0, 1e5, np.inf]),),
    "rel_entr": (np.array([0, 0, 1, -1, 1, 2.0]), np.array([0, 1, 0, 1, -1, 3.0])),
    "kl_div": (np.array([0, 0, 1, -1, 1, 2.0]), np.array([0, 1, 0, 1, -1, 3.0])),
    "huber": (np.array([-1, 0, 0.5, 0.5, 2.0]), np.array([1, 0, 0.5, -3, 1.0])),
    "pseudo_huber": (np.array([-1, 0, 0, 0.5, 2.0]), np.array([1, 0, 2, -3, 1.0])),
    "boxcox": (np.array([0.5, 0, 2, 3, 0.1]), np.array([0.3, 0.0, 1e-20, -1, 2.0])),
    "boxcox1p": (np.array([0.5, 0, 2, -0.5, 0.1]), np.array([0.3, 0.0, 1e-20, -1, 2.0])),
}


@pytest.mark.parametrize("name", sorted(_EDGES))
def test_scipy_special_composites_equal_scipy(name):
    """Each new composite of scipy.special (was refused: 'scipy.special.huber on an array
    that depends on the inputs is not supported') equals scipy's ufunc on every piece."""
    sps = pytest.importorskip("scipy.special")
    from dgraph.frontends.scipy_special import COMPOSITE_UFUNCS

    with np.errstate(all="ignore"):
        got = COMPOSITE_UFUNCS[name](lambda _, a: sps.erfc(a), *_EDGES[name])
        want = getattr(sps, name)(*_EDGES[name])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_scipy_special_composites_hessian():
    """The Hessian of a sum of ``rel_entr``, ``kl_div``, ``huber``, ``pseudo_huber``,
    ``boxcox``, ``boxcox1p`` and ``erfcx`` of the inputs is JAX's of the same formulas."""
    sps = pytest.importorskip("scipy.special")
    jsps = jax.scipy.special

    def f(x):
        p, q, y = sps.expit(x), sps.expit(x[::-1]), x**2 + 0.5
        return np.sum(
            sps.rel_entr(p, q) + sps.kl_div(p, q) + sps.huber(0.5, x) + sps.pseudo_huber(0.7, x)
            + sps.boxcox(y, 0.3) + sps.boxcox1p(y, -0.4) + sps.erfcx(x)
        )  # fmt: skip

    def f_jax(x):
        p, q, y = jax.nn.sigmoid(x), jax.nn.sigmoid(x[::-1]), x**2 + 0.5
        huber = jnp.where(jnp.abs(x) <= 0.5, 0.5 * x**2, 0.5 * (jnp.abs(x) - 0.25))
        pseudo = 0.49 * (jnp.sqrt(1 + (x / 0.7) ** 2) - 1)
        boxcox = jnp.expm1(0.3 * jnp.log(y)) / 0.3 + jnp.expm1(-0.4 * jnp.log1p(y)) / -0.4
        return jnp.sum(
            jsps.rel_entr(p, q) + jsps.kl_div(p, q) + huber + pseudo + boxcox
            + jnp.exp(x**2) * jsps.erfc(x)
        )  # fmt: skip

    got = dgraph.hessian(f, _X)(_X)
    np.testing.assert_allclose(np.asarray(got), jref.hessian(f_jax)(_X), rtol=1e-10, atol=1e-12)
