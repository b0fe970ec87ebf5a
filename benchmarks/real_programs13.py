"""Real programs through dgraph's public API, a fourteenth survey beside ``real_programs.py``
… ``real_programs12.py`` and ``real_programs_hessian.py``: JAX APIs, idioms and domains those
do not hold. A Gaussian process's marginal likelihood by ``jax.scipy.linalg.solve(assume_a=
"pos")`` and ``jnp.linalg.det``; Neo-Hookean hyperelasticity (``jnp.linalg.det``, ``inv``,
``jnp.trace`` under ``jax.vmap``); soil-water retention laws chosen per cell by ``lax.switch``
inside ``jax.vmap``; a sensor fit with missing data by ``jnp.nanmean``/``jnp.nansum``; a
complex-step derivative (``jnp.imag`` of ``f(x + ih)``) used as a feature; CVaR by
``jnp.quantile``; a ``jax.custom_vjp`` stable softplus; meteorology (``jnp.hypot``,
``jnp.cbrt``, ``jnp.expm1``, ``jnp.log10``, ``jnp.exp2``); MAML's inner step by ``jax.grad``
inside the objective; a Chebyshev series under ``jax.jit(static_argnames=...)``; a float32
``selu``/``celu``/``jax.nn.standardize`` MLP; a periodic Poisson solve by ``jnp.fft.fft2`` /
``ifft2``; a Pearson loss by ``jnp.corrcoef``/``jnp.cov``/``jnp.average(weights=)``; a KKT
system assembled by ``jnp.block`` and ``jnp.linalg.multi_dot``; image registration by
``jax.scipy.ndimage.map_coordinates``; upsampling by ``jnp.repeat``/``jnp.tile``; and order
statistics by a two-operand ``lax.sort``.

Columns are real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``),
every value against ``jax.jacfwd`` / ``jax.hessian`` of the reference, relative 1e-8
(1e-5 for a program whose name ends in ``_f32``).

    python benchmarks/real_programs13.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.ndimage as jnd
import numpy as np
from jax import lax
from real_programs_harness import MODES_SIZED, SizedSurvey, data, jax_case, registry, small_cases

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(44)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 31)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- statistics, learning


@program(6, 60)
def gp_marginal_likelihood(n):
    """A Gaussian process's negative log marginal likelihood with a squared-exponential
    kernel: ``½ yᵀK⁻¹y + ½ log det K`` by ``jax.scipy.linalg.solve(K, y, assume_a="pos")``
    and ``jnp.log(jnp.linalg.det(K))``; unknowns: log length scale, log signal and noise
    variances, and the ``n`` training inputs (a scalar)."""
    r = _rng(n)
    y = jnp.asarray(np.sin(np.linspace(0, 3, n)) + 0.1 * r.normal(size=n))

    def f(z):
        ell, sf2, sn2 = jnp.exp(z[0]), jnp.exp(z[1]), jnp.exp(z[2])
        x = z[3:]
        d2 = (x[:, None] - x[None, :]) ** 2
        K = sf2 * jnp.exp(-0.5 * d2 / ell**2) + sn2 * jnp.eye(n)
        alpha = jsl.solve(K, y, assume_a="pos")
        return 0.5 * y @ alpha + 0.5 * jnp.log(jnp.linalg.det(K))

    z = np.concatenate([[-0.3, 0.1, -2.0], np.linspace(0, 3, n) + 0.05 * r.normal(size=n)])
    return jax_case(f, (z,), True)


@program(6, 300)
def nanmean_missing_sensors(n):
    """A calibration fit to sensor readings with missing values (NaN in the data): the
    residuals ``A x − y`` averaged by ``jnp.nanmean`` (NaN rows skipped), a per-channel
    ``jnp.nansum`` of squared residuals weighted, and a ridge term (a scalar of ``x``)."""
    r = _rng(n)
    m = 2 * n
    A = jnp.asarray(r.normal(size=(m, n)))
    y = r.normal(size=m)
    y[::3] = np.nan
    y = jnp.asarray(y)
    w = jnp.asarray(1.0 + r.uniform(size=m))

    def f(x):
        res = A @ x - y
        return jnp.nanmean(res**2) + 0.1 * jnp.nansum(w * res**2) / m + 1e-2 * x @ x

    return jax_case(f, (data(r, n),), True)


@program(16, 400)
def cvar_quantile(n):
    """A portfolio's conditional value at risk (Rockafellar–Uryasev) at 90 %: weights
    ``softmax(z)``, scenario losses ``−R w``, the VaR by ``jnp.quantile(loss, 0.9)`` and
    ``VaR + mean(relu(loss − VaR)) / 0.1`` (a scalar of the ``n`` logits)."""
    r = _rng(n)
    R = jnp.asarray(0.01 + 0.05 * r.normal(size=(40, n)))

    def f(z):
        w = jax.nn.softmax(z)
        loss = -R @ w
        var = jnp.quantile(loss, 0.9)
        return var + jnp.mean(jax.nn.relu(loss - var)) / 0.1

    return jax_case(f, (data(r, n, scale=0.3),), True)


@jax.custom_vjp
def _softplus_stable(x):
    return jnp.logaddexp(x, 0.0)


def _softplus_fwd(x):
    return _softplus_stable(x), x


def _softplus_bwd(x, g):
    return (g * jax.nn.sigmoid(x),)


_softplus_stable.defvjp(_softplus_fwd, _softplus_bwd)


@program(8, 1000)
def custom_vjp_softplus(n):
    """A Poisson GLM's negative log-likelihood with the rate ``softplus(Xβ)`` computed by a
    user ``jax.custom_vjp`` function (its backward rule ``g·sigmoid(x)``, the true
    derivative): ``Σ μ − y log μ``; unknowns: ``n`` coefficients (a scalar). The reference is
    the same formula without the custom rule (``jax.jacfwd`` refuses a ``custom_vjp``)."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(3 * n, n)) / np.sqrt(n))
    y = jnp.asarray(r.poisson(2.0, size=3 * n).astype(float))

    def make(sp):
        def f(b):
            mu = sp(X @ b)
            return jnp.sum(mu - y * jnp.log(mu))

        return f

    b = data(r, n, scale=0.5)
    return (make(_softplus_stable), (b,), True, make(lambda t: jnp.logaddexp(t, 0.0)))


