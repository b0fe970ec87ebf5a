"""``benchmarks/real_programs18.py``'s programs written as HIPS/autograd's ``examples/`` write
them: ``import autograd.numpy as np``, ``autograd.scipy.stats``' ``norm`` and
``multivariate_normal``, ``autograd.scipy.special``'s ``logsumexp`` and ``gammaln``,
``autograd.scipy.signal.convolve``, ``autograd.misc.flatten``'s ``unflatten`` of a list of
``(W, b)`` layers and ``elementwise_grad`` inside a function (each program our own version
of an example's idea). Their JAX references: the same code with jax.numpy and JAX's
``scipy`` (``deep_twin``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import autograd.numpy as np
import autograd.numpy.random as npr
import autograd.scipy.stats.multivariate_normal as mvn
import autograd.scipy.stats.norm as norm
import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import jax.scipy.stats as jst
import numpy
from autograd import elementwise_grad as egrad
from autograd.misc.flatten import flatten
from autograd.scipy.signal import convolve
from autograd.scipy.special import gammaln, logsumexp
from jax.flatten_util import ravel_pytree
from real_programs_harness import data, deep_twin, registry

#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)

#: JAX's names for the autograd ones these programs use
JAX_NAMES = {
    "norm": jst.norm,
    "mvn": jst.multivariate_normal,
    "logsumexp": jsp.logsumexp,
    "gammaln": jsp.gammaln,
}


def _rng(n: int, salt: int = 0) -> numpy.random.Generator:
    return numpy.random.default_rng(1000 * n + salt + 18)


def case(f, xs, scalar, **names):
    """A case of an autograd program, its reference the same code in JAX."""
    ref = deep_twin(f, **{**JAX_NAMES, **names})
    return (f, tuple(numpy.asarray(x, dtype=float) for x in xs), scalar, ref)


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


# ---------------------------------------------------------------- neural nets


def neural_net_predict(params, inputs):
    """Log-probabilities of a tanh network, its layers a list of ``(W, b)``."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


@program(3, 12)
def ag_neural_net_flatten(n):
    """autograd's ``neural_net.py``: layers ``[n, 4, 3]`` as a list of ``(W, b)`` tuples
    made by ``npr.RandomState(0)``, ``flatten(params)``'s ``unflatten`` of the flat
    unknowns, the log-posterior ``log_prior + log_lik`` with an L2 prior over the layers
    (a Python ``sum`` of a generator)."""
    rs = npr.RandomState(0)
    sizes = [n, 4, 3]
    params = [(rs.randn(m, k) * 0.3, rs.randn(k) * 0.3) for m, k in itertools.pairwise(sizes)]
    flat0, unflatten = flatten(params)
    r = _rng(n)
    X = r.normal(size=(6, n))
    T = numpy.eye(3)[r.integers(0, 3, size=6)]
    _, jax_unflatten = ravel_pytree([(jnp.asarray(W), jnp.asarray(b)) for W, b in params])

    def f(w):
        params = unflatten(w)
        log_prior = -0.5 * 0.1 * sum(np.sum(W**2) + np.sum(b**2) for W, b in params)
        log_lik = np.sum(neural_net_predict(params, X) * T)
        return -(log_prior + log_lik)

    return case(f, (flat0,), True, unflatten=jax_unflatten)


@program(3, 6)
def ag_convnet_valid(n):
    """autograd's ``convnet.py`` in its simplest layer: ``autograd.scipy.signal.convolve``
    of a fixed ``(n+3) × (n+3)`` image with the unknown ``3 × 3`` kernel, ``mode="valid"``,
    a ``tanh`` and a squared misfit to a target."""
    r = _rng(n, 1)
    img = r.normal(size=(n + 3, n + 3))
    target = r.normal(size=(n + 1, n + 1)) * 0.3

    def f(k):
        out = np.tanh(convolve(img, np.reshape(k, (3, 3)), mode="valid"))
        return np.sum((out - target) ** 2)

    return case(f, (data(r, 9, scale=0.3),), True, convolve=jax.scipy.signal.convolve)


