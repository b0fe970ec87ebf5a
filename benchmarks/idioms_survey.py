"""A survey of NumPy, scipy and JAX idioms one line each (session 35), beside the
program surveys ``benchmarks/real_programs*.py``: the functions users call inside an
objective (``np.cov``, ``np.percentile``, ``np.linalg.qr``, ``scipy.stats.norm.logpdf``,
``jnp.copysign``, ``jax.nn.gelu``, ...), each in a small scalar function of six unknowns
whose Hessian ``dgraph.hessian`` gives: ok / refused (one line) / WRONG / ERROR. NumPy
functions are checked against central differences of the function itself (steps 1e-4,
tolerance 1e-4 absolute and relative: a rule made wrong differs by far more; the point
keeps every kink a step away), JAX functions against ``jax.hessian``.

    python benchmarks/idioms_survey.py [NAME ...]
"""

from __future__ import annotations

import sys
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.special as jsps
import jax.scipy.stats as jst
import numpy as np
import scipy.special as sps
from jax import lax
from scipy import stats
from scipy.special import log_softmax, logsumexp, softmax

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)

X = np.array([0.31, -0.69, 1.13, 0.52, -0.41, 0.93])
C = np.random.default_rng(1).normal(size=(6, 6))

# ---------------------------------------------------------------- NumPy and scipy


def array_of_scalars(x):
    return np.sum(np.array([x[0] ** 2, x[1] * x[2], np.sin(x[3])]) ** 2)


def softmax_sp(x):
    return np.sum(sps.softmax(x) * sps.log_softmax(x)) + np.sum(
        softmax(x) ** 2 + log_softmax(x) ** 2
    )


def cov(x):
    return np.sum(np.cov(x.reshape(2, 3)) ** 2)


def corrcoef(x):
    return np.sum(np.corrcoef(x.reshape(2, 3)) ** 2)


def nanmax(x):
    return np.nanmax(x**2) + np.nanmin(x**3) + np.nanmean(x**2)


def round_floor(x):
    return np.sum(np.floor(x) * x**2 + np.round(x, 1) * x + np.around(x) * x + np.rint(x) * x)


def isclose_where(x):
    return np.sum(np.where(np.isclose(x, 0.0), 1.0, np.sin(x) / x))


def ptp(x):
    return np.ptp(x**2) + np.sum(np.ptp(x.reshape(2, 3), axis=0) ** 2)


def lstsq(x):
    A = np.arange(18.0).reshape(6, 3) ** 0.5
    return np.sum(np.linalg.lstsq(A, x, rcond=None)[0] ** 2)


def qr(x):
    return np.sum(np.linalg.qr(x.reshape(3, 2) + np.eye(3, 2))[1] ** 2)


def einsum_ellipsis(x):
    M = x.reshape(2, 3)
    return np.sum(np.einsum("...i,...i->...", M, M) ** 2) + np.einsum("ij,ij", M, M)


def tensordot(x):
    M = x.reshape(2, 3)
    return np.sum(np.tensordot(M, M, axes=([1], [1])) ** 2)


def norms(x):
    M = x.reshape(2, 3)
    return (
        np.linalg.norm(x, 1)
        + np.linalg.norm(M, "fro") ** 2
        + np.linalg.norm(x, np.inf)
        + np.linalg.norm(x, 3)
    )


def ffts(x):
    return (
        np.sum(np.abs(np.fft.ifft(x)) ** 2)
        + np.sum(np.fft.irfft(np.fft.rfft(x)) ** 2)
        + np.sum(np.abs(np.fft.fft2(x.reshape(2, 3))) ** 2)
    )


def shapes(x):
    M = x.reshape(2, 3)
    return (
        np.sum(np.tile(M, (2, 1)) ** 2 * np.repeat(np.arange(4.0), 3).reshape(4, 3))
        + np.sum(np.fliplr(M) * np.flipud(M))
        + np.sum(np.moveaxis(M[None], 0, -1) ** 3)
        + np.sum(np.atleast_2d(x) ** 2)
    )


def select(x):
    return np.sum(np.select([x < -0.5, x > 0.5], [x**2, np.sin(x)], default=x**3))


def logical(x):
    m = np.logical_and(x > -0.5, x < 0.8) | (x > 1.0)
    return np.sum(np.where(m, x**2, np.exp(x)))


def special1(x):
    y = x**2 + 0.5
    return np.sum(sps.gamma(y) + sps.beta(y, 2.0) + sps.betaln(y, y) + sps.expm1(x) + sps.log1p(y))


def special2(x):
    p = 1.0 / (1.0 + np.exp(-x))
    return np.sum(sps.erfinv(p - 0.5) + sps.ndtr(x) + sps.ndtri(p) + sps.i0(x) + sps.i1(x))


