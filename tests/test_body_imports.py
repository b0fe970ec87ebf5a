"""Imports in a function's body (``import numpy as np``, ``from scipy.special import
logsumexp``, ``import math`` inside ``def f``) and NumPy's functions imported by name
(``from numpy import array, diag``) bind what ``np.`` of a module-level import binds while
the trace runs: refused before ("float() of a value that depends on the inputs",
"assignment into a NumPy array"). Hessians against JAX's."""

from __future__ import annotations

import numpy as np
import pytest
from numpy import array, diag, linspace

import dgraph

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402

X = np.array([0.3, 0.7, 1.1])


def zeros_in_body(x):
    import numpy

    M = numpy.zeros((3, 3))
    M[0, 0] = x[0] ** 2
    return numpy.sum(M) + x[1] * x[2]


def math_in_body(x):
    import math

    return math.exp(x[0]) * x[1] + math.sin(x[2])


def logsumexp_in_body(x):
    from scipy.special import logsumexp

    return logsumexp(x) * x[0]


def special_module_in_body(x):
    import scipy.special as sc

    return np.sum(sc.expit(x) * x)


def names_from_numpy(x):
    M = array([[2.0, 1.0], [1.0, 3.0]])
    M[0, 0] = x[0] ** 2
    D = diag([1.0, 2.0, 3.0])
    D[0, 1] = x[2]
    s = linspace(0.0, 1.0, 3)
    s[0] = np.exp(x[1])
    return M @ x[:2] @ x[:2] + x @ D @ x + np.sum(s * x)


REFERENCES = {
    zeros_in_body: lambda x: x[0] ** 2 + x[1] * x[2],
    math_in_body: lambda x: jnp.exp(x[0]) * x[1] + jnp.sin(x[2]),
    logsumexp_in_body: lambda x: jax.scipy.special.logsumexp(x) * x[0],
    special_module_in_body: lambda x: jnp.sum(jax.nn.sigmoid(x) * x),
    names_from_numpy: lambda x: _names_reference(x),
}


def _names_reference(x):
    quartic = x[0] ** 4 + 2 * x[0] * x[1] + 3 * x[1] ** 2
    quadratic = x[0] ** 2 + x[2] * x[0] * x[1] + 2 * x[1] ** 2 + 3 * x[2] ** 2
    return quartic + quadratic + jnp.exp(x[1]) * x[0] + 0.5 * x[1] + x[2]


@pytest.mark.parametrize("f", list(REFERENCES), ids=lambda f: f.__name__)
def test_imports_in_the_body_are_traced(f):
    H = dgraph.hessian(f, X)
    np.testing.assert_allclose(H(X), jref.hessian(REFERENCES[f])(X), rtol=1e-12, atol=1e-14)


def test_a_library_s_own_imports_are_python_s():
    """Only the user's code imports proxies: ``__import__`` is Python's again after the
    trace, and a module imported meanwhile by other code is the module itself."""
    import builtins

    before = builtins.__import__
    dgraph.hessian(zeros_in_body, X)
    assert builtins.__import__ is before
    import numpy

    assert numpy is np
