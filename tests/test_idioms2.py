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