def special3(x):
    y = x**2 + 1.5
    return np.sum(sps.polygamma(1, y) + sps.zeta(y, 1.0) + sps.multigammaln(y + 2.0, 2))


def logsumexp_b(x):
    return logsumexp(x, b=np.arange(1.0, 7.0)) + logsumexp(x.reshape(2, 3), axis=1).sum()


def stats_norm(x):
    return np.sum(stats.norm.logpdf(x, loc=0.1, scale=2.0)) + np.sum(stats.norm.cdf(x))


def stats_t(x):
    return np.sum(stats.t.logpdf(x, df=3.0)) + np.sum(stats.gamma.logpdf(x**2 + 0.5, a=2.0))


def maximum_reduce(x):
    return np.maximum.reduce([x**2, np.sin(x), x]).sum() + np.minimum(x, 0.3).sum() ** 2


def take_put(x):
    return np.sum(np.take(x, [0, 2, 2, 5]) ** 2) + np.sum(
        np.take(x.reshape(2, 3), [1, 0], axis=1) ** 3
    )


def digitize(x):
    k = np.digitize(x, np.array([-1.0, 0.0, 1.0]))
    return np.sum(x**2 * k)


def broadcast(x):
    return np.sum(np.broadcast_to(x[:3], (4, 3)) * np.arange(12.0).reshape(4, 3)) ** 2 + np.sum(
        np.expand_dims(x, 0) ** 2
    )


def allclose_branch(x):
    if np.allclose(x[0], 0.0):
        return np.sum(x**2)
    return np.sum(x**3)


def all_any(x):
    return np.sum(
        np.where(np.all(x.reshape(2, 3) > -1.0, axis=1, keepdims=True), x.reshape(2, 3) ** 2, 0.0)
    )


def cumulative_trapz(x):
    return np.sum(np.cumsum(x) * np.diff(np.concatenate([[0.0], x])))


def linspace_traced(x):
    return np.sum(np.linspace(0.0, x[0], 5) ** 2) + x[1] ** 2


def matrix_funcs(x):
    M = x[:4].reshape(2, 2)
    return np.sum(np.linalg.matrix_power(M, 2)) + np.linalg.cond(M + 3 * np.eye(2))


def outer_ufunc(x):
    return np.sum(np.subtract.outer(x, x) ** 2) + np.sum(np.multiply.outer(x, x[:2]))


def dot_variants(x):
    M = x.reshape(2, 3)
    return (
        np.sum(np.dot(M, x[:3]))
        + np.sum(M.dot(M.T) ** 2)
        + np.matmul(x, x)
        + np.sum(np.linalg.multi_dot([M, M.T, M]))
    )


def sqrt_abs_sign(x):
    return np.sum(np.sqrt(np.abs(x) + 1e-3) * np.sign(x)) + np.sum(np.copysign(x**2, x))


def float_ops(x):
    return np.sum(
        np.power(np.abs(x) + 1, 1.5)
        + np.float_power(x**2 + 1, 0.5)
        + np.square(x)
        + np.reciprocal(x**2 + 1)
    )


def fft_ifft(x):
    return np.sum(np.abs(np.fft.ifft(x)) ** 2)


def fft_irfft(x):
    return np.sum(np.fft.irfft(np.fft.rfft(x)) ** 2)


def fft_fft2(x):
    return np.sum(np.abs(np.fft.fft2(x.reshape(2, 3))) ** 2)


def sp_multigammaln(x):
    return np.sum(sps.multigammaln(x**2 + 2.0, 2))


def sp_polygamma(x):
    return np.sum(sps.polygamma(1, x**2 + 1.5))


def sp_zeta(x):
    return np.sum(sps.zeta(x**2 + 1.5, 1.0))


def np_mod(x):
    return np.sum(np.mod(x * 3.0, 1.0) * x**2 + np.remainder(x**2, -0.7) * x + (x * 2.0) % 0.9)


NUMPY = {
    name: f
    for name, f in list(globals().items())
    if callable(f) and getattr(f, "__module__", None) == __name__ and not name.startswith("_")
}

# ---------------------------------------------------------------- JAX

