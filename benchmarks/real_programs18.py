"""Real programs through dgraph's public API, an eighteenth survey beside ``real_programs.py``
… ``real_programs17.py``: programs as tutorials and example folders write them (session 37).
HIPS/autograd's ``examples/`` with ``import autograd.numpy as np`` (in
``benchmarks/real_programs18_autograd.py``: a neural net whose layers ``flatten``'s
``unflatten`` rebuilds, a convolution layer, an RNN, an ODE net, a fluid simulation's
semi-Lagrangian advection, a Gaussian process's ``mvn.logpdf``, expected improvement,
black-box SVI, a Gaussian mixture, the README's logistic regression, an HMM's forward
algorithm, a negative-binomial fit, ``elementwise_grad`` inside a function); JAX's Autodiff
cookbook and JAX 101 (Hessian-vector products forward-over-reverse and reverse-over-reverse,
per-example gradients by ``jax.vmap(jax.grad)`` clipped as in DP-SGD, a ``lax.scan`` RNN
whose parameters are a dict rebuilt by ``jax.tree_util.tree_unflatten``, an SGD step by
``tree_map`` inside a loss); scipy.optimize's tutorial (``rosen_hess`` and ``rosen_hess_p``
as written there, the trust-constr Lagrangian with SciPy's own ``rosen``, the
``least_squares`` enzyme-kinetics residuals, a ``curve_fit`` model ``f(x, a, b, c)``); and
log-densities as PyMC / Stan users write them in NumPy and scipy.stats (eight schools
non-centred with a half-Cauchy, hierarchical logistic regression, AR(2), stochastic
volatility, censored Weibull survival).

Columns are real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``),
every value against ``jax.jacfwd`` / ``jax.hessian`` of the same function (the JAX twin of a
NumPy program), relative 1e-8.

    python benchmarks/real_programs18.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.stats as jst
import numpy as np
import real_programs18_autograd
import scipy.optimize
from jax import lax
from real_programs_harness import (
    MODES_SIZED,
    SizedSurvey,
    data,
    deep_twin,
    jax_case,
    registry,
    small_cases,
)
from scipy import stats

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(48)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 18)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


def _halfcauchy_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return jnp.log(2.0 / jnp.pi) - jnp.log(scale) - jnp.log1p(z * z)


def _weibull_min(c, scale):
    class Weibull:
        """jax's missing ``weibull_min``: ``logpdf`` and ``logsf`` of shape ``c``."""

        @staticmethod
        def logpdf(t, c=c, scale=scale):
            z = t / scale
            return jnp.log(c) - jnp.log(scale) + (c - 1.0) * jnp.log(z) - z**c

        @staticmethod
        def logsf(t, c=c, scale=scale):
            return -((t / scale) ** c)

    return Weibull


class _Weibull:
    """jax.scipy.stats' missing ``weibull_min``: ``logpdf`` and ``logsf`` of shape ``c``."""

    @staticmethod
    def logpdf(t, c, scale=1.0):
        return _weibull_min(c, scale).logpdf(t)

    @staticmethod
    def logsf(t, c, scale=1.0):
        return _weibull_min(c, scale).logsf(t)


class _HalfCauchy:
    logpdf = staticmethod(_halfcauchy_logpdf)


class _JaxStats:
    """jax.scipy.stats with ``halfcauchy`` and ``weibull_min`` (their scipy formulas)."""

    def __getattr__(self, name):
        return {"halfcauchy": _HalfCauchy, "weibull_min": _Weibull}.get(name) or getattr(jst, name)


def np_case(f, xs, scalar, **names):
    """A case of a NumPy program, its reference the same code in JAX (scipy.stats and
    scipy.special as JAX's)."""
    ref = deep_twin(f, stats=_JaxStats(), **names)
    return (f, tuple(np.asarray(x, dtype=float) for x in xs), scalar, ref)


# ---------------------------------------------------------------- JAX cookbook / JAX 101


def _rosen(z):
    return jnp.sum(100.0 * (z[1:] - z[:-1] ** 2) ** 2 + (1 - z[:-1]) ** 2)


def _loss(x):
    return jnp.sum(jnp.tanh(x) ** 2 * jnp.arange(1.0, x.size + 1.0)) + jnp.prod(jnp.cos(x[:3]))


