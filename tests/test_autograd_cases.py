"""autograd's own tests (github.com/HIPS/autograd, ``tests/``) restated with plain NumPy and
SciPy, the ones ``benchmarks/autograd_survey.py`` found refused or read wrongly first:
each differentiated function as autograd's test writes it, against closed forms or
central differences."""

import numpy as np
import scipy.stats

import dgraph

RNG = np.random.default_rng(66)
X = RNG.standard_normal(4)
LOC = RNG.standard_normal(4)
SCALE = RNG.standard_normal(4) ** 2 + 1.1

norm_logcdf = scipy.stats.norm.logcdf  # a distribution's method bound to a module's name


def test_norm_logpdf_passed_as_a_value():
    # tests/test_scipy.py test_norm_logpdf: combo_check(stats.norm.logpdf, [0, 1, 2])
    fun = scipy.stats.norm.logpdf
    made = dgraph.make_function(lambda x, loc, scale: fun(x, loc, scale), point=[X, LOC, SCALE])
    jx, jloc, jscale = made(X, LOC, SCALE)
    z = (X - LOC) / SCALE
    assert made.generated.verified
    assert np.allclose(np.diag(jx), -z / SCALE, atol=1e-12)
    assert np.allclose(np.diag(jloc), z / SCALE, atol=1e-12)
    assert np.allclose(np.diag(jscale), (z**2 - 1) / SCALE, atol=1e-12)
    assert np.count_nonzero(jx - np.diag(np.diag(jx))) == 0


def test_chi2_pdf_with_its_degrees_closed_over():
    # tests/test_scipy.py test_chi2_pdf:
    # combo_check(stats.chi2.pdf, [0])([R(4) ** 2 + 1.1], [1, 2, 3])
    fun, x = scipy.stats.chi2.pdf, SCALE[:2]
    made = dgraph.make_function(lambda x: fun(x, 3), point=[x])
    pdf = scipy.stats.chi2.pdf(x, 3)
    assert made.generated.verified
    assert np.allclose(np.diag(made(x)), pdf * (0.5 / x - 0.5), atol=1e-12)


def test_a_module_alias_of_a_distribution_method():
    # tests/test_scipy.py test_norm_logcdf, the method held by a module's global name
    made = dgraph.make_function(lambda x: norm_logcdf(x), point=[X])
    expected = scipy.stats.norm.pdf(X) / scipy.stats.norm.cdf(X)
    assert made.generated.verified
    assert np.allclose(np.diag(made(X)), expected, atol=1e-12)


def test_pinv_of_a_stack():
    # tests/test_linalg.py test_pinv: "Stacked", mat = npr.randn(D, N, M) (smaller here)
    a = RNG.standard_normal((2, 3, 2))
    made = dgraph.make_function(lambda x: np.linalg.pinv(x), point=[a])
    h, steps = 1e-6, np.eye(a.size).reshape(a.size, *a.shape)
    differences = [(np.linalg.pinv(a + h * e) - np.linalg.pinv(a - h * e)) / (2 * h) for e in steps]
    expected = np.moveaxis(np.array(differences), 0, -1).reshape(made(a).shape)
    assert made.generated.verified
    assert np.allclose(made(a), expected, atol=1e-7)


def test_multivariate_normal_allow_singular_and_entropy():
    # tests/test_scipy.py test_mvn_logpdf (allow_singular=[False]) and test_mvn_entropy
    mvn = scipy.stats.multivariate_normal
    a = RNG.standard_normal((3, 3))
    cov, mean, x = a.T @ a + np.eye(3), LOC[:3], X[:3]
    made = dgraph.make_function(lambda x: mvn.logpdf(x, mean, cov, allow_singular=False), point=[x])
    assert made.generated.verified
    assert np.allclose(made(x), -np.linalg.solve(cov, x - mean), atol=1e-12)
    made = dgraph.make_function(lambda cov: mvn.entropy(mean, cov), point=[cov])
    assert made.generated.verified
    assert np.allclose(made(cov), 0.5 * np.linalg.inv(cov).T, atol=1e-12)


def test_cross_along_other_axes():
    # tests/test_systematic.py test_cross: combo_check(np.cross, [0, 1])(..., axisa=[-1, 0, 1],
    # axisb=[-1, 0, 1], axisc=[-1, 0, 1], axis=[None, -1, 0, 1]); one combination, smaller
    a, b = RNG.standard_normal((3, 2)), RNG.standard_normal((2, 3))
    made = dgraph.make_function(
        lambda a, b: np.cross(a, b, axisa=0, axisb=-1, axisc=0), point=[a, b]
    )
    ja, jb = made(a, b)
    # bilinear: the Jacobian in a is the cross product with each unit direction of a
    units = np.eye(a.size).reshape(a.size, *a.shape)
    want_a = np.stack([np.cross(u, b, axisa=0, axisb=-1, axisc=0) for u in units], -1)
    units = np.eye(b.size).reshape(b.size, *b.shape)
    want_b = np.stack([np.cross(a, u, axisa=0, axisb=-1, axisc=0) for u in units], -1)
    assert made.generated.verified
    assert np.allclose(ja, want_a.reshape(ja.shape), atol=1e-12)
    assert np.allclose(jb, want_b.reshape(jb.shape), atol=1e-12)


def test_kron_of_a_vector_and_a_matrix():
    # tests/test_systematic.py test_kron: combo_check(np.kron, [0, 1])([R(5, 5), R(4, 4), R(5),
    # R(5, 1), R(1, 5), R(), ...], [R(3, 3), ...]); R(5) against R(3, 3), smaller
    a, b = RNG.standard_normal(2), RNG.standard_normal((2, 2))
    made = dgraph.make_function(lambda a, b: np.kron(a, b), point=[a, b])
    ja, jb = made(a, b)
    want_a = np.stack([np.kron(u, b) for u in np.eye(2)], -1)
    want_b = np.stack([np.kron(a, u.reshape(2, 2)) for u in np.eye(4)], -1).reshape(2, 4, 2, 2)
    assert made.generated.verified
    assert np.allclose(ja, want_a, atol=1e-12) and np.allclose(jb, want_b, atol=1e-12)


def test_dot_with_a_3d_array():
    # tests/test_systematic.py test_dot: combo_check(np.dot, [0, 1])(..., [R(2, 3, 4), ...])
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3, 2))
    made = dgraph.make_function(lambda a, b: np.dot(a, b), point=[a, b])
    ja, jb = made(a, b)
    units_a, units_b = np.eye(6).reshape(6, 2, 3), np.eye(12).reshape(12, 2, 3, 2)
    want_a = np.stack([np.dot(u, b) for u in units_a], -1).reshape(ja.shape)
    want_b = np.stack([np.dot(a, u) for u in units_b], -1).reshape(jb.shape)
    assert made.generated.verified
    assert np.allclose(ja, want_a, atol=1e-12) and np.allclose(jb, want_b, atol=1e-12)