@program(3, 20)
def maml_inner_grad(n):
    """MAML (Finn et al. 2017): one inner gradient step ``w' = w − α ∇L_train(w)`` by
    ``jax.grad`` inside the objective, the outer loss ``L_val(w')`` of a linear-tanh model on
    ``n`` features (a scalar of ``w``; its Hessian needs third derivatives)."""
    r = _rng(n)
    Xt, Xv = jnp.asarray(r.normal(size=(8, n))), jnp.asarray(r.normal(size=(8, n)))
    yt, yv = jnp.asarray(r.normal(size=8)), jnp.asarray(r.normal(size=8))

    def loss(w, X, y):
        return jnp.mean((jnp.tanh(X @ w) - y) ** 2)

    def f(w):
        g = jax.grad(loss)(w, Xt, yt)
        return loss(w - 0.5 * g, Xv, yv)

    return jax_case(f, (data(r, n, scale=0.5),), True)


@program(4, 200)
def selu_standardize_mlp_f32(n):
    """A float32 MLP (the arguments cast by ``astype(jnp.float32)``): ``jax.nn.standardize``
    of the inputs, a ``jax.nn.selu`` then a ``jax.nn.celu`` layer, a float32 vector of
    outputs; the unknowns are the ``n`` samples' three features."""
    r = _rng(n)
    W1 = jnp.asarray(r.normal(size=(3, 5)) * 0.6, dtype=jnp.float32)
    W2 = jnp.asarray(r.normal(size=(5, 2)) * 0.6, dtype=jnp.float32)

    def f(x):
        X = x.astype(jnp.float32).reshape(n, 3)
        Z = jax.nn.standardize(X, axis=0, epsilon=1e-3)
        H = jax.nn.selu(Z @ W1)
        return jax.nn.celu(H @ W2, alpha=0.5).ravel()

    return jax_case(f, (data(r, 3 * n),), False)


