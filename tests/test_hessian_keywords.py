"""``dgraph.hessian`` names its example arguments as ``make_function`` and ``jacobian`` do
(``point=``, ``sizes=``) besides JAX's positional form; ``hessian(f, point=[x])`` was a
TypeError ("unexpected keyword argument 'point'")."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError

X = np.array([0.1, 0.2, 0.7])


def _f(x):
    return np.sum(np.sin(x) ** 2) + x[0] * x[2]


def test_point_and_sizes_equal_the_positional_form() -> None:
    expected = dgraph.hessian(_f, X)(X)
    for made in (dgraph.hessian(_f, point=[X]), dgraph.hessian(_f, sizes=[3])):
        np.testing.assert_allclose(made(X), expected, rtol=1e-15)
    np.testing.assert_allclose(np.diag(expected), 2 * np.cos(2 * X), rtol=1e-13)


def test_the_arguments_are_given_once() -> None:
    for call in (
        lambda: dgraph.hessian(_f, X, point=[X]),
        lambda: dgraph.hessian(_f, point=[X], sizes=[3]),
    ):
        with pytest.raises(InputError, match="give the example arguments once"):
            call()
