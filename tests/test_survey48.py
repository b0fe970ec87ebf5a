"""Defects found by survey48's held-out-style programs (benchmarks/programs_survey/,
``NAMES48``), one small test each, against closed forms."""

import mpmath
import numpy as np
from scipy.stats import genpareto

import dgraph


def sparsemax(z):
    """Martins & Astudillo (2016), row-wise: the support's size counted, then
    ``take_along_axis`` at the count minus one (a position computed from the inputs)."""
    zs = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    css = np.cumsum(zs, axis=-1)
    kz = np.sum(1 + k * zs > css, axis=-1, keepdims=True)
    tau = (np.take_along_axis(css, kz - 1, axis=-1) - 1) / kz
    return np.maximum(z - tau, 0.0)


def test_numpy_take_along_axis_at_a_count_of_each_rows_support():
    # was refused: "take_along_axis at positions computed from the inputs is supported for
    # np.argsort of the same array ... or along a vector's one axis"
    z = np.array([[0.5, 0.45, 0.1, -1.0], [1.2, -0.3, 0.4, 0.9], [0.0, 0.0, 0.0, 0.0]])
    G = dgraph.make_function(sparsemax, "jacobian", point=[z])
    J = np.asarray(G(z)).reshape(12, 12)
    want = np.zeros((12, 12))
    for r, row in enumerate(sparsemax(z)):  # diag(s) - s s^T / |s| on each row's support
        s = (row > 0).astype(float)
        want[4 * r : 4 * r + 4, 4 * r : 4 * r + 4] = np.diag(s) - np.outer(s, s) / s.sum()
    assert G.generated.verified
    np.testing.assert_allclose(J, want, atol=1e-12)


def test_numpy_take_along_axis_in_another_arrays_order():
    # was refused as above: X's rows read in the order of cos(X)'s, scaled by X
    X = np.array([[-0.5, 0.3, 1.2], [0.4, -0.1, 0.8]])

    def f(X):
        return np.take_along_axis(X, np.argsort(np.cos(X), axis=1), axis=1) * X

    G = dgraph.make_function(f, "jacobian", point=[X])
    J = np.asarray(G(X)).reshape(6, 6)
    order = np.argsort(np.cos(X), axis=1)
    want = np.zeros((6, 6))
    for r in range(2):
        for j in range(3):  # y_rj = X[r, order[r, j]] * X[r, j]
            i, k = 3 * r + j, 3 * r + order[r, j]
            want[i, k] += X[r, j]
            want[i, i] += X[r, order[r, j]]
    assert G.generated.verified
    np.testing.assert_allclose(J, want, atol=1e-12)


def tweedie_terms(mu, p, y):
    """Tweedie deviance terms (1 < p < 2) at claims ``y`` with zeros: ``y**(2 - p)``."""
    return np.sum(y ** (2 - p) / ((1 - p) * (2 - p)) - y * mu ** (1 - p) / (1 - p)
                  + mu ** (2 - p) / (2 - p))  # fmt: skip


def test_power_in_the_exponent_at_a_zero_base():
    # d(0**e)/de is 0 (JAX's rule: log(0) read as log(1)); was NaN (0 * log 0), the
    # Jacobian refused and the Hessian NaN
    mu, p, y = np.array([0.5, 2.0]), np.array(1.5), np.array([0.0, 3.0])

    def f(p, y):
        return np.sum(y ** (2 - p))

    G = dgraph.make_function(f, "jacobian", point=[p, y], params=["y"])
    assert G.generated.verified
    np.testing.assert_allclose(np.asarray(G(p, y)), -np.log(3.0) * 3.0**0.5, rtol=1e-13)
    H = dgraph.hessian(tweedie_terms, mu, p, y, params=["y"])
    (_, h_mu_p), (_, h_pp) = H(mu, p, y)

    def in_p(q):  # the deviance as a function of p alone, at 30 digits (mpmath)
        return sum(
            (mpmath.mpf(c) ** (2 - q) if c else 0) / ((1 - q) * (2 - q))
            - c * mpmath.mpf(m) ** (1 - q) / (1 - q)
            + mpmath.mpf(m) ** (2 - q) / (2 - q)
            for m, c in zip(mu, y, strict=True)
        )

    with mpmath.workdps(30):
        want = float(mpmath.diff(in_p, mpmath.mpf(1.5), 2))
    np.testing.assert_allclose(h_pp, want, rtol=1e-11)
    assert np.isfinite(h_mu_p).all()


def test_scipy_genpareto_logpdf_at_shape_zero():
    # was refused ("converting an array that depends on the inputs to a NumPy array"):
    # scipy.stats.genpareto, read at xi = 0 (the exponential law, where a fit starts), its
    # derivative in xi the limit sum(z - z^2/2), z = y / sigma
    y = np.array([0.0, 1.2])

    def nll(log_sigma, xi, y):
        return -np.sum(genpareto.logpdf(y, xi, scale=np.exp(log_sigma)))

    ls, xi = np.array(0.1), np.array(0.0)
    G = dgraph.make_function(nll, "jacobian", point=[ls, xi, y], params=["y"], method="dstar")
    z = y / np.exp(0.1)
    assert G.generated.verified
    got = np.concatenate([np.ravel(a) for a in G(ls, xi, y)])
    np.testing.assert_allclose(got, [len(y) - z.sum(), np.sum(z - z**2 / 2)], rtol=1e-12)


def test_numpy_argmax_of_a_comparison():
    # was refused ("numpy.argmax of a comparison on an array that depends on the inputs"):
    # the first step below ground, then the step before it (a projectile's range)
    x = np.array([0.3, 0.4, 0.5, 0.6])

    def f(x):
        ys = np.stack([0.0, *list(np.cumsum(x) - 1.0)])  # heights from the ground
        i = np.argmax(ys > 0)
        return x * ys[i] + ys[i - 1]

    G = dgraph.make_function(f, "jacobian", point=[x])
    assert G.generated.verified
    # i = 3 (ys = 0, -0.7, -0.3, 0.2, 0.8): f = x * (x0 + x1 + x2 - 1) + (x0 + x1 - 1)
    want = np.diag(np.full(4, 0.2)) + np.outer(x, [1.0, 1.0, 1.0, 0.0])
    want[:, :2] += 1.0
    np.testing.assert_allclose(np.asarray(G(x)), want, atol=1e-13)


def test_a_bisection_of_sixty_steps_in_numpy():
    # was a RecursionError (sixty steps; six took 47 s): the element level's expressions
    # of the brackets, each a where of the last, grew exponentially; now the array level
    def root(a):
        lo, hi = 0.0, 4.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = mid * mid < a
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        q = 0.5 * (lo + hi)
        return q - (q * q - a) / (2 * q)  # a Newton step carries the derivative

    a = np.array([2.0, 0.5])
    G = dgraph.make_function(root, "jacobian", point=[a])
    assert G.generated.verified
    np.testing.assert_allclose(np.asarray(G(a)), np.diag(0.5 / np.sqrt(a)), rtol=1e-12)