@program(6, 1000)
def pearson_corrcoef_loss(n):
    """A correlation loss as used for ranking/IC objectives: ``1 − jnp.corrcoef(pred, y)[0,
    1]`` of a linear model's predictions, ``jnp.cov`` of predictions and targets, and a
    ``jnp.average(err², weights=w)``; unknowns: 4 coefficients and ``n`` per-sample shifts
    (a scalar)."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(n, 4)))
    y = jnp.asarray(r.normal(size=n))
    wts = jnp.asarray(1.0 + r.uniform(size=n))

    def f(z):
        pred = X @ z[:4] + 0.1 * z[4:]
        rho = jnp.corrcoef(pred, y)[0, 1]
        c = jnp.cov(jnp.stack([pred, y]))
        return 1.0 - rho + 0.1 * c[0, 1] ** 2 + jnp.average((pred - y) ** 2, weights=wts)

    return jax_case(f, (data(r, n + 4, scale=0.5),), True)


# ---------------------------------------------------------------- mechanics, physics


@program(3, 100)
def neo_hookean_det_inv(n):
    """Compressible Neo-Hookean elements under ``jax.vmap``: deformation gradients ``F =
    I + H`` of ``n`` elements, ``J = jnp.linalg.det(F)``, ``I₁ = jnp.trace(FᵀF)``, the
    first Piola stress ``μ(F − F⁻ᵀ) + λ log J F⁻ᵀ`` by ``jnp.linalg.inv`` and the energy
    density: a vector (``9n`` stresses and ``n`` energies)."""
    mu, lam = 1.0, 3.0

    def element(h):
        F = jnp.eye(3) + h.reshape(3, 3)
        J = jnp.linalg.det(F)
        FinvT = jnp.linalg.inv(F).T
        I1 = jnp.trace(F.T @ F)
        W = 0.5 * mu * (I1 - 3) - mu * jnp.log(J) + 0.5 * lam * jnp.log(J) ** 2
        P = mu * (F - FinvT) + lam * jnp.log(J) * FinvT
        return jnp.concatenate([P.ravel(), W[None]])

    def f(x):
        out = jax.vmap(element)(x.reshape(n, 9))
        return jnp.concatenate([out[:, :9].ravel(), out[:, 9]])

    return jax_case(f, (data(_rng(n), 9 * n, scale=0.15),), False)


@program(9, 600)
def switch_retention_vmap(n):
    """Soil-water retention by cell type: ``lax.switch(kind, [van Genuchten, Brooks–Corey,
    linear], h)`` inside ``jax.vmap`` over ``n`` cells (``kind`` fixed data, so the switch
    becomes a select), the saturation of each cell's suction head ``h = exp(z)``: a vector."""
    kinds = jnp.asarray(np.arange(n) % 3)

    def van_genuchten(h):
        return (1 + (0.5 * h) ** 1.6) ** (-(1 - 1 / 1.6))

    def brooks_corey(h):
        return jnp.where(h > 0.3, (0.3 / h) ** 0.8, 1.0)

    def linear(h):
        return jnp.clip(1 - 0.2 * h, 0.0, 1.0)

    def cell(k, z):
        return lax.switch(k, [van_genuchten, brooks_corey, linear], jnp.exp(z))

    def f(z):
        return jax.vmap(cell)(kinds, z)

    z = np.log(np.linspace(0.4, 3.0, n)) + 0.01 * _rng(n).normal(size=n)
    return jax_case(f, (z,), False)