CJ = jnp.asarray([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])
JAX = {
    "nn_acts": lambda x: jnp.sum(
        jax.nn.gelu(x)
        + jax.nn.silu(x)
        + jax.nn.softplus(x)
        + jax.nn.elu(x)
        + jax.nn.selu(x)
        + jax.nn.celu(x)
        + jax.nn.log_sigmoid(x)
        + jax.nn.hard_tanh(x)
        + jax.nn.relu6(x * 3)
        + jax.nn.gelu(x, approximate=False)
    ),
    "nn_norm": lambda x: (
        jnp.sum(jax.nn.standardize(x.reshape(2, 3), axis=1) ** 2 * jnp.arange(6.0).reshape(2, 3))
        + jnp.sum(jax.nn.glu(x.reshape(3, 2), axis=1))
    ),
    "nn_onehot": lambda x: (
        -jnp.sum(
            jax.nn.one_hot(jnp.array([0, 2]), 3) * jax.nn.log_softmax(x.reshape(2, 3), axis=-1)
        )
    ),
    "jnp_stats": lambda x: (
        jnp.sum(jnp.cov(x.reshape(2, 3)) ** 2)
        + jnp.sum(jnp.corrcoef(x.reshape(3, 2).T + x.reshape(3, 2).T ** 2) ** 2)
        + jnp.nanmean(x**2)
        + jnp.ptp(x**2)
    ),
    "jnp_quantile": lambda x: (
        jnp.percentile(x, 30.0) ** 2
        + jnp.sum(jnp.quantile(x.reshape(2, 3), jnp.array([0.2, 0.8]), axis=1) ** 2)
        + jnp.median(x) ** 2
    ),
    "jnp_misc": lambda x: (
        jnp.sum(jnp.select([x < -0.5, x > 0.5], [x**2, jnp.sin(x)], x**3))
        + jnp.sum(jnp.copysign(x**2, x - 0.35))
        + jnp.sum(jnp.mod(x * 3, 1.0) * x**2)
        + jnp.sum(jnp.round(x, 1) * x)
    ),
    "jnp_linalg": lambda x: (
        jnp.linalg.cond(x[:4].reshape(2, 2) + 3 * jnp.eye(2))
        + jnp.sum(jnp.linalg.qr(x.reshape(3, 2) + jnp.eye(3, 2))[1] ** 2)
        + jnp.sum(jnp.linalg.lstsq(CJ[:, :2], x[:3])[0] ** 2)
    ),
    "jnp_batched": lambda x: (
        jnp.sum(
            jnp.linalg.solve(x[:8].reshape(2, 2, 2) + 3 * jnp.eye(2), x[:4].reshape(2, 2, 1)) ** 2
        )
        + jnp.sum(jnp.linalg.slogdet(x[:8].reshape(2, 2, 2) + 3 * jnp.eye(2))[1])
        if False
        else jnp.sum(jnp.linalg.solve(x.reshape(3, 2)[:2] + 3 * jnp.eye(2), x[:2]) ** 2)
    ),
    "jnp_batched2": lambda x: (
        jnp.sum(jnp.linalg.inv(jnp.stack([jnp.diag(x[:3]) + CJ, CJ * x[3]])) ** 2)
        + jnp.sum(jnp.linalg.det(jnp.stack([jnp.diag(x[:3]) + CJ, CJ * x[4]])))
    ),
    "jsp_special": lambda x: jnp.sum(
        jsps.gamma(x**2 + 0.7)
        + jsps.beta(x**2 + 0.5, 2.0)
        + jsps.ndtri(jax.nn.sigmoid(x))
        + jsps.i0(x)
        + jsps.i1e(x)
        + jsps.multigammaln(x**2 + 2.0, 2)
    ),
    "jsp_special2": lambda x: jnp.sum(
        jsps.polygamma(1, x**2 + 1.5)
        + jsps.erfcinv(jax.nn.sigmoid(x))
        + jsps.expi(x**2 + 0.5)
        + jsps.gammainc(2.0, x**2 + 0.5)
    ),
    "jsp_stats": lambda x: jnp.sum(
        jst.t.logpdf(x, 3.0)
        + jst.gennorm.logpdf(x, 1.5)
        + jst.chi2.logpdf(x**2 + 0.1, 3.0)
        + jst.pareto.logpdf(x**2 + 1.5, 2.0)
        + jst.vonmises.logpdf(x, 2.0)
        + jst.truncnorm.logpdf(x, -2.0, 2.0)
    ),
    "jsp_stats2": lambda x: (
        jnp.sum(jst.dirichlet.logpdf(jax.nn.softmax(x[:3]), jnp.array([1.5, 2.0, 3.0])))
        + jnp.sum(jst.nbinom.logpmf(jnp.array([1.0, 2.0]), 3.0, jax.nn.sigmoid(x[:2])))
        + jnp.sum(jst.gumbel_r.logpdf(x))
    ),
    "lax_ops": lambda x: jnp.sum(
        lax.rsqrt(x**2 + 1)
        + lax.erf_inv(jnp.tanh(x) * 0.5)
        + lax.igamma(2.0, x**2 + 0.5)
        + lax.cummax(x) ** 2
        + lax.lgamma(x**2 + 1)
        + lax.cbrt(x)
    ),
    "fft_ops": lambda x: (
        jnp.sum(jnp.abs(jnp.fft.rfft2(x.reshape(2, 3))) ** 2)
        + jnp.sum(jnp.fft.irfft(jnp.fft.rfft(x) * jnp.exp(-jnp.arange(4.0)), n=6) ** 2)
        + jnp.sum(jnp.abs(jnp.fft.fftshift(jnp.fft.fft(x))) ** 2)
    ),
    "take_gather": lambda x: (
        jnp.sum(
            jnp.take_along_axis(x.reshape(2, 3), jnp.argsort(x.reshape(2, 3), axis=1), axis=1) ** 2
            * jnp.arange(3.0)
        )
        + jnp.sum(x[jnp.array([0, 0, 5])] ** 3)
    ),
    "scan_cumprod": lambda x: (
        jnp.sum(lax.associative_scan(jnp.multiply, 1 + 0.1 * x) ** 2)
        + jnp.sum(jnp.cumprod(1 + 0.1 * x))
    ),
    "while_fixed": lambda x: jnp.sum(
        lax.fori_loop(0, 5, lambda i, v: jnp.cos(v) * 0.5 + x * 0.1, x) ** 2
    ),
    "vmap_grad": lambda x: jnp.sum(jax.vmap(jax.grad(lambda a: jnp.sin(a) * a**2))(x) ** 2),
    "clip_where": lambda x: jnp.sum(
        jnp.clip(x, -0.5, 0.8) ** 2 + jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
    ),
    "jax_logsumexp_b": lambda x: (
        jsps.logsumexp(x, b=jnp.arange(1.0, 7.0))
        + jnp.sum(
            jsps.logsumexp(
                x.reshape(2, 3), axis=1, b=jnp.array([[1.0, -0.5, 2.0]]), return_sign=True
            )[0]
        )
    ),
    "segment_sum": lambda x: jnp.sum(
        jax.ops.segment_sum(x**2, jnp.array([0, 1, 1, 2, 0, 2]), num_segments=3) ** 2
    ),
    "dot_precision": lambda x: (
        jnp.sum(jnp.dot(x.reshape(2, 3), CJ, precision=lax.Precision.HIGHEST) ** 2) + jnp.vdot(x, x)
    ),
    "tri_solve": lambda x: jnp.sum(
        jax.scipy.linalg.solve_triangular(jnp.tril(CJ) + jnp.diag(x[:3] ** 2), x[3:], lower=True)
        ** 2
    ),
    "expm_logm": lambda x: jnp.sum(jax.scipy.linalg.expm(x[:4].reshape(2, 2) * 0.3) ** 2),
    "sqrtm_eigh": lambda x: jnp.sum(jnp.linalg.eigh(CJ + jnp.outer(x[:3], x[:3]))[1][:, 0] ** 4),
}