@program(4, 30)
def cookbook_hvp_fwd_over_rev(n):
    """The cookbook's ``hvp(f, x, v) = jax.jvp(jax.grad(f), (x,), (v,))[1]`` as a function
    of ``x`` for a fixed ``v`` (a vector: its Jacobian is a third derivative contracted)."""
    v = jnp.asarray(_rng(n).normal(size=n))

    def f(x):
        return jax.jvp(jax.grad(_loss), (x,), (v,))[1]

    return jax_case(f, (data(_rng(n, 1), n, scale=0.5),), False)


@program(4, 16)
def cookbook_hvp_rev_over_rev(n):
    """The cookbook's reverse-over-reverse ``hvp = grad(lambda x: jnp.vdot(grad(f)(x),
    v))(x)`` inside a curvature penalty ``f(x) + 0.1 |H v|²`` (a scalar)."""
    v = jnp.asarray(_rng(n, 2).normal(size=n))

    def f(x):
        Hv = jax.grad(lambda y: jnp.vdot(jax.grad(_loss)(y), v))(x)
        return _loss(x) + 0.1 * Hv @ Hv

    return jax_case(f, (data(_rng(n, 3), n, scale=0.5),), True)


@program(3, 12)
def per_example_grads_clipped(n):
    """Per-example gradients by ``jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))`` (the
    cookbook), each clipped to norm 1 by ``jnp.minimum(1, C / |g|)`` and averaged, as
    DP-SGD does (a vector: the update direction)."""
    r = _rng(n, 4)
    X = jnp.asarray(r.normal(size=(5, n)))
    y = jnp.asarray((r.uniform(size=5) > 0.5).astype(float))

    def loss(w, x, t):
        z = x @ w
        return jnp.logaddexp(0.0, z) - t * z

    def f(w):
        g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, X, y)
        scale = jnp.minimum(1.0, 1.0 / jnp.linalg.norm(g, axis=1))
        return jnp.mean(g * scale[:, None], axis=0)

    return jax_case(f, (data(r, n, scale=0.8),), False)


@program(4, 12)
def scan_rnn_dict_params(n):
    """JAX 101's ``lax.scan`` RNN: parameters a dict ``{"W", "U", "b", "V"}`` rebuilt from
    the flat unknowns by ``jax.tree_util.tree_unflatten`` of ``jnp.split`` pieces, the
    carry ``tanh(W h + U x_t + b)``, outputs ``V h``, the squared error plus an L2 term by
    ``tree_map`` / ``tree_leaves`` (``n`` steps)."""
    r = _rng(n, 5)
    H, D = 3, 2
    xs = jnp.asarray(r.normal(size=(n, D)))
    ys = jnp.asarray(r.normal(size=(n,)))
    shapes = {"U": (H, D), "V": (H,), "W": (H, H), "b": (H,)}
    treedef = jax.tree_util.tree_structure(shapes, is_leaf=lambda s: isinstance(s, tuple))
    leaf_shapes = jax.tree_util.tree_leaves(shapes, is_leaf=lambda s: isinstance(s, tuple))
    sizes = [int(np.prod(s)) for s in leaf_shapes]
    offsets = np.cumsum(sizes)[:-1].tolist()

    def f(w):
        pieces = [p.reshape(s) for p, s in zip(jnp.split(w, offsets), leaf_shapes, strict=True)]
        params = jax.tree_util.tree_unflatten(treedef, pieces)

        def step(h, x):
            h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
            return h, params["V"] @ h

        _, out = lax.scan(step, jnp.zeros(H), xs)
        l2 = sum(jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda p: jnp.sum(p**2), params)))
        return jnp.mean((out - ys) ** 2) + 0.01 * l2

    return jax_case(f, (data(r, sum(sizes), scale=0.5),), True)