@program(8, 1000)
def meteorology_hypot_cbrt(n):
    """Surface-layer meteorology per station: wind speed ``jnp.hypot(u, v)``, the convective
    velocity scale ``w* = jnp.cbrt(g/T · H · zᵢ)``, Magnus's saturation vapour pressure via
    ``jnp.expm1`` of the dew point offset, relative humidity in dB-like ``jnp.log10`` and a
    half-life decay ``jnp.exp2(−t/τ)``: a vector of ``4n``."""
    r = _rng(n)
    T = jnp.asarray(285.0 + 5 * r.uniform(size=n))

    def f(x):
        u, v, H, td = x[:n], x[n : 2 * n], x[2 * n : 3 * n], x[3 * n :]
        speed = jnp.hypot(u, v)
        wstar = jnp.cbrt(9.81 / T * H * 1000.0)
        es = 6.112 * jnp.exp(17.67 * (T - 273.15) / (T - 29.65))
        e = es * (1 + jnp.expm1(17.67 * td / (td + 243.5)) * 0.01)
        rh = 10 * jnp.log10(e / es)
        decay = jnp.exp2(-speed / 3.0) * wstar
        return jnp.concatenate([speed, wstar, rh, decay])

    x = np.concatenate([r.normal(size=n) * 3, r.normal(size=n) * 3,
                        50 + 100 * r.uniform(size=n), 5 + 5 * r.uniform(size=n)])  # fmt: skip
    return jax_case(f, (x,), False)


@program(4, 16)
def spectral_poisson_fft2(n):
    """A periodic Poisson problem ``−Δu = ρ − ρ̄`` on an ``n×n`` grid solved spectrally:
    ``jnp.fft.fft2`` of the density, division by ``|k|²`` (the mean mode zeroed by a
    ``where``), ``jnp.real(jnp.fft.ifft2(...))``; the potential and its electrostatic energy
    ``½ Σ u ρ h²`` (a vector of ``n² + 1``)."""
    k = 2 * np.pi * np.fft.fftfreq(n, d=1.0 / n)
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    k2 = jnp.asarray(np.where(k2 == 0, 1.0, k2))
    zero = jnp.asarray(np.arange(n * n).reshape(n, n) == 0)
    h = 1.0 / n

    def f(x):
        rho = x.reshape(n, n)
        rhat = jnp.fft.fft2(rho - rho.mean())
        uhat = jnp.where(zero, 0.0, rhat / k2)
        u = jnp.real(jnp.fft.ifft2(uhat))
        return jnp.concatenate([u.ravel(), (0.5 * jnp.sum(u * rho) * h * h)[None]])

    return jax_case(f, (data(_rng(n), n * n),), False)


@program(3, 30)
def complex_step_feature(n):
    """A complex-step derivative (Squire & Trapp 1998) inside a model: the sensitivity of
    a damped oscillator's response ``g(x) = e^{−x/4} sin(x)`` taken as
    ``jnp.imag(g(x + i·h)) / h`` (``h = 1e-20``), with ``jnp.abs`` and ``jnp.conj`` of a
    complex transfer function ``1 / (1 − ω²/x² + 0.3 i ω/x)``: a vector of ``3n``."""
    hstep = 1e-20
    omega = jnp.asarray(np.linspace(0.5, 2.0, n))

    def g(t):
        return jnp.exp(-t / 4) * jnp.sin(t)

    def f(x):
        sens = jnp.imag(g(x + 1j * hstep)) / hstep
        H = 1.0 / (1.0 - omega**2 / x**2 + 0.3j * omega / x)
        mag2 = jnp.real(H * jnp.conj(H))
        return jnp.concatenate([sens, jnp.abs(H), mag2])

    return jax_case(f, (1.0 + _rng(n).uniform(size=n),), False)


# ---------------------------------------------------------------- numerics, images


@functools.partial(jax.jit, static_argnames=("order",))
def _chebyshev(c, x, order):
    t_prev, t = jnp.ones_like(x), x
    acc = c[0] * t_prev + c[1] * t
    for k in range(2, order):
        t_prev, t = t, 2 * x * t - t_prev
        acc = acc + c[k] * t
    return acc


@program(8, 500)
def chebyshev_static_order(n):
    """A Chebyshev series of a static integer order by the three-term recurrence, a
    ``jax.jit(static_argnames=("order",))`` function called with ``order=6``; unknowns: the
    6 coefficients and the ``n`` points in ``(−1, 1)`` (a vector of ``n``)."""

    def f(z):
        return _chebyshev(z[:6], jnp.tanh(z[6:]), order=6)

    z = np.concatenate([data(_rng(n), 6), np.linspace(-1.5, 1.5, n)])
    return jax_case(f, (z,), False)