@program(4, 10)
def ag_rnn_logsumexp(n):
    """autograd's ``rnn.py``: hidden state ``tanh(concatenate((input, hiddens), axis=1) @
    W + b)`` over ``n`` steps of one-hot inputs (a batch of 2), outputs normalised by
    ``logsumexp(..., axis=1, keepdims=True)``, the log-likelihood of the next symbols."""
    r = _rng(n, 2)
    V, H = 3, 3
    seq = numpy.eye(V)[r.integers(0, V, size=(n + 1, 2))]

    def f(w):
        W = np.reshape(w[: (V + H) * H], (V + H, H))
        b = w[(V + H) * H : (V + H) * H + H]
        Wo = np.reshape(w[(V + H) * H + H :], (H, V))
        hiddens = np.zeros((2, H)) + 0.1
        loglik = 0.0
        for t in range(n):
            hiddens = np.tanh(np.dot(np.concatenate((seq[t], hiddens), axis=1), W) + b)
            out = np.dot(hiddens, Wo)
            out = out - logsumexp(out, axis=1, keepdims=True)
            loglik = loglik + np.sum(out * seq[t + 1])
        return -loglik

    return case(f, (data(r, (V + H) * H + H + H * V, scale=0.4),), True)


@program(3, 8)
def ag_ode_net_rk4(n):
    """autograd's ``ode_net.py`` with a fixed-step integrator: the dynamics a tanh MLP of
    the 2-D state (``n`` hidden units), 6 RK4 steps in a Python loop, the squared misfit of
    the trajectory (``np.array`` of the states) to data."""
    r = _rng(n, 3)
    target = r.normal(size=(6, 2)) * 0.3

    def f(w):
        W1 = np.reshape(w[: 2 * n], (2, n))
        b1 = w[2 * n : 3 * n]
        W2 = np.reshape(w[3 * n : 5 * n], (n, 2))

        def dyn(y):
            return np.dot(np.tanh(np.dot(y, W1) + b1), W2) - 0.1 * y

        y, states, h = np.array([0.5, -0.3]), [], 0.2
        for _ in range(6):
            k1 = dyn(y)
            k2 = dyn(y + h / 2 * k1)
            k3 = dyn(y + h / 2 * k2)
            k4 = dyn(y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            states.append(y)
        return np.sum((np.array(states) - target) ** 2)

    return case(f, (data(r, 5 * n, scale=0.5),), True)


@program(4, 8)
def ag_convnet_relu_maxpool(n):
    """A convnet layer as autograd's ``convnet.py`` builds it: ``convolve`` of a fixed
    image with the unknown ``3 × 3`` kernel (``mode="valid"``), a ReLU by
    ``np.maximum(0, ·)``, ``2 × 2`` max pooling by ``reshape`` and ``np.max`` over the axes
    ``(1, 3)``, ``np.clip`` of the pooled values and a squared misfit (``n`` even)."""
    r = _rng(n, 21)
    img = r.normal(size=(n + 2, n + 2))
    target = r.normal(size=(n // 2, n // 2)) * 0.3

    def f(k):
        conv = convolve(img, np.reshape(k, (3, 3)), mode="valid") + 0.1
        pooled = np.max(np.reshape(np.maximum(0.0, conv), (n // 2, 2, n // 2, 2)), axis=(1, 3))
        return np.sum((np.clip(pooled, 0.0, 1.5) - target) ** 2)

    return case(f, (data(r, 9, scale=0.4),), True, convolve=jax.scipy.signal.convolve)


@program(3, 10)
def ag_bayes_linreg_evidence(n):
    """The log evidence of Bayesian linear regression (Bishop 2006, §3.5.1) of ``n``
    features: ``A = α I + β XᵀX``, the mean ``β A⁻¹ Xᵀy`` by ``np.linalg.solve``,
    ``np.linalg.slogdet(A)`` and ``np.linalg.inv(A)``'s trace in a penalty; unknowns
    ``log α``, ``log β`` and the ``n`` prior means."""
    r = _rng(n, 22)
    X = r.normal(size=(3 * n, n))
    y = X @ r.normal(size=n) + r.normal(size=3 * n) * 0.3
    N = 3 * n

    def f(params):
        alpha, beta, m0 = np.exp(params[0]), np.exp(params[1]), params[2:]
        A = alpha * np.eye(n) + beta * np.dot(X.T, X)
        mean = np.linalg.solve(A, beta * np.dot(X.T, y) + alpha * m0)
        resid = y - np.dot(X, mean)
        _sign, logdet = np.linalg.slogdet(A)
        evidence = (0.5 * n * np.log(alpha) + 0.5 * N * np.log(beta)
                    - 0.5 * beta * np.sum(resid**2) - 0.5 * alpha * np.sum((mean - m0) ** 2)
                    - 0.5 * logdet - 0.5 * N * np.log(2 * np.pi))  # fmt: skip
        return -evidence + 0.01 * np.trace(np.linalg.inv(A))

    return case(f, (numpy.concatenate([[0.2, -0.3], r.normal(size=n) * 0.2]),), True)


@program(3, 10)
def ag_natural_gradient_fisher(n):
    """A natural-gradient step's length for logistic regression (Amari 1998): per-example
    gradients ``(σ(xᵀw) − t) x`` by ``np.outer``-free broadcasting, the empirical Fisher
    ``np.einsum("ni,nj->ij", G, G) / N`` plus damping, ``gᵀ (F + λI)⁻¹ g`` by
    ``np.linalg.solve``, plus the loss (a scalar of the weights)."""
    r = _rng(n, 23)
    X = r.normal(size=(8, n))
    t = (r.uniform(size=8) > 0.5).astype(float)

    def f(w):
        p = sigmoid(np.dot(X, w))
        G = (p - t)[:, None] * X
        g = np.mean(G, axis=0)
        F = np.einsum("ni,nj->ij", G, G) / len(t) + 0.1 * np.eye(n)
        loss = -np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))
        return loss + np.dot(g, np.linalg.solve(F, g))

    return case(f, (data(r, n, scale=0.5),), True)


# ---------------------------------------------------------------- fluid simulation


def project(vx, vy, iters=5):
    """The pressure projection of ``fluidsim.py``: Jacobi sweeps on a periodic grid."""
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                      + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))  # fmt: skip
    p = np.zeros(vx.shape)
    for _ in range(iters):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
             + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0  # fmt: skip
    vx = vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy = vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """Semi-Lagrangian advection: each cell's value interpolated bilinearly at the point
    the velocity came from, its cell found by ``np.floor(...).astype(int)`` and ``np.mod``
    (indices that depend on the unknowns)."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix, right_ix = np.mod(left_ix, rows), np.mod(left_ix + 1, rows)
    top_ix, bot_ix = np.mod(top_ix, cols), np.mod(top_ix + 1, cols)
    flat = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) + rw * (
        (1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix]
    )
    return np.reshape(flat, (rows, cols))


@program(4, 8)
def ag_fluidsim_advect(n):
    """autograd's ``fluidsim.py`` on an ``n × n`` grid: the unknown initial velocities
    projected, then 2 steps of advecting the smoke and the velocities and projecting, the
    squared distance of the final smoke to a target."""
    r = _rng(n, 4)
    smoke = r.uniform(size=(n, n))
    target = r.uniform(size=(n, n))

    def f(v):
        vx, vy = project(np.reshape(v[: n * n], (n, n)), np.reshape(v[n * n :], (n, n)))
        s = smoke
        for _ in range(2):
            vx2, vy2 = advect(vx, vx, vy), advect(vy, vx, vy)
            vx, vy = project(vx2, vy2)
            s = advect(s, vx, vy)
        return np.sum((s - target) ** 2)

    return case(f, (data(r, 2 * n * n, scale=0.3),), True)


# ---------------------------------------------------------------- probabilistic models


@program(5, 20)
def ag_gaussian_process_mvn(n):
    """autograd's ``gaussian_process.py``: the log marginal likelihood
    ``mvn.logpdf(y, mean · 1, K + noise I)`` of ``n`` points in 1-D, the RBF covariance by
    ``np.expand_dims`` differences; unknowns: mean, log noise, log scale, log length."""
    r = _rng(n, 5)
    X = numpy.linspace(-2.0, 2.0, n)[:, None]
    y = numpy.sin(X[:, 0]) + r.normal(size=n) * 0.1

    def rbf(kernel_params, x, xp):
        output_scale = np.exp(kernel_params[0])
        lengthscales = np.exp(kernel_params[1:])
        diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
        return output_scale * np.exp(-0.5 * np.sum(diffs**2, axis=2))

    def f(params):
        mean, noise = params[0], np.exp(params[1]) + 0.0001
        cov = rbf(params[2:], X, X) + noise * np.eye(len(y))
        return mvn.logpdf(y, mean * np.ones(len(y)), cov)

    return case(f, (numpy.array([0.1, -1.0, 0.2, -0.1]),), True)


@program(6, 30)
def ag_gmm_mvn_cholesky(n):
    """autograd's ``gmm.py``: a 2-component Gaussian mixture of ``n`` 2-D points, each
    covariance ``chol chol.T`` of an unknown lower triangle (``np.tril``), the component
    log-densities ``mvn.logpdf(data, mean, cov)`` of the rows, weights by a log-softmax,
    the negative log-likelihood by ``logsumexp(..., axis=1)``."""
    r = _rng(n, 20)
    pts = r.normal(size=(n, 2))

    def f(params):
        log_w = params[:2] - logsumexp(params[:2])
        means = np.reshape(params[2:6], (2, 2))
        chols = np.reshape(params[6:], (2, 2, 2))
        lls = [
            log_w[k] + mvn.logpdf(pts, means[k], np.dot(np.tril(chols[k]), np.tril(chols[k]).T))
            for k in range(2)
        ]
        return -np.sum(logsumexp(np.array(lls).T, axis=1))

    p0 = numpy.concatenate([[0.1, -0.2], r.normal(size=4) * 0.5,
                            numpy.array([1.0, 0.3, 0.0, 0.8, 0.7, -0.2, 0.0, 1.2])])  # fmt: skip
    return case(f, (p0,), True)


@program(4, 30)
def ag_expected_improvement(n):
    """autograd's ``bayesian_optimization.py``: the expected improvement of ``n`` query
    points under a GP posterior of fixed data (``np.linalg.solve`` of the constant kernel
    matrix, the predictive variance), ``norm.cdf`` and ``norm.pdf`` of the standardised
    improvement (a vector: one value per query)."""
    r = _rng(n, 6)
    Xd = numpy.linspace(-1.5, 1.5, 5)
    yd = numpy.cos(2 * Xd) + r.normal(size=5) * 0.05
    K = numpy.exp(-0.5 * (Xd[:, None] - Xd[None, :]) ** 2 / 0.3) + 1e-3 * numpy.eye(5)
    best = yd.min()

    def f(x):
        Ks = np.exp(-0.5 * (Xd[:, None] - x[None, :]) ** 2 / 0.3)
        mean = np.dot(Ks.T, np.linalg.solve(K, yd))
        var = 1.0 + 1e-3 - np.sum(Ks * np.linalg.solve(K, Ks), axis=0)
        std = np.sqrt(var)
        z = (best - mean) / std
        return std * (z * norm.cdf(z) + norm.pdf(z))

    return case(f, (r.uniform(-1.2, 1.2, size=n) + 0.05,), False)


@program(5, 40)
def ag_black_box_svi(n):
    """autograd's ``black_box_svi.py``: a diagonal Gaussian's ``-(entropy + mean log
    density)`` of Neal's funnel (``norm.logpdf(log_sigma, 0, 1.35)`` and
    ``norm.logpdf(mu, 0, np.exp(log_sigma))``) at ``n`` fixed reparametrised samples;
    unknowns: the mean and log standard deviation (4)."""
    r = _rng(n, 7)
    eps = r.normal(size=(n, 2))
    D = 2

    def log_density(x):
        mu, log_sigma = x[:, 0], x[:, 1]
        return norm.logpdf(log_sigma, 0, 1.35) + norm.logpdf(mu, 0, np.exp(log_sigma))

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def f(params):
        mean, log_std = params[:D], params[D:]
        samples = eps * np.exp(log_std) + mean
        return -(gaussian_entropy(log_std) + np.mean(log_density(samples)))

    return case(f, (numpy.array([0.3, -0.2, -0.5, 0.1]),), True)


@program(4, 40)
def ag_mixture_logsumexp(n):
    """``mixture_variational_inference.py``'s mixture density: the log-density of ``n``
    points under a 3-component Gaussian mixture, ``logsumexp(np.log(w) +
    norm.logpdf(x[:, None], mu, sd), axis=1)``, summed (the points unknown)."""
    w = numpy.array([0.2, 0.5, 0.3])
    mu = numpy.array([-1.0, 0.2, 1.5])
    sd = numpy.array([0.5, 0.8, 0.3])

    def f(x):
        return np.sum(logsumexp(np.log(w) + norm.logpdf(x[:, None], mu, sd), axis=1))

    return case(f, (data(_rng(n, 8), n),), True)


@program(4, 40)
def ag_logistic_tutorial(n):
    """autograd's README tutorial: ``sigmoid(x) = 0.5 (tanh(x/2) + 1)``,
    ``logistic_predictions(weights, inputs)``, the label probabilities ``preds · targets +
    (1 − preds)(1 − targets)`` and ``-np.sum(np.log(...))``."""
    r = _rng(n, 9)
    inputs = r.normal(size=(8, n))
    targets = (r.uniform(size=8) > 0.5).astype(float)

    def logistic_predictions(weights, inputs):
        return sigmoid(np.dot(inputs, weights))

    def f(weights):
        preds = logistic_predictions(weights, inputs)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -np.sum(np.log(label_probabilities))

    return case(f, (data(r, n, scale=0.5),), True)


@program(6, 60)
def ag_hmm_forward(n):
    """A hidden Markov model's forward algorithm in log space: initial, transition and
    emission logits normalised by ``logsumexp(..., keepdims=True)``, ``n`` observations,
    ``log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]`` in a
    Python loop, the negative log-likelihood (2 states, 3 symbols)."""
    r = _rng(n, 10)
    K, V = 2, 3
    obs = r.integers(0, V, size=n)

    def f(params):
        log_pi = params[:K] - logsumexp(params[:K])
        A = np.reshape(params[K : K + K * K], (K, K))
        B = np.reshape(params[K + K * K :], (K, V))
        log_A = A - logsumexp(A, axis=1, keepdims=True)
        log_B = B - logsumexp(B, axis=1, keepdims=True)
        log_alpha = log_pi + log_B[:, obs[0]]
        for t in range(1, n):
            log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
        return -logsumexp(log_alpha)

    return case(f, (data(r, K + K * K + K * V, scale=0.5),), True)


@program(6, 60)
def ag_negbin_maxlike(n):
    """autograd's ``negative_binomial_maxlike.py``: ``gammaln(r + x) − gammaln(r) −
    gammaln(x + 1) + x log p + r log(1 − p)`` with ``r = exp(θ₀)`` and ``p = sigmoid(θ₁)``
    over ``n`` counts (a scalar of the two parameters)."""
    counts = _rng(n, 11).integers(0, 8, size=n).astype(float)

    def negbin_loglike(r, p, x):
        return gammaln(r + x) - gammaln(r) - gammaln(x + 1) + x * np.log(p) + r * np.log(1 - p)

    def f(params):
        return -np.sum(negbin_loglike(np.exp(params[0]), sigmoid(params[1]), counts))

    return case(f, (numpy.array([0.4, -0.3]),), True)


@program(4, 40)
def ag_tanh_elementwise_grad(n):
    """autograd's ``tanh.py``: ``elementwise_grad(elementwise_grad(np.tanh))`` (the second
    derivative of tanh, by autograd itself) inside a function, a weighted sum of it."""
    r = _rng(n, 12)
    c = r.normal(size=n)

    def f(x):
        return np.sum(egrad(egrad(np.tanh))(x) * c) + np.sum(np.tanh(x) ** 2)

    second = jax.vmap(jax.grad(jax.grad(jnp.tanh)))
    return case(f, (data(r, n),), True, egrad=lambda g: second)