@program(3, 20)
def sgd_step_tree_map(n):
    """JAX 101's linear regression with ``params = {"w": ..., "b": ...}``: one SGD step
    ``jax.tree_util.tree_map(lambda p, g: p − 0.1 g, params, jax.grad(loss)(params, X, y))``
    inside the function, the validation loss after it (a scalar of the flat parameters)."""
    r = _rng(n, 6)
    X, Xv = jnp.asarray(r.normal(size=(6, n))), jnp.asarray(r.normal(size=(4, n)))
    y, yv = jnp.asarray(r.normal(size=6)), jnp.asarray(r.normal(size=4))

    def loss(params, X, y):
        return jnp.mean((jnp.tanh(X @ params["w"]) + params["b"] - y) ** 2)

    def f(theta):
        params = {"w": theta[:n], "b": theta[n]}
        grads = jax.grad(loss)(params, X, y)
        new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return loss(new, Xv, yv)

    return jax_case(f, (data(r, n + 1, scale=0.5),), True)


@program(2, 6)
def cookbook_hessian_of_dict_params(n):
    """``jax.hessian`` of a loss of a dict of parameters (the cookbook: the Hessian is a
    dict of dicts of blocks) inside a function: the traces of its diagonal blocks and the
    norm of an off-diagonal one, a curvature regulariser (a scalar: fourth derivatives)."""
    r = _rng(n, 30)
    X = jnp.asarray(r.normal(size=(4, n)))
    y = jnp.asarray(r.normal(size=4))

    def loss(params):
        return jnp.sum(jnp.tanh(X @ params["w"] + params["b"]) - y) ** 2 / 4.0

    def f(theta):
        params = {"w": theta[:n], "b": theta[n]}
        H = jax.hessian(loss)(params)
        return (
            loss(params) + 0.1 * (jnp.trace(H["w"]["w"]) + H["b"]["b"]) + jnp.sum(H["w"]["b"] ** 2)
        )

    return jax_case(f, (data(r, n + 1, scale=0.5),), True)


@program(3, 12)
def cookbook_jacobian_by_vmap_jvp(n):
    """The cookbook's Jacobian as ``jax.vmap`` of ``jax.jvp`` over the rows of
    ``jnp.eye(n)`` (push-forwards of the basis), of a small map ``R^n -> R^n``, flattened
    (a vector output: its Jacobian is a second derivative)."""

    def g(x):
        return jnp.sin(x) * jnp.roll(x, 1) + jnp.exp(0.3 * x) * jnp.sum(x**2)

    def f(x):
        columns = jax.vmap(lambda v: jax.jvp(g, (x,), (v,))[1])(jnp.eye(n))
        return columns.T.ravel()

    return jax_case(f, (data(_rng(n, 31), n, scale=0.5),), False)


# ---------------------------------------------------------------- scipy.optimize's tutorial


@program(4, 30)
def scipy_tutorial_rosen_hess(n):
    """The tutorial's ``rosen_hess``: ``np.diag(-400 x[:-1], 1) + np.diag(-400 x[:-1], -1)``
    plus ``np.diag(diagonal)`` whose entries are written into ``np.zeros_like(x)`` (a matrix
    output: its Jacobian is the third derivative)."""

    def f(x):
        x = np.asarray(x)
        H = np.diag(-400 * x[:-1], 1) - np.diag(400 * x[:-1], -1)
        diagonal = np.zeros_like(x)
        diagonal[0] = 1200 * x[0] ** 2 - 400 * x[1] + 2
        diagonal[-1] = 200
        diagonal[1:-1] = 202 + 1200 * x[1:-1] ** 2 - 400 * x[2:]
        H = H + np.diag(diagonal)
        return H

    return (f, (0.5 + 0.3 * np.sin(np.arange(n)),), False, jax.hessian(_rosen))


@program(4, 30)
def scipy_tutorial_rosen_hess_p(n):
    """The tutorial's ``rosen_hess_p(x, p)``: the Hessian-vector product written entry by
    entry into ``np.zeros_like(x)`` (``Hp[0]``, ``Hp[1:-1]``, ``Hp[-1]``), a function of
    both ``x`` and ``p`` (a Jacobian in both)."""

    def f(x, p):
        x = np.asarray(x)
        Hp = np.zeros_like(x)
        Hp[0] = (1200 * x[0] ** 2 - 400 * x[1] + 2) * p[0] - 400 * x[0] * p[1]
        Hp[1:-1] = (-400 * x[:-2] * p[:-2] + (202 + 1200 * x[1:-1] ** 2 - 400 * x[2:]) * p[1:-1]
                    - 400 * x[1:-1] * p[2:])  # fmt: skip
        Hp[-1] = -400 * x[-2] * p[-2] + 200 * p[-1]
        return Hp

    def ref(x, p):
        return jax.jvp(jax.grad(_rosen), (x,), (p,))[1]

    r = _rng(n, 7)
    return (f, (0.5 + 0.3 * np.sin(np.arange(n)), r.normal(size=n)), False, ref)