@program(3, 40)
def kkt_block_multidot(n):
    """An equality-constrained least-squares step: the KKT matrix ``[[Q, Aᵀ], [A, 0]]`` built
    by ``jnp.block``, ``Q = diag(e^θ) + jnp.linalg.multi_dot([B, D, Bᵀ])``, solved by
    ``jnp.linalg.solve``; unknowns: ``θ`` and the right-hand side ``g`` (a vector: the step
    and the multipliers)."""
    r = _rng(n)
    B = jnp.asarray(r.normal(size=(n, 2)))
    D = jnp.asarray(np.diag([1.0, 0.5]))
    A = jnp.asarray(r.normal(size=(2, n)))

    def f(z):
        th, g = z[:n], z[n:]
        Q = jnp.diag(jnp.exp(th)) + jnp.linalg.multi_dot([B, D, B.T])
        K = jnp.block([[Q, A.T], [A, jnp.zeros((2, 2))]])
        rhs = jnp.concatenate([-g, jnp.zeros(2)])
        return jnp.linalg.solve(K, rhs)

    return jax_case(f, (data(r, 2 * n, scale=0.5),), False)


@program(5, 24)
def map_coordinates_registration(n):
    """Image registration: a moving ``n×n`` image warped by a displacement field (the
    unknowns, ``2n²``) through ``jax.scipy.ndimage.map_coordinates(img, coords, order=1,
    mode="nearest")``, the sum of squared differences to a fixed image plus a smoothness
    penalty on the field (a scalar)."""
    r = _rng(n)
    yy, xx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    moving = jnp.asarray(np.sin(0.7 * xx) + np.cos(0.5 * yy))
    fixed = jnp.asarray(np.sin(0.7 * (xx + 0.3)) + np.cos(0.5 * (yy - 0.2)))
    grid = jnp.asarray(np.stack([yy, xx]).astype(float))

    def f(d):
        disp = d.reshape(2, n, n)
        warped = jnd.map_coordinates(moving, list(grid + disp), order=1, mode="nearest")
        smooth = jnp.sum(jnp.diff(disp, axis=1) ** 2) + jnp.sum(jnp.diff(disp, axis=2) ** 2)
        return jnp.sum((warped - fixed) ** 2) + 0.1 * smooth

    d = 0.3 + 0.1 * r.uniform(size=2 * n * n)  # no sample on an integer coordinate
    return jax_case(f, (d,), True)


@program(4, 300)
def repeat_tile_upsample(n):
    """A 1-D decoder: nearest-neighbour upsampling by ``jnp.repeat(x, 2)``, a learned
    positional bias ``jnp.tile(b, n)``, a 3-tap smoothing by slices, and ``tanh``; unknowns:
    the ``n`` codes and the 2 biases (a vector of ``2n``)."""

    def f(z):
        x, b = z[:n], z[n:]
        up = jnp.repeat(x, 2) + jnp.tile(b, n)
        pad = jnp.concatenate([up[:1], up, up[-1:]])
        return jnp.tanh(0.25 * pad[:-2] + 0.5 * pad[1:-1] + 0.25 * pad[2:])

    return jax_case(f, (data(_rng(n), n + 2),), False)


@program(8, 500)
def lax_sort_two_operands(n):
    """An L-statistic (a trimmed, weighted order statistic): ``lax.sort((key, value),
    num_keys=1)`` sorts the values ``x²`` by a key ``x + c`` that depends on the unknowns
    too, then weights the sorted values by fixed ranks' weights (a scalar of ``x``)."""
    c = jnp.asarray(np.linspace(0.0, 1.0, n))
    wts = jnp.asarray(np.hanning(n + 2)[1:-1])

    def f(x):
        _, v = lax.sort((x + c, x**2), num_keys=1)
        return wts @ v

    return jax_case(f, (data(_rng(n), n),), True)


# ---------------------------------------------------------------- the survey

#: each program at its small size, under its name (``dgraph codegen real_programs13.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    survey = SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED)
    survey.main(sys.argv[1:])