def _differences(f, x: np.ndarray, h: float = 1e-4) -> np.ndarray:
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (
                4 * h * h
            )
    return H


def cell(name: str) -> str:
    """One idiom's cell: ok, refused (its line), WRONG (the largest difference) or ERROR."""
    return check_hessian(NUMPY.get(name) or JAX[name], numpy=name in NUMPY)


def check_hessian(
    f, numpy: bool, point: np.ndarray = X, lang: str = "python", at: np.ndarray | None = None
) -> str:
    """``dgraph.hessian(f, lang=lang)`` built at ``point`` and called at ``at`` (``point``)
    against central differences of ``f`` (``numpy``) or ``jax.hessian`` there: ok, refused
    (its line), WRONG (the largest difference) or ERROR."""
    at = point if at is None else at
    try:
        want = _differences(f, at) if numpy else np.asarray(jax.hessian(f)(jnp.asarray(at)))
    except Exception as exc:  # the reference's own failure
        return f"no reference ({type(exc).__name__})"
    tolerance = (1e-4, 1e-4) if numpy else (1e-7, 1e-8)
    try:
        got = np.asarray(dgraph.hessian(f, point, lang=lang)(at))
    except dgraph.errors.DGraphError as exc:
        return f"refused: {str(exc)[:110]}"
    except Exception as exc:
        return f"ERROR {type(exc).__name__}: {str(exc)[:100]}"
    if np.allclose(got, want, rtol=tolerance[0], atol=tolerance[1]):
        return "ok"
    return f"WRONG (largest difference {np.nanmax(np.abs(got - want)):.3g})"


def main(argv: list[str]) -> None:
    names = argv or [*NUMPY, *JAX]
    counts: dict[str, int] = {}
    for name in names:
        found = cell(name)
        kind = found.split(" ")[0].rstrip(":")
        counts[kind] = counts.get(kind, 0) + 1
        print(f"{name:22s} {found}")
    print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
