"""scipy.stats' summary statistics and NumPy's NaN-skipping statistics of traced arrays
(:mod:`dgraph.frontends.scipy_stats_functions`, :mod:`dgraph.frontends.numpy_statistics`):
values equal scipy's and NumPy's own, Jacobians equal central differences of scipy's and
NumPy's own functions (independent of dgraph), and what is not read is refused in one line."""

import warnings

import numpy as np
import pytest
import scipy.stats as st
from scipy.stats import entropy

import dgraph
from dgraph.errors import InputError

X = np.array([0.3, 1.2, 0.7, 2.0, 0.9, 1.6])
M = np.array([[0.3, 1.2, 0.7], [2.0, 0.9, 1.6], [1.1, 0.5, 1.4], [0.8, 1.9, 0.6]])
Q = np.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.1])


def _differences(f, x, h=1e-5):
    """Five-point central differences of ``f`` (scipy's or NumPy's own) at ``x``."""
    columns = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        e = e.reshape(x.shape)
        d = (-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h)
        columns.append(np.ravel(d))
    return np.stack(columns, axis=-1)


def _on_x(x):
    return np.stack(
        [
            st.entropy(x),
            entropy(x, Q, base=2),
            np.sum(st.zscore(x, ddof=1) ** 3),
            st.gmean(x, weights=Q),
            st.pmean(x, 2.5),
            st.moment(x, 3),
            st.variation(x, ddof=1),
            st.trim_mean(x, 0.2),
            st.median_abs_deviation(x, scale="normal"),
            np.sum(np.partition(x, 2)[:2] ** 2),
            np.sum(x[np.argpartition(-x, 1)[:2]] ** 3),
        ]
    )


def _on_m(m):
    return np.concatenate(
        [
            st.entropy(m, axis=1),
            st.hmean(m),
            np.reshape(st.skew(m, axis=None, bias=False), (1,)),
            np.ravel(st.kurtosis(m, axis=1, fisher=False, keepdims=True)),
            st.sem(m),
            st.iqr(m, axis=0, scale="normal"),
            st.median_abs_deviation(m, axis=1, center=np.mean),
            np.ravel(np.nanpercentile(m, 40, axis=0, keepdims=True)),
        ]
    )


def _with_nans(m):
    holes = np.where(m > 1.8, np.nan, m)
    return np.concatenate(
        [
            np.nanvar(holes, axis=0, ddof=1),
            np.reshape(np.nanstd(holes), (1,)),
            np.nanmedian(holes, axis=1),
            np.nanquantile(np.ravel(holes), [0.1, 0.75]),
        ]
    )


CASES = {"scipy.stats of a vector": (_on_x, X), "scipy.stats along axes": (_on_m, M),
         "numpy's nan statistics": (_with_nans, M)}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_jacobians_equal_scipy_and_numpys_own(name):
    f, x = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = dgraph.make_function(f, "value_and_jacobian", point=[x])
        value, jacobian = made(x)
    expected = np.asarray(f(x), dtype=float)
    np.testing.assert_allclose(value, expected, rtol=1e-13, atol=1e-14)
    reference = _differences(lambda v: np.asarray(f(v), dtype=float), x)
    got = np.reshape(jacobian, (expected.size, x.size))
    np.testing.assert_allclose(got, reference, rtol=1e-8, atol=1e-8)
    # NaN inside (the holes) is not read by the output: checked there too, verified
    assert made.generated.verified, made.generated.check.detail
    assert "the user's point" in made.generated.check.detail


def test_a_slice_without_numbers_reads_nan_where_numpy_gives_nan():
    def f(m):
        return np.nanmedian(np.where(m > 0.0, np.nan, m), axis=0)

    at = np.array([[-0.7, 0.2, -0.3], [-1.0, 0.1, -0.6], [-0.1, 0.5, 0.4], [-0.2, 0.9, -0.4]])
    # the middle column has no number, the last three, the first four
    made = dgraph.make_function(f, "value_and_jacobian", point=[at])
    value, jacobian = made(at)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = f(at)
        reference = _differences(f, at)
    assert np.isnan(expected[1]) and np.isnan(value[1])
    np.testing.assert_allclose(value[[0, 2]], expected[[0, 2]], rtol=1e-15)
    np.testing.assert_allclose(np.reshape(jacobian, (3, 12))[[0, 2]], reference[[0, 2]], atol=1e-8)


@pytest.mark.parametrize(
    ("f", "message"),
    [
        (lambda x: st.wasserstein_distance(x, Q), "scipy.stats.wasserstein_distance of an array"),
        (lambda x: st.entropy(x, nan_policy="omit"), "nan_policy='omit'"),
        (lambda x: np.nanquantile(x, 0.3, method="lower"), "method='lower'"),
        (lambda x: np.partition(x, 9), "kth 9 out of bounds"),
    ],
)
def test_what_is_not_read_is_refused_in_one_line(f, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        dgraph.make_function(f, point=[X])
    assert "\n" not in str(e.value)


def test_a_condition_on_a_count_of_comparisons_stays_one_comparison():
    """``where(np.sum(x > 1) > 2, …)`` at the element level: the count is a sum of 12
    ``Piecewise``; compared inside a condition sympy folded it into one over every
    combination of the pieces (2¹² — minutes); it is now a statement of its own."""

    def f(x):
        return np.where(np.sum(x > 1.0) > 2, np.sum(x**2), np.sum(x))

    x = np.linspace(0.5, 1.5, 12)
    made = dgraph.make_function(f, "value_and_jacobian", point=[x])
    value, jacobian = made(x)
    assert value == pytest.approx(np.sum(x**2), rel=1e-15)
    np.testing.assert_allclose(jacobian, 2 * x, rtol=1e-15)
    assert made.generated.verified
    assert len(made.generated.text) < 20_000
