"""``scipy.interpolate.RegularGridInterpolator`` and ``interpn`` of traced values, traced
queries or both (dgraph.frontends.scipy_grid; refused before: "converting an array that
depends on the inputs", "'TracedArray' object has no attribute 'flags'"): values equal
scipy's at the point, Jacobians central differences' of scipy's own function, linear and
nearest, inside and outside the grid (``fill_value`` a number, ``None``: extended)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.interpolate as si

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_python

GX, GY, GZ = np.linspace(0, 1, 5), np.array([0.0, 0.5, 1.2, 2.0]), np.array([-1.0, 1.0, 3.0])
TABLE = np.random.default_rng(0).normal(size=(5, 4))
QUERIES = np.array([[0.1, 0.3], [0.55, 1.7], [0.9, 0.2], [1.3, 0.8]])  # the last outside


def _table_and_queries(z):
    """Both traced: a table of values and the queries."""
    values = np.reshape(z[:20], (5, 4))
    return si.RegularGridInterpolator((GX, GY), values, bounds_error=False, fill_value=None)(
        np.reshape(z[20:], (4, 2))
    )


def _queries_of_a_constant_table(z):
    """A table made outside the trace's values, queries traced: linear, nearest, filled."""
    rgi = si.RegularGridInterpolator((GX, GY), TABLE, bounds_error=False, fill_value=-2.0)
    q = np.reshape(z, (4, 2))
    return rgi(q) ** 2 + rgi(q * 0.9, method="nearest") * q[:, 0]


def _three_axes_with_trailing_values(z):
    """interpn of a 3-d grid whose values carry a trailing axis of 2."""
    values = np.reshape(np.tile(z, 6)[:120], (5, 4, 3, 2))
    return si.interpn((GX, GY, GZ), values, np.array([[0.3, 1.0, 0.5], [0.8, 0.1, -0.2]]))


CASES = {
    "table_and_queries": (_table_and_queries, np.concatenate([TABLE.ravel(), QUERIES.ravel()])),
    "queries": (_queries_of_a_constant_table, QUERIES.ravel() * 0.95),
    "three_axes": (_three_axes_with_trailing_values, np.linspace(-1, 1, 24)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_scipy_values_and_differences(name: str) -> None:
    f, x = CASES[name]
    made = dgraph.make_function(from_python(f, point=[x], level="array"), "value_and_jacobian")
    value, got = made(x)
    assert made.generated.verified
    np.testing.assert_allclose(value, f(x), rtol=1e-13, atol=1e-14)
    h = 1e-7
    want = np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)], -1)
    np.testing.assert_allclose(np.reshape(got, want.shape), want, atol=1e-6)


def test_another_method_of_traced_values_is_one_line() -> None:
    def f(z):
        return si.interpn((GX, GY), np.reshape(z, (5, 4)), QUERIES[:2], method="cubic")

    with pytest.raises(InputError, match=r"method='cubic'\) of arrays that depend"):
        from_python(f, point=[TABLE.ravel()], level="array")