@program(2, None)
def scipy_trust_constr_lagrangian(n):
    """The trust-constr tutorial's problem as its ``hess(x, v)`` sees it: SciPy's own
    ``scipy.optimize.rosen`` plus ``np.dot(v, cons_f(x))`` of the constraints
    ``[x[0]**2 + x[1], x[0]**2 - x[1]]`` (a Python list) and the linear constraint
    ``A @ x`` (a scalar of the 2 unknowns)."""
    v = np.array([0.7, -0.4])
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    mult = np.array([0.2, -0.1])

    def cons_f(x):
        return [x[0] ** 2 + x[1], x[0] ** 2 - x[1]]

    def f(x):
        return scipy.optimize.rosen(x) + np.dot(v, cons_f(x)) + np.dot(mult, A @ x)

    def ref(x):
        return _rosen(x) + v @ jnp.stack([x[0] ** 2 + x[1], x[0] ** 2 - x[1]]) + mult @ (A @ x)

    return (f, (np.array([0.41494356, 0.17010715]),), True, ref)


@program(4, 30)
def scipy_rosen_der_penalty(n):
    """SciPy's own ``rosen`` and ``rosen_der`` (``scipy.optimize``, as the tutorial imports
    them) in a gradient-norm penalised objective ``rosen(x) + 0.01 |rosen_der(x)|²``."""
    from scipy.optimize import rosen, rosen_der

    def f(x):
        return rosen(x) + 0.01 * np.sum(rosen_der(x) ** 2)

    def ref(x):
        return _rosen(x) + 0.01 * jnp.sum(jax.grad(_rosen)(x) ** 2)

    return (f, (0.5 + 0.3 * np.sin(np.arange(n)),), True, ref)


@program(11, 40)
def scipy_least_squares_soft_l1(n):
    """``least_squares(fun, x0, loss="soft_l1", f_scale=0.1)``'s objective written out:
    ``ρ(z) = 2(√(1 + z) − 1)`` of ``z = (r / f_scale)²`` of the enzyme-kinetics residuals,
    ``0.5 f_scale² Σ ρ`` (a scalar of the 4 parameters)."""
    u = np.linspace(0.0625, 4.0, n)
    y = 0.19 * (u**2 + 0.19 * u) / (u**2 + 0.12 * u + 0.14) + _rng(n, 32).normal(size=n) * 0.02
    f_scale = 0.1

    def f(x):
        r = x[0] * (u**2 + x[1] * u) / (u**2 + x[2] * u + x[3]) - y
        z = (r / f_scale) ** 2
        return 0.5 * f_scale**2 * np.sum(2 * ((1 + z) ** 0.5 - 1))

    return np_case(f, (np.array([0.25, 0.39, 0.415, 0.39]),), True)


@program(11, 40)
def scipy_least_squares_kinetics(n):
    """The least_squares tutorial's enzyme kinetics: residuals ``x0 (u² + x1 u) / (u² + x2
    u + x3) − y`` at ``n`` measurements (a Jacobian in the 4 parameters)."""
    u = np.linspace(0.0625, 4.0, n)
    y = 0.19 * (u**2 + 0.19 * u) / (u**2 + 0.12 * u + 0.14) + _rng(n, 8).normal(size=n) * 0.01

    def f(x):
        return x[0] * (u**2 + x[1] * u) / (u**2 + x[2] * u + x[3]) - y

    return np_case(f, (np.array([0.25, 0.39, 0.415, 0.39]),), False)


@program(5, 50)
def curve_fit_model(n):
    """curve_fit's model ``func(x, a, b, c) = a * np.exp(-b * x) + c``: a function of the
    abscissae (``n``) and three scalar arguments (arrays of shape ``()``)."""

    def f(x, a, b, c):
        return a * np.exp(-b * x) + c

    xs = (np.linspace(0.0, 4.0, n), np.array(2.5), np.array(1.3), np.array(0.5))
    return np_case(f, xs, False)


