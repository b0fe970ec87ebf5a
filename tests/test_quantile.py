"""``np.quantile`` and ``np.percentile`` in NumPy code (the NumPy tracer: the sorted axis
read at ``q·(n - 1)`` by ``method``), refused before ("numpy.percentile on an array that
depends on the inputs is not supported"): values against NumPy's, Hessians (whose graph
holds the gradient's) against JAX's ``jnp.quantile``/``jnp.percentile`` of the same
program, for each method JAX shares, along an axis and over all, ``keepdims``, several
probabilities. The
nearest-rank percentile kept with its axis multiplied a sort's row by a block that is
no move (an AttributeError out of ``blocks.permutation``); it is multiplied now."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

X = np.random.default_rng(0).normal(size=20)


def _program(xp, q, **kw):
    def f(x):
        m = x.reshape(4, 5)
        if "pct" in kw:
            found = xp.percentile(m, kw["pct"], axis=kw.get("axis"), method=kw["method"],
                                  keepdims=kw.get("keepdims", False))  # fmt: skip
        else:
            found = xp.quantile(m, q, axis=kw.get("axis"), method=kw["method"],
                                keepdims=kw.get("keepdims", False))  # fmt: skip
        return xp.sum(found**3) + xp.sum(x**2) * 0.1

    return f


CASES = {
    "percentile-linear": dict(pct=75, method="linear"),
    "quantile-rows": dict(q=[0.1, 0.5, 0.93], axis=1, method="linear"),
    "percentile-nearest-keepdims": dict(pct=30, axis=0, method="nearest", keepdims=True),
    "quantile-higher": dict(q=0.4, axis=0, method="higher"),
    "quantile-lower": dict(q=0.33, method="lower"),
    "quantile-midpoint": dict(q=[0.2, 0.75], axis=1, method="midpoint"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_quantiles_against_jax(name):
    kw = dict(CASES[name])
    q = kw.pop("q", None)
    f, f_jax = _program(np, q, **kw), _program(jnp, None if q is None else jnp.asarray(q), **kw)
    want_value, _, want = jref.value_gradient_hessian(f_jax)(jnp.asarray(X))
    assert np.isclose(f(X), float(want_value), rtol=1e-13)
    H = dgraph.hessian(f, X)
    want = np.asarray(want)
    np.testing.assert_allclose(H(X), want, rtol=1e-10, atol=1e-12)


def test_probabilities_of_any_shape_as_numpy():
    """A 2-d ``q`` (NumPy's axes first; JAX takes rank ≤ 1): values as NumPy's, the
    gradient as that of the same entries read one by one."""
    q = np.array([[0.2], [0.75]])

    def f(x):
        return np.sum(np.quantile(x.reshape(4, 5), q, axis=1) * np.arange(8.0).reshape(2, 1, 4))

    def by_one(x):
        return sum(np.sum(np.quantile(x.reshape(4, 5), p, axis=1) * np.arange(8.0).reshape(2, 4)[k])
                   for k, p in enumerate(q.ravel()))  # fmt: skip

    g = dgraph.make_function(f, "jacobian", point=[X])
    want = dgraph.make_function(by_one, "jacobian", point=[X])
    np.testing.assert_allclose(np.ravel(g(X)), np.ravel(want(X)), rtol=1e-13)
    assert np.isclose(f(X), by_one(X))


def test_what_is_not_read_is_refused_in_one_line():
    for f, words in [
        (lambda x: np.quantile(x, 0.5, method="weibull"), "numpy.quantile(method='weibull')"),
        (lambda x: np.quantile(x, 1.5), "probabilities must be in [0, 1]"),
        (lambda x: np.percentile(x, x[0]), "percentages that depend on the inputs"),
        (lambda x: np.quantile(x, 0.5, axis=(0,)), "over several axes"),
    ]:
        with pytest.raises(DGraphError) as e:
            dgraph.make_function(f, "jacobian", point=[X])
        assert words in str(e.value) and "\n" not in str(e.value)
