"""scipy.linalg's structured matrices and solves of traced arrays
(dgraph.frontends.scipy_structured) and NumPy's ``np.r_``/``np.c_`` of traced items
(dgraph.frontends.numpy_index_tricks): each refused before ("converting an array that
depends on the inputs to a NumPy array"). Values equal scipy's and NumPy's at the point;
Jacobians equal central differences of scipy's own functions (a wrong layout of a band
or a diagonal is off by O(1)); a banded solve past the dense limit is one line."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_python

X = np.random.default_rng(2).uniform(0.2, 0.9, 8)


def _banded(x):
    ab = np.vstack([np.r_[0.0, x[:7] * 0.1], 4.0 + x, np.r_[x[1:] * 0.2, 0.0]])
    return sl.solve_banded((1, 1), ab, np.c_[np.ones(8), x])


def _solveh_banded(x):
    upper = np.vstack([np.r_[0.0, x[1:] * 0.1], 4 + x])
    lower = np.vstack([4 + x, np.r_[x[1:] * 0.1, 0.0]])
    return np.sum(sl.solveh_banded(upper, x) ** 3) + np.sum(
        sl.solveh_banded(lower, x, lower=True) ** 2
    )


def _special_matrices(x):
    weights = np.arange(12.0).reshape(4, 3)
    return (
        np.sum(sl.toeplitz(x[:4], x[3:6]) ** 2 * weights)
        + np.sum(sl.hankel(x[:3], x[2:6]) ** 3)
        + np.sum(sl.circulant(x[:3]) @ x[3:6] ** 2)
    )


def _special_solves(x):
    toeplitz = sl.solve_toeplitz((4 + x[:4], np.r_[4 + x[0], x[4:7]]), x[:4])
    return np.sum(toeplitz**2) + np.sum(sl.solve_circulant(np.r_[5.0, x[:3]], x[4:]) ** 3)


PROGRAMS = {
    # np.r_ of numbers, traced vectors and a slice; np.c_ of a traced and a constant vector
    "r_c_": lambda x: (
        np.r_[1.0, x[:3] ** 2, 4:6, x[5]] @ np.arange(1.0, 8.0)
        + np.sum(np.c_[x[:4], np.arange(4.0), x[4:] ** 2] ** 2 * [1.0, 2.0, 3.0])
    ),
    "solve_banded": lambda x: np.sum(_banded(x) ** 2 * [1.0, 2.0]),
    "solveh_banded": _solveh_banded,
    "toeplitz_hankel_circulant": _special_matrices,
    "solve_toeplitz_circulant": _special_solves,
    "lstsq": lambda x: np.sum(sl.lstsq(x[:6].reshape(3, 2) + np.eye(3, 2), x[5:])[0] ** 2),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_against_scipy_values_and_differences(name: str) -> None:
    f = PROGRAMS[name]  # at the array level (the element level's object arrays differ)
    made = dgraph.make_function(from_python(f, point=[X], level="array"), "value_and_jacobian")
    value, got = made(X)
    assert made.generated.verified
    np.testing.assert_allclose(value, f(X), rtol=1e-13)
    h = 1e-6
    want = [(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(8)]
    np.testing.assert_allclose(np.ravel(got), want, rtol=1e-7, atol=1e-8 * np.abs(want).max())


def test_a_banded_solve_past_the_dense_limit_is_one_line() -> None:
    def f(x):
        return sl.solve_banded((1, 1), np.vstack([x * 0.1, 4 + x, x * 0.1]), x)

    with pytest.raises(InputError, match=r"solve_banded of order 5,000 \(over 4,096\)"):
        from_python(f, point=[np.ones(5000)], level="array")


def test_a_string_directive_is_one_line() -> None:
    with pytest.raises(InputError, match=r"numpy\.r_ with a string directive"):
        from_python(lambda x: np.r_["0,2", x, x], point=[X], level="array")