@program(6, 50)
def curve_fit_power_log10(n):
    """curve_fit's model ``func(x, a, b, c) = a * np.power(x, b) + c * np.log10(x)`` of
    positive abscissae and three scalar arguments."""

    def f(x, a, b, c):
        return a * np.power(x, b) + c * np.log10(x)

    xs = (np.linspace(0.5, 3.0, n), np.array(1.7), np.array(0.6), np.array(-0.4))
    return np_case(f, xs, False)


# ---------------------------------------------------------------- PyMC / Stan log densities


@program(8, None)
def eight_schools_noncentered(n):
    """Eight schools, non-centred (Rubin 1981; the Stan/PyMC example): ``θ = μ + τ θ̃``,
    ``stats.norm.logpdf(y, θ, σ)``, the priors ``norm.logpdf(μ, 0, 5)``,
    ``stats.halfcauchy.logpdf(τ, 0, 5)`` with ``τ = exp(log τ)`` and its log-Jacobian, and
    ``norm.logpdf(θ̃)``; unknowns ``(μ, log τ, θ̃)``."""
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])[:n]
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])[:n]

    def f(params):
        mu, log_tau, theta_tilde = params[0], params[1], params[2:]
        tau = np.exp(log_tau)
        theta = mu + tau * theta_tilde
        lp = stats.norm.logpdf(mu, 0, 5) + stats.halfcauchy.logpdf(tau, 0, 5) + log_tau
        lp = lp + np.sum(stats.norm.logpdf(theta_tilde, 0, 1))
        return -(lp + np.sum(stats.norm.logpdf(y, theta, sigma)))

    return np_case(f, (_rng(n, 9).normal(size=n + 2) * 0.5,), True)


@program(4, 30)
def hierarchical_logistic(n):
    """Hierarchical logistic regression with varying intercepts (Gelman & Hill 2007), the
    intercepts non-centred ``α = μ + σ z`` over ``n`` groups, ``η = α[group] + X β``, the
    Bernoulli log-likelihood ``y η − logaddexp(0, η)``, normal priors and a half-normal on
    ``σ`` by ``stats.norm.logpdf`` (unknowns ``(μ, log σ, z, β)``)."""
    r = _rng(n, 10)
    m = 4 * n
    group = np.repeat(np.arange(n), 4)
    X = r.normal(size=(m, 2))
    yb = (r.uniform(size=m) > 0.5).astype(float)

    def f(params):
        mu, log_sigma, z, beta = params[0], params[1], params[2 : 2 + n], params[2 + n :]
        sigma = np.exp(log_sigma)
        eta = (mu + sigma * z)[group] + X @ beta
        loglik = np.sum(yb * eta - np.logaddexp(0.0, eta))
        prior = stats.norm.logpdf(mu, 0, 2) + stats.norm.logpdf(sigma, 0, 1) + log_sigma
        prior = prior + np.sum(stats.norm.logpdf(z)) + np.sum(stats.norm.logpdf(beta, 0, 2.5))
        return -(loglik + prior)

    return np_case(f, (r.normal(size=n + 4) * 0.4,), True)


@program(10, 100)
def robust_regression_student_t(n):
    """Robust regression as PyMC's GLM example writes it: ``stats.t.logpdf(y, df=ν,
    loc=a + b x, scale=σ)`` with ``ν = 1 + exp(·)`` and ``σ = exp(·)`` unknown, a
    ``stats.expon.logpdf`` prior on ``ν − 1`` and normal priors (a scalar of 4)."""
    r = _rng(n, 14)
    x = np.linspace(0.0, 1.0, n)
    y = 1.0 + 2.0 * x + r.standard_t(3.0, size=n) * 0.3

    def f(params):
        a, b = params[0], params[1]
        nu, sigma = 1.0 + np.exp(params[2]), np.exp(params[3])
        lp = np.sum(stats.t.logpdf(y, df=nu, loc=a + b * x, scale=sigma))
        lp = lp + stats.expon.logpdf(nu - 1.0, scale=10.0) + params[2] + params[3]
        return -(lp + np.sum(stats.norm.logpdf(params[:2], 0, 10)))

    return np_case(f, (np.array([0.8, 1.5, 1.0, -1.0]),), True)


