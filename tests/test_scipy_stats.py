"""scipy.stats' distributions in NumPy likelihoods (:mod:`dgraph.frontends.scipy_stats`),
refused before ("converting an array that depends on the inputs to a NumPy array"):
values, gradients and Hessians against ``jax.scipy.stats`` of the same calls, for each
family and method read, as a module (``stats.norm``), an imported name (``norm``) and a
frozen distribution (``norm(loc, scale)``); scipy's own values on constants."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.stats import norm

import dgraph
from dgraph.errors import DGraphError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jst = pytest.importorskip("jax.scipy.stats")
jax.config.update("jax_enable_x64", True)

K = np.array([0.0, 2.0, 1.0, 4.0, 3.0, 1.0])  # counts


def continuous(x):
    s = 0.5 + x**2
    return (
        np.sum(norm.logpdf(x, loc=0.1, scale=s) + norm.cdf(x) + norm.logcdf(x) + norm.logsf(x))
        + np.sum(stats.norm.pdf(x, 0.2, 1.5) + stats.norm.sf(x, scale=2.0))
        + np.sum(stats.t.logpdf(x, 3.0, loc=0.1) + stats.t.logpdf(0.3, df=s))
        + np.sum(stats.gamma.logpdf(s, 2.0, scale=1.5) + stats.beta.logpdf(s / (1 + s), 2.0, 3.0))
        + np.sum(stats.expon.logpdf(s, scale=2.0) + stats.expon.cdf(s))
        + np.sum(stats.laplace.logpdf(x, 0.1) + stats.laplace.cdf(x) + stats.cauchy.logpdf(x))
        + np.sum(stats.cauchy.cdf(x) + stats.logistic.logpdf(x) + stats.logistic.cdf(x))
        + np.sum(norm(0.3, s).logpdf(x))
    )


def continuous_jax(x):
    s = 0.5 + x**2
    n = jst.norm
    return (
        jnp.sum(n.logpdf(x, loc=0.1, scale=s) + n.cdf(x) + n.logcdf(x) + n.logsf(x))
        + jnp.sum(n.pdf(x, 0.2, 1.5) + n.sf(x, scale=2.0))
        + jnp.sum(jst.t.logpdf(x, 3.0, loc=0.1) + jst.t.logpdf(0.3, df=s))
        + jnp.sum(jst.gamma.logpdf(s, 2.0, scale=1.5) + jst.beta.logpdf(s / (1 + s), 2.0, 3.0))
        + jnp.sum(jst.expon.logpdf(s, scale=2.0) + jst.expon.cdf(s))
        + jnp.sum(jst.laplace.logpdf(x, 0.1) + jst.laplace.cdf(x) + jst.cauchy.logpdf(x))
        + jnp.sum(jst.cauchy.cdf(x) + jst.logistic.logpdf(x) + jst.logistic.cdf(x))
        + jnp.sum(n.logpdf(x, 0.3, s))
    )


def counts(x):
    mu = np.exp(x)
    p = 1.0 / (1.0 + np.exp(-x))
    points = x.reshape(3, 2)
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    return (
        np.sum(stats.poisson.logpmf(K, mu))
        + np.sum(stats.binom.logpmf(K, 5, p))
        + np.sum(stats.nbinom.logpmf(K, 1.0 + mu, p) + stats.nbinom.pmf(K, 2.5, p))
        + np.sum(stats.multivariate_normal.logpdf(points, mean=np.array([0.1, -0.2]), cov=cov))
        + np.sum(stats.lognorm.logpdf(mu, 0.7, scale=1.3))
    )


def counts_jax(x):
    mu = jnp.exp(x)
    p = 1.0 / (1.0 + jnp.exp(-x))
    points = x.reshape(3, 2)
    cov = jnp.array([[2.0, 0.3], [0.3, 1.0]])
    z = jnp.log(mu / 1.3)  # lognorm: a normal of log(x / scale), over x
    return (
        jnp.sum(jst.poisson.logpmf(K, mu))
        + jnp.sum(jst.binom.logpmf(K, 5, p))
        + jnp.sum(jst.nbinom.logpmf(K, 1.0 + mu, p) + jst.nbinom.pmf(K, 2.5, p))
        + jnp.sum(jst.multivariate_normal.logpdf(points, jnp.array([0.1, -0.2]), cov))
        + jnp.sum(jst.norm.logpdf(z, scale=0.7) - jnp.log(mu))
    )


X = np.array([0.3, -0.7, 1.1, 0.5, -0.4, 0.9])


@pytest.mark.parametrize(("f", "f_jax"), [(continuous, continuous_jax), (counts, counts_jax)])
def test_distributions_against_jax_scipy_stats(f, f_jax):
    want_value, _, want = jref.value_gradient_hessian(f_jax)(jnp.asarray(X))
    assert np.isclose(f(X), float(want_value), rtol=1e-12)
    H = dgraph.hessian(f, X, method="markowitz")  # the choice's (the same generated text)
    want = np.asarray(want)
    np.testing.assert_allclose(H(X), want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def not_read(x):
    return np.sum(stats.t.ppf(x, 3.0))  # (t.cdf is read: tests/test_betainc.py)


def test_what_is_not_read_is_one_line():
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(not_read, "jacobian", point=[X])
    assert "scipy.stats.t.ppf of an array that depends on the inputs" in str(e.value)
    assert "\n" not in str(e.value)


def folded_and_weibull(x):
    """Eight schools' half-Cauchy, a half-normal scale prior and Weibull survival
    (``weibull_min``'s density and survival function), each with traced parameters."""
    s = 0.5 + x**2
    return (
        np.sum(stats.halfcauchy.logpdf(s, 0, 2.0) + stats.halfcauchy.cdf(s, scale=1.0 + x**2))
        + np.sum(stats.halfnorm.logpdf(s, scale=1.5) + stats.halfnorm.cdf(s) + stats.halfnorm.sf(s))
        + np.sum(stats.weibull_min.logpdf(s, 1.5 + 0.1 * x, scale=2.0))
        + np.sum(stats.weibull_min.logsf(s, 1.7, scale=s + 1.0) + stats.weibull_min.cdf(s, 0.8))
    )


def folded_and_weibull_jax(x):
    s = 0.5 + x**2
    erf = jax.scipy.special.erf

    def weibull(t, c, scale):
        z = t / scale
        return jnp.log(c / scale) + (c - 1.0) * jnp.log(z) - z**c, -(z**c)

    half_cauchy = jnp.log(2.0 / jnp.pi) - jnp.log1p((s / 2.0) ** 2) - jnp.log(2.0)
    half_norm = 0.5 * jnp.log(2.0 / jnp.pi) - 0.5 * (s / 1.5) ** 2 - jnp.log(1.5)
    return (
        jnp.sum(half_cauchy + 2.0 / jnp.pi * jnp.arctan(s / (1.0 + x**2)))
        + jnp.sum(half_norm + erf(s / jnp.sqrt(2.0)) + 1.0 - erf(s / jnp.sqrt(2.0)))
        + jnp.sum(weibull(s, 1.5 + 0.1 * x, 2.0)[0])
        + jnp.sum(weibull(s, 1.7, s + 1.0)[1] + 1.0 - jnp.exp(weibull(s, 0.8, 1.0)[1]))
    )


def test_folded_and_weibull_families_against_their_formulas():
    """scipy's values equal the formulas (the JAX function), and the Hessian read from
    scipy.stats equals JAX's of the formulas (refused before session 37)."""
    want_value, _, want = jref.value_gradient_hessian(folded_and_weibull_jax)(jnp.asarray(X))
    assert np.isclose(folded_and_weibull(X), float(want_value), rtol=1e-12)
    H = dgraph.hessian(folded_and_weibull, X, method="markowitz")  # the choice's
    want = np.asarray(want)
    np.testing.assert_allclose(H(X), want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def dirichlet_prior(x):
    p = np.exp(x) / np.sum(np.exp(x))
    alpha = np.array([1.5, 2.0, 1.2, 3.0, 0.8, 2.5])
    return (
        stats.dirichlet.logpdf(p, alpha)
        + stats.dirichlet.pdf(p[:5], 1.0 + x**2)
        + stats.dirichlet(alpha).logpdf(p)
    )


def dirichlet_prior_jax(x):
    p = jnp.exp(x) / jnp.sum(jnp.exp(x))
    alpha = jnp.array([1.5, 2.0, 1.2, 3.0, 0.8, 2.5])
    d = jst.dirichlet
    return 2.0 * d.logpdf(p, alpha) + d.pdf(p, 1.0 + x**2)


def test_dirichlet_against_jax():
    """``dirichlet.logpdf``/``pdf`` of one point (all components, or all but the last),
    frozen too, with traced ``alpha`` (autograd's ``gmm``/LDA priors; refused before)."""
    want_value, _, want = jref.value_gradient_hessian(dirichlet_prior_jax)(jnp.asarray(X))
    assert np.isclose(dirichlet_prior(X), float(want_value), rtol=1e-12)
    H = dgraph.hessian(dirichlet_prior, X, method="reverse")  # the choice's
    want = np.asarray(want)
    np.testing.assert_allclose(H(X), want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def more_families(x):
    """Session 48's families: extreme values, tails, truncation and skew, with traced
    shapes where their formulas allow (refused before: 'not supported')."""
    s = stats
    return (
        np.sum(s.uniform.logpdf(x, 0.0, 2.5) + s.uniform.cdf(x, 0.1, 3.0) + s.uniform.ppf(x / 3))
        + np.sum(s.gumbel_r.logpdf(x, 0.5, 1.3) + s.gumbel_r.sf(x) + s.gumbel_r.isf(x / 3))
        + np.sum(s.gumbel_l.logpdf(x, 0.5, 1.3) + s.gumbel_l.logsf(x) + s.gumbel_l.ppf(x / 3))
        + np.sum(s.pareto.logpdf(x + 1, 2.5) + s.pareto.cdf(x + 1, 1.5))
        + np.sum(s.pareto.logpdf(1.5, x + 1))
        + np.sum(s.invgamma.logpdf(x, 2.5) + s.invgamma.cdf(x, 1.5) + s.invgamma.logpdf(1.1, x + 1))
        + np.sum(s.rayleigh.logpdf(x, scale=1.4) + s.rayleigh.cdf(x) + s.rayleigh.ppf(x / 3))
        + np.sum(s.genpareto.logpdf(x, -0.4) + s.genpareto.sf(x, -0.2))
        + np.sum(s.genpareto.ppf(x / 3, 0.25))
        + np.sum(s.genpareto.cdf(x, 0.3) + s.genpareto.logpdf(0.7, x - 1.0))
        + np.sum(s.genextreme.logpdf(x, 0.3) + s.genextreme.sf(x, -0.2))
        + np.sum(s.genextreme.ppf(x / 3, 0.25))
        + np.sum(s.genextreme.cdf(x, 0.3) + s.genextreme.logpdf(0.7, x - 1.0))
        + np.sum(s.skewnorm.logpdf(x, 2.0, 0.5, 1.2) + s.skewnorm.pdf(x, -1.5))
        + np.sum(s.skewnorm.logpdf(0.3, x))
        + np.sum(s.gennorm.logpdf(x - 1, 1.5) + s.gennorm.cdf(x - 1, 2.5))
        + np.sum(s.gennorm.logpdf(0.4, x + 0.5))
        + np.sum(s.truncnorm.logpdf(x + 6, 5.0, 9.0) + s.truncnorm.logpdf(x - 6.5, -9.0, -4.0))
        + np.sum(s.truncnorm.logpdf(x, 0.1, 2.5) + s.truncnorm.pdf(0.5, -x, x))
    )  # fmt: skip


def test_more_families_against_scipys_own_values_and_differences():
    """Values equal scipy's own; the gradient equals five-point differences of scipy's own
    function (independent of dgraph); the far tails of ``truncnorm`` (mass ~1e-7 at
    [5, 9]) keep their digits as scipy's ``_log_gauss_mass`` does."""
    x = np.array([0.3, 1.2, 0.7, 2.0, 0.9, 1.6])
    made = dgraph.make_function(
        more_families, "value_and_jacobian", point=[x], method="markowitz"
    )  # the choice's method (the same generated text): the test is of the readings
    value, gradient = made(x)
    assert value == pytest.approx(more_families(x), rel=1e-14)
    h, columns = 1e-5, []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        f = more_families
        columns.append((-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h))
    np.testing.assert_allclose(gradient, columns, rtol=1e-8)
    assert made.generated.verified


def interval(x):
    """A t interval's upper end and χ², gamma and beta quantiles of constant probabilities
    and shapes, located and scaled by statistics of the data (refused before)."""
    m, s = np.mean(x), np.std(x, ddof=1)
    return np.stack(
        [
            stats.t.ppf(0.975, 4, loc=m, scale=s / np.sqrt(x.size)),
            stats.chi2.isf(0.05, 3.0, scale=s),
            stats.gamma(2.5, scale=s).ppf(0.9),
            stats.beta.ppf([0.1, 0.5], 2.0, 3.0, loc=m)[1],
        ]
    )


def test_a_quantile_of_constants_located_and_scaled_by_the_inputs():
    x = np.array([0.3, 1.2, 0.7])
    # method: make_function's choice (the same generated text), named so that no candidate
    # program is built and compared (the choice is tests/test_codegen_choice.py's)
    made = dgraph.make_function(interval, "value_and_jacobian", point=[x], method="umbrella")
    value, jacobian = made(x)
    np.testing.assert_allclose(value, interval(x), rtol=1e-14)
    h = 1e-6
    columns = [(interval(x + h * e) - interval(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(jacobian, np.transpose(columns), rtol=1e-7)
    assert made.generated.verified


def test_the_extreme_value_shape_at_zero_has_its_limits_derivative():
    """``genextreme`` at c = 0 (Gumbel's law, where a fit starts): the derivative in c is
    the limit's (a select of Gumbel's formula would give 0), as differences of scipy's."""
    xs = np.array([-0.5, 0.3, 1.2, 2.0])

    def f(c):
        g = stats.genextreme
        return np.stack([np.sum(g.logpdf(xs, c[0])), np.sum(g.cdf(xs, c[1])), g.ppf(0.3, c[0])])

    c = np.zeros(2)
    # the array level, where the reading and its rule are (the element level is it
    # expanded, each operation's expansion tests/test_rules_vs_jax.py's): its program a
    # third of the element level's sympy one in CPU
    graph = dgraph.from_function(f, sizes=[2], point=[c], level="array")
    made = dgraph.make_function(graph, "value_and_jacobian")
    value, jacobian = made(c)
    h = 1e-5
    columns = [(f(c + h * e) - f(c - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(value, f(c), rtol=1e-15)
    np.testing.assert_allclose(jacobian, np.transpose(columns), atol=1e-8)
    assert abs(jacobian[0, 0]) > 0.1 and made.generated.verified


def test_a_family_not_read_names_itself_in_one_line():
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(lambda x: np.sum(stats.alpha.logpdf(x, 2.0)), point=[X])
    assert str(e.value).endswith(
        "scipy.stats.alpha.logpdf of an array that depends on the inputs is not supported"
    )


K6 = np.array([1.0, 2.0, 3.0, 1.0, 4.0, 2.0])
B6 = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])


def session53_families(x):
    """Session 53's families and methods, each a row: traced ``x``, ``loc``/``scale``,
    quantiles and shapes (refused before: 'not supported'); ``truncnorm``'s far tails."""
    s, q, u = stats, x / 3, x / 2.5
    rows = [
        s.lognorm.cdf(x, 0.6, scale=1.2) + s.lognorm.logsf(x, 0.6) + s.lognorm.sf(x, 0.9, -0.1)
        + s.lognorm.logcdf(x, 0.5),
        s.cauchy.logsf(x, 0.2, 1.3) + s.cauchy.sf(x) + s.laplace.logsf(x, 0.5)
        + s.laplace.sf(x - 1),
        s.levy.logpdf(x, 0, 0.7) + s.levy.cdf(x) + s.levy.sf(x) + s.levy.ppf(q) + s.levy.isf(q),
        s.lomax.logpdf(x, 2.5) + s.lomax.logsf(x, 1.5, scale=2) + s.lomax.cdf(x, 2)
        + s.lomax.ppf(q, 2.0) + s.lomax.isf(q, 2.0) + s.lomax.logpdf(0.7, x + 0.5),
        s.maxwell.logpdf(x, scale=1.3) + s.maxwell.cdf(x) + s.maxwell.sf(x)
        + s.wald.logsf(x, 0.1) + s.erlang.logpdf(x, 3, scale=0.5),
        s.invgauss.logpdf(x, 0.8) + s.invgauss.logcdf(x, 0.5) + s.invgauss.logsf(x, 1.5)
        + s.invgauss.logpdf(0.9, x) + s.invgauss.cdf(x, 0.7) + s.invgauss.sf(x, 0.7),
        s.nakagami.logpdf(x, 1.5) + s.nakagami.cdf(x, 0.8) + s.nakagami.sf(x, 2.0)
        + s.nakagami.logpdf(0.9, x),
        s.johnsonsu.logpdf(x - 1, 0.5, 1.5) + s.johnsonsu.cdf(x, 0.5, 1.5)
        + s.johnsonsu.logsf(x, 0.5, 1.5) + s.johnsonsu.ppf(q, 0.5, 1.5)
        + s.johnsonsu.isf(q, 0.5, 1.5) + s.johnsonsu.logpdf(0.3, x, 1.2),
        s.loggamma.logpdf(x - 1, 2.0) + s.loggamma.cdf(x - 1, 2.0) + s.loggamma.sf(x, 1.5)
        + s.loggamma.logpdf(0.3, x),
        s.burr.logpdf(x, 2, 3) + s.burr.cdf(x, 2, 3) + s.burr.logsf(x, 2, 3) + s.burr.ppf(q, 2, 3)
        + s.burr.isf(q, 2, 3) + s.burr.logpdf(0.8, x + 1, 2),
        s.triang.logpdf(u, 0.4) + s.triang.cdf(u, 0.4) + s.triang.ppf(q, 0.4)
        + s.triang.isf(q, 0.4) + s.triang.cdf(u, 0.0) + s.triang.logpdf(u, 1.0)
        + s.triang.sf(u, 1.0),
        s.exponnorm.logpdf(x, 1.5, 0.2, 1.1) + s.exponnorm.cdf(x, 1.5) + s.exponnorm.sf(x, 0.7)
        + s.exponnorm.logpdf(0.5, x),
        s.vonmises.logpdf(x, 1.0) + s.vonmises.logpdf(0.4, x) + s.rice.logpdf(x, 1.0)
        + s.rice.logpdf(0.8, x),
        s.kappa3.logpdf(x, 1.0) + s.kappa3.cdf(x, 1.5) + s.kappa3.sf(x, 0.8) + s.kappa3.ppf(q, 1.2)
        + s.kappa3.isf(q, 1.2),
        s.truncnorm.cdf(x, -1, 2) + s.truncnorm.logsf(x, -1, 2) + s.truncnorm.logcdf(x, -1, 2)
        + s.truncnorm.ppf(q, -1, 2) + s.truncnorm.ppf(q, 0.5, 3) + s.truncnorm.isf(q, -3, -0.5)
        + s.truncnorm.isf(q, -1, 2),
        s.truncnorm.logcdf(x + 6, 5.0, 9.0) + s.truncnorm.logsf(x - 9, -9.0, -4.0),
        s.geom.logpmf(K6, q) + s.geom.cdf(K6, q) + s.geom.logsf(K6, q) + s.geom.pmf(0, q),
        s.bernoulli.logpmf(B6, q) + s.bernoulli.cdf(B6, q) + s.bernoulli.sf(B6, q)
        + s.nbinom.cdf(K6, 5, q) + s.nbinom.logsf(K6, 2.5, q),
    ]  # fmt: skip
    return np.stack([np.sum(r) for r in rows])


def _graph_value_and_jvp(f, x, v):
    """The array graph's value and ``J·v`` by its own tangent sweep (no program made)."""
    from dgraph.core.block_values import graph_jvp_and_scale, vertex_values
    from dgraph.frontends import from_python

    g = from_python(f, point=[x], level="array")
    values = vertex_values(g, {**g.parameter_point, **(g.point or {}), g.inputs[0]: x})
    (y,) = g.outputs
    return values[y], graph_jvp_and_scale(g, values, {g.inputs[0]: v})[0][y]


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (session53_families, np.array([0.3, 1.1, 0.7, 1.9, 0.9, 1.6])),
        (
            lambda t: (
                stats.levy.logpdf(t)
                + stats.geom.logpmf(3, t / 3)
                + stats.burr.ppf(t / 3, 2, 3)
                + stats.truncnorm.ppf(t / 3, -1, 2)
                + stats.invgauss.logsf(t, 0.5)
            ),
            np.float64(0.7),
        ),
    ],
)
def test_session53_families_against_scipys_values_and_differences(f, x):
    """Values equal scipy's own; a directional derivative equals five-point differences
    of scipy's own function (independent of dgraph), for a 1-d and a 0-d input."""
    v = np.resize([1.0, -0.5, 0.8, 0.3, -0.7, 0.6], np.shape(x))
    value, jv = _graph_value_and_jvp(f, x, v)
    np.testing.assert_allclose(value, f(x), rtol=1e-13)
    h = 1e-5
    with np.errstate(all="ignore"):
        want = (-f(x + 2 * h * v) + 8 * f(x + h * v) - 8 * f(x - h * v) + f(x - 2 * h * v)) / (
            12 * h
        )
    np.testing.assert_allclose(np.reshape(jv, np.shape(want)), want, rtol=1e-7)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (lambda z: stats.lomax.logpdf(z, 2.0), np.array([-1.0, 0.0, 0.5, 3.0])),
        (lambda z: stats.kappa3.logpdf(z, 1.5), np.array([-1.0, 0.0, 0.5, 3.0])),
        (lambda z: stats.burr.logpdf(z, 1.0, 1.0), np.array([-1.0, 0.0, 0.5, 3.0])),
        (lambda z: stats.triang.logpdf(z, 0.0), np.array([-1.0, 0.0, 0.5, 1.0])),
        (lambda z: stats.truncnorm.cdf(z, 0.5, np.inf), np.array([-1.0, 0.5, 1.0, 3.0])),
        (lambda z: stats.truncnorm.logsf(z, 0.5, 3.0), np.array([0.4, 0.5, 1.0, 3.0])),
        (lambda z: stats.truncnorm.ppf(z, -np.inf, 1.0), np.array([0.0, 0.3, 0.9, 1.0])),
        (lambda z: stats.truncnorm.isf(z, 3.0, 9.0), np.array([0.0, 0.3, 0.9, 1.0])),
        (lambda z: stats.geom.logpmf(np.array([0.0, 1.0, 3.0, 2.0]), z), np.full(4, 0.3)),
    ],
)
def test_session53_support_ends_are_scipys(f, x):
    """At and beyond the support's ends (a closed end's density, a quantile's 0 and 1,
    truncnorm's CDF at a, geom's k = 0) the graph's values are scipy's own."""
    from dgraph.core.block_values import vertex_values
    from dgraph.frontends import from_python

    g = from_python(f, point=[x], level="array")
    got = vertex_values(g, {**g.parameter_point, **(g.point or {}), g.inputs[0]: x})
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got[g.outputs[0]], f(x), rtol=1e-13)