@program(4, 40)
def dirichlet_categorical_softmax(n):
    """A categorical model with a Dirichlet prior as PyMC writes it: probabilities
    ``softmax(z)`` of ``n`` categories, ``stats.dirichlet.logpdf(p, α)`` plus the counts'
    log-likelihood ``Σ c log p`` (a scalar of the ``n`` logits)."""
    r = _rng(n, 15)
    counts = r.integers(0, 6, size=n).astype(float)
    alpha = 1.0 + r.uniform(size=n)

    def f(z):
        p = np.exp(z - np.max(z))
        p = p / np.sum(p)
        return -(stats.dirichlet.logpdf(p, alpha) + np.sum(counts * np.log(p)))

    return np_case(f, (r.normal(size=n) * 0.5,), True)


@program(12, 200)
def ar2_loglik(n):
    """An AR(2) model's conditional log-likelihood as in Stan's manual: ``y[2:] ~ N(c + φ₁
    y[1:-1] + φ₂ y[:-2], σ)`` by ``stats.norm.logpdf`` with ``σ = exp(log σ)``, plus weak
    priors; unknowns ``(c, φ₁, φ₂, log σ)`` and the series is data (``n`` points)."""
    r = _rng(n, 11)
    series = np.zeros(n)
    for t in range(2, n):
        series[t] = 0.3 + 0.5 * series[t - 1] - 0.2 * series[t - 2] + 0.4 * r.normal()

    def f(params):
        c, phi1, phi2, log_sigma = params
        mean = c + phi1 * series[1:-1] + phi2 * series[:-2]
        lp = np.sum(stats.norm.logpdf(series[2:], mean, np.exp(log_sigma)))
        return -(lp + np.sum(stats.norm.logpdf(params, 0, 10)))

    return np_case(f, (np.array([0.1, 0.3, -0.1, -0.5]),), True)


@program(6, 200)
def stochastic_volatility(n):
    """Stochastic volatility (Kim, Shephard & Chib 1998; Stan's manual): log-volatilities
    ``h`` with ``h[0] ~ N(μ, σ/√(1−φ²))``, ``h[t] ~ N(μ + φ(h[t−1] − μ), σ)``, returns
    ``y ~ N(0, exp(h/2))``, ``φ = tanh(·)``, ``σ = exp(·)``; unknowns ``(μ, φ_raw, log σ,
    h)`` (a Hessian: a band and three dense rows)."""
    r = _rng(n, 12)
    ret = r.normal(size=n) * 0.5

    def f(params):
        mu, phi, sigma = params[0], np.tanh(params[1]), np.exp(params[2])
        h = params[3:]
        lp = stats.norm.logpdf(h[0], mu, sigma / np.sqrt(1 - phi**2))
        lp = lp + np.sum(stats.norm.logpdf(h[1:], mu + phi * (h[:-1] - mu), sigma))
        lp = lp + np.sum(stats.norm.logpdf(ret, 0, np.exp(h / 2)))
        return -lp

    return np_case(f, (np.concatenate([[-0.5, 0.8, -1.0], r.normal(size=n) * 0.3 - 0.5]),), True)


@program(6, 100)
def censored_weibull(n):
    """Weibull survival regression with right censoring (as in PyMC's and Stan's examples):
    scale ``λ = exp(X β)``, shape ``k = exp(log k)``, the log-likelihood
    ``np.where(event, stats.weibull_min.logpdf(t, k, scale=λ), stats.weibull_min.logsf(t, k,
    scale=λ))`` summed; unknowns ``(β, log k)``."""
    r = _rng(n, 13)
    X = np.column_stack([np.ones(n), r.normal(size=n)])
    t = r.weibull(1.5, size=n) * 2.0 + 0.05
    event = r.uniform(size=n) > 0.3

    def f(params):
        lam = np.exp(X @ params[:2])
        k = np.exp(params[2])
        ll = np.where(event, stats.weibull_min.logpdf(t, k, scale=lam),
                      stats.weibull_min.logsf(t, k, scale=lam))  # fmt: skip
        return -np.sum(ll)

    return np_case(f, (np.array([0.3, -0.2, 0.2]),), True)


# ---------------------------------------------------------------- the survey

PROGRAMS.update(real_programs18_autograd.PROGRAMS)

#: each program at its small size, under its name (``dgraph codegen real_programs18.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    survey = SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED)
    survey.main(sys.argv[1:])
