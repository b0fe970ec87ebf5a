"""Which NumPy/SciPy and JAX functions a user's program may call are read and verified:
each case is one call on a traced vector of 4 (``x0``), made into generated Jacobian code
(``make_function(f, "jacobian", point=[x0])``); a case is not ok where it is refused, raises,
is not verified, or (JAX) differs from ``jax.jacfwd``. Prints the cases not ok and a count.

    python benchmarks/function_sweep.py [--jax]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.special as sps

import dgraph

x0 = np.array([0.3, 0.7, 1.2, 0.5])


def _numpy_cases() -> dict:
    return {
        "pinv": lambda x: np.linalg.pinv(x.reshape(2, 2)).ravel(),
        "matrix_power": lambda x: np.linalg.matrix_power(x.reshape(2, 2), 3).ravel(),
        "kron": lambda x: np.kron(x[:2], x[2:]),
        "outer": lambda x: np.outer(x, x).ravel(),
        "tensordot": lambda x: np.tensordot(x.reshape(2, 2), x.reshape(2, 2), axes=1).ravel(),
        "einsum_ell": lambda x: np.einsum("...i,...i->...", x.reshape(2, 2), x.reshape(2, 2)),
        "trace": lambda x: np.trace(x.reshape(2, 2)),
        "diagonal": lambda x: np.diagonal(x.reshape(2, 2)),
        "median": lambda x: np.median(x),
        "percentile": lambda x: np.percentile(x, 30),
        "quantile": lambda x: np.quantile(x, [0.2, 0.8]),
        "sinc": lambda x: np.sinc(x),
        "i0": lambda x: np.i0(x),
        "hypot": lambda x: np.hypot(x[:2], x[2:]),
        "logaddexp2": lambda x: np.logaddexp2(x[:2], x[2:]),
        "float_power": lambda x: np.float_power(x, 1.5),
        "gradient": lambda x: np.gradient(x),
        "polyval": lambda x: np.polyval(x, 0.7),
        "norm_fro": lambda x: np.linalg.norm(x.reshape(2, 2), "fro"),
        "norm_nuc": lambda x: np.linalg.norm(x.reshape(2, 2), "nuc"),
        "norm_2": lambda x: np.linalg.norm(x.reshape(2, 2), 2),
        "eigvalsh": lambda x: np.linalg.eigvalsh(x.reshape(2, 2) + x.reshape(2, 2).T),
        "eig": lambda x: np.linalg.eig(x.reshape(2, 2))[0],
        "eigvals": lambda x: np.linalg.eigvals(x.reshape(2, 2)),
        "svdvals": lambda x: np.linalg.svd(x.reshape(2, 2), compute_uv=False),
        "softmax": lambda x: sps.softmax(x),
        "log_softmax": lambda x: sps.log_softmax(x),
        "logsumexp_b": lambda x: sps.logsumexp(x, b=np.array([1.0, 2, 3, 4])),
        "spence": lambda x: sps.spence(x),
        "sici": lambda x: sps.sici(x)[0],
        "wrightomega": lambda x: sps.wrightomega(x),
        "lambertw": lambda x: sps.lambertw(x).real,
        "expn": lambda x: sps.expn(1, x),
        "exp1": lambda x: sps.exp1(x),
        "expi": lambda x: sps.expi(x),
        "dawsn": lambda x: sps.dawsn(x),
        "erfcx": lambda x: sps.erfcx(x),
        "owens_t": lambda x: sps.owens_t(x, 0.5),
        "cbrt": lambda x: sps.cbrt(x),
        "exprel": lambda x: sps.exprel(x),
        "sinc_pi": lambda x: np.sinc(x / np.pi),
        "cumtrapz": lambda x: np.cumsum(x) / np.arange(1, 5),
        "convolve_same": lambda x: np.convolve(x, [1.0, 2.0, 1.0], mode="same"),
        "correlate": lambda x: np.correlate(x, [1.0, 2.0], mode="valid"),
        "fft_abs": lambda x: np.abs(np.fft.fft(x)),
        "rfft_abs": lambda x: np.abs(np.fft.rfft(x)),
        "irfft": lambda x: np.fft.irfft(np.fft.rfft(x)),
        "solve_sym": lambda x: sla.solve(
            np.eye(2) * 3 + x.reshape(2, 2) @ x.reshape(2, 2).T, x[:2], assume_a="pos"
        ),
        "sla_norm": lambda x: sla.norm(x),
        "cross": lambda x: np.cross(x[:3], x[1:]),
        "vander": lambda x: np.vander(x, 3).ravel(),
        "linalg_multi_dot": lambda x: np.linalg.multi_dot([x.reshape(2, 2)] * 3).ravel(),
        "triu": lambda x: np.triu(x.reshape(2, 2)).ravel(),
        "clip": lambda x: np.clip(x, 0.4, 1.0),
        "heaviside": lambda x: np.heaviside(x - 0.5, 0.5) * x,
        "nan_to_num": lambda x: np.nan_to_num(np.log(x - 0.4)),
        "unique": lambda x: np.unique(x),
        "searchsorted": lambda x: x[np.searchsorted(np.array([0.5, 1.0]), 0.7)],
        "interp": lambda x: np.interp(0.45, np.array([0.0, 0.5, 1.0, 1.5]), x),
        "ptp": lambda x: np.ptp(x),
        "average_w": lambda x: np.average(x, weights=np.array([1.0, 2, 3, 4])),
        "std": lambda x: np.std(x, ddof=1),
        "var": lambda x: np.var(x),
        "cumprod": lambda x: np.cumprod(x),
        "diff2": lambda x: np.diff(x, n=2),
        "roll": lambda x: np.roll(x, 1),
        "flip": lambda x: np.flip(x),
        "tile": lambda x: np.tile(x, 2),
        "repeat": lambda x: np.repeat(x, 2),
        "meshgrid": lambda x: np.meshgrid(x[:2], x[2:])[0].ravel(),
        "arctan2": lambda x: np.arctan2(x[:2], x[2:]),
        "deg2rad": lambda x: np.deg2rad(x),
        "round_": lambda x: np.round(x, 1) * x,
        "sort": lambda x: np.sort(x),
        "partition": lambda x: np.partition(x, 2),
        "maximum_acc": lambda x: np.maximum.accumulate(x),
        "lstsq": lambda x: np.linalg.lstsq(
            np.array([[1.0, 0], [1, 1], [1, 2], [1, 3]]), x, rcond=None
        )[0],
        "det": lambda x: np.linalg.det(x.reshape(2, 2)),
        "inv": lambda x: np.linalg.inv(x.reshape(2, 2) + np.eye(2)).ravel(),
        "sqrtm": lambda x: sla.sqrtm(x.reshape(2, 2) @ x.reshape(2, 2).T + np.eye(2)).ravel(),
        "cho": lambda x: sla.cho_solve(
            sla.cho_factor(np.eye(2) * 3 + np.outer(x[:2], x[:2])), x[2:]
        ),
        "polyfit": lambda x: np.polyfit(np.array([0.0, 1, 2, 3]), x, 1),
        "angle": lambda x: np.angle(x[:2] + 1j * x[2:]),
        "complex_abs": lambda x: np.abs(x[:2] + 1j * x[2:]),
        "real_exp": lambda x: np.real(np.exp(1j * x)),
        "sph_harm": lambda x: (
            sps.sph_harm_y(1, 1, x, 0.3).real if hasattr(sps, "sph_harm_y") else x
        ),
        "legendre_eval": lambda x: sps.eval_legendre(3, x),
        "chebyt": lambda x: sps.eval_chebyt(3, x),
        "hermite": lambda x: sps.eval_hermite(3, x),
        "binom": lambda x: sps.binom(x + 3, 2),
        "poch": lambda x: sps.poch(x, 2.0),
        "rgamma": lambda x: sps.rgamma(x),
        "loggamma": lambda x: sps.loggamma(x).real,
        "betainc": lambda x: sps.betainc(2.0, 3.0, x / 2),
        "stdtr": lambda x: sps.stdtr(3.0, x),
        "bdtr": lambda x: sps.bdtr(3, 5, x / 2),
        "kv": lambda x: sps.kv(0.5, x),
        "jv": lambda x: sps.jv(1, x),
        "j0": lambda x: sps.j0(x),
        "y0": lambda x: sps.y0(x),
        "ellipk": lambda x: sps.ellipk(x / 2),
        "zeta1": lambda x: sps.zeta(x + 2),
        "gammaincinv": lambda x: sps.gammaincinv(2.0, x / 2),
        "erfinv": lambda x: sps.erfinv(x / 2),
        "log1p_": lambda x: sps.log1p(x),
        "expm1_": lambda x: sps.expm1(x),
        "xlog1py": lambda x: sps.xlog1py(x, x),
        "softplus": lambda x: np.logaddexp(0, x),
        "smirnov": lambda x: sps.smirnov(3, x / 2),
        "struve": lambda x: sps.struve(0, x),
        "ndtri_exp": lambda x: sps.ndtri_exp(-x),
        "log_expit": lambda x: sps.log_expit(x),
    }


def _jax_cases() -> dict:
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    import jax.scipy.special as jsp

    jax.config.update("jax_enable_x64", True)

    def M(x):
        return x.reshape(2, 2)

    return {
        "pinv": lambda x: jnp.linalg.pinv(M(x)).ravel(),
        "matrix_power": lambda x: jnp.linalg.matrix_power(M(x), 3).ravel(),
        "kron": lambda x: jnp.kron(x[:2], x[2:]),
        "median": lambda x: jnp.median(x),
        "percentile": lambda x: jnp.percentile(x, 30),
        "quantile": lambda x: jnp.quantile(x, jnp.array([0.2, 0.8])),
        "sinc": jnp.sinc,
        "i0": jnp.i0,
        "hypot": lambda x: jnp.hypot(x[:2], x[2:]),
        "logaddexp2": lambda x: jnp.logaddexp2(x[:2], x[2:]),
        "gradient": jnp.gradient,
        "polyval": lambda x: jnp.polyval(x, 0.7),
        "norm_nuc": lambda x: jnp.linalg.norm(M(x), "nuc"),
        "norm_2": lambda x: jnp.linalg.norm(M(x), 2),
        "eigvalsh": lambda x: jnp.linalg.eigvalsh(M(x) + M(x).T),
        "svd": lambda x: jnp.linalg.svd(M(x), compute_uv=False),
        "softmax": jax.nn.softmax,
        "log_softmax": jax.nn.log_softmax,
        "logsumexp_b": lambda x: jsp.logsumexp(x, b=jnp.array([1.0, 2, 3, 4])),
        "spence": lambda x: jsp.spence(x),
        "expi": jsp.expi,
        "exp1": jsp.exp1,
        "dawsn": jsp.dawsn,
        "expn": lambda x: jsp.expn(2, x),
        "betainc": lambda x: jsp.betainc(2.0, 3.0, x / 2),
        "bessel_jn": lambda x: jsp.bessel_jn(x, v=2)[-1],
        "i1": jsp.i1,
        "i0e": jsp.i0e,
        "ndtri": jsp.ndtri,
        "erfcinv": lambda x: jsp.erfc(x),
        "polygamma": lambda x: jsp.polygamma(1, x),
        "gammainc": lambda x: jsp.gammainc(2.0, x),
        "zeta": lambda x: jsp.zeta(3.0, x),
        "betaln": lambda x: jsp.betaln(x, 2.0),
        "multigammaln": lambda x: jsp.multigammaln(x + 2, 2),
        "entr": jsp.entr,
        "kl_div": lambda x: jsp.kl_div(x, 0.5),
        "xlogy": lambda x: jsp.xlogy(x, x),
        "expm": lambda x: jsl.expm(M(x)).ravel(),
        "cho_solve": lambda x: jsl.cho_solve(
            jsl.cho_factor(jnp.eye(2) * 3 + jnp.outer(x[:2], x[:2])), x[2:]
        ),
        "solve_triangular": lambda x: jsl.solve_triangular(
            jnp.tril(M(x)) + jnp.eye(2), x[:2], lower=True
        ),
        "lu_solve": lambda x: jsl.lu_solve(jsl.lu_factor(M(x) + jnp.eye(2)), x[:2]),
        "eigh_vec": lambda x: jnp.linalg.eigh(M(x) + M(x).T)[1][:, 0] ** 2,
        "qr": lambda x: jnp.linalg.qr(M(x))[1].ravel(),
        "det": lambda x: jnp.linalg.det(M(x)),
        "slogdet": lambda x: jnp.linalg.slogdet(M(x) + 2 * jnp.eye(2))[1],
        "inv": lambda x: jnp.linalg.inv(M(x) + jnp.eye(2)).ravel(),
        "lstsq": lambda x: jnp.linalg.lstsq(jnp.array([[1.0, 0], [1, 1], [1, 2], [1, 3]]), x)[0],
        "fft": lambda x: jnp.abs(jnp.fft.fft(x)),
        "rfft": lambda x: jnp.fft.irfft(jnp.fft.rfft(x)),
        "cumsum": jnp.cumsum,
        "cumprod": jnp.cumprod,
        "cummax": lambda x: jax.lax.cummax(x),
        "sort": jnp.sort,
        "argsort_take": lambda x: x[jnp.argsort(x)],
        "top_k": lambda x: jax.lax.top_k(x, 2)[0],
        "clip": lambda x: jnp.clip(x, 0.4, 1.0),
        "where": lambda x: jnp.where(x > 0.6, x**2, 0.0),
        "scan": lambda x: jax.lax.scan(lambda c, xi: (c * xi + 1.0, c), 0.5, x)[0],
        "fori": lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * x + 1.0, x),
        "while": lambda x: jax.lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x)
        )[1],
        "cond": lambda x: jax.lax.cond(x[0] > 0, lambda y: y**2, lambda y: -y, x),
        "switch": lambda x: jax.lax.switch(1, [jnp.sin, jnp.cos], x),
        "vmap": lambda x: jax.vmap(lambda r: jnp.dot(r, r))(M(x)),
        "checkpoint": lambda x: jax.checkpoint(lambda y: jnp.sin(y) * y)(x),
        "custom_jvp": lambda x: (
            jax.nn.relu(x) + jax.nn.gelu(x) + jax.nn.silu(x) + jax.nn.softplus(x)
        ),
        "einsum": lambda x: jnp.einsum("ij,jk->ik", M(x), M(x)).ravel(),
        "conv": lambda x: jnp.convolve(x, jnp.array([1.0, 2.0, 1.0]), mode="same"),
        "roll": lambda x: jnp.roll(x, 1),
        "pad": lambda x: jnp.pad(x, 1, mode="reflect"),
        "interp": lambda x: jnp.interp(jnp.array([0.4, 0.9]), jnp.array([0.0, 0.5, 1.0, 1.5]), x),
        "searchsorted": lambda x: jnp.searchsorted(jnp.sort(x), 0.6) * x,
        "unique_size": lambda x: jnp.unique(jnp.round(x), size=4, fill_value=0.0),
        "nanmean": jnp.nanmean,
        "var": jnp.var,
        "std": lambda x: jnp.std(x, ddof=1),
        "cross": lambda x: jnp.cross(x[:3], x[1:]),
        "outer": lambda x: jnp.outer(x, x).ravel(),
        "tril": lambda x: jnp.tril(M(x)).ravel(),
        "trace": lambda x: jnp.trace(M(x)),
        "diag": lambda x: jnp.diag(x).ravel(),
        "take_along": lambda x: jnp.take_along_axis(x, jnp.array([3, 0]), 0),
        "segment_sum": lambda x: jax.ops.segment_sum(x, jnp.array([0, 1, 0, 1]), 2),
        "erf_inv": jsp.erfinv,
        "gammaln": jsp.gammaln,
        "digamma": jsp.digamma,
        "logit": jsp.logit,
        "ndtr": jsp.ndtr,
        "log_ndtr": jsp.log_ndtr,
        "expit": jsp.expit,
        "norm_logpdf": lambda x: jax.scipy.stats.norm.logpdf(x, 0.3, 2.0),
        "norm_ppf": lambda x: jax.scipy.stats.norm.ppf(x / 2),
        "t_logpdf": lambda x: jax.scipy.stats.t.logpdf(x, 3.0),
        "gamma_cdf": lambda x: jax.scipy.stats.gamma.cdf(x, 2.0),
        "beta_cdf": lambda x: jax.scipy.stats.beta.cdf(x / 2, 2.0, 3.0),
        "poisson_logpmf": lambda x: jax.scipy.stats.poisson.logpmf(3, x),
        "mvn": lambda x: jax.scipy.stats.multivariate_normal.logpdf(x[:2], x[2:], jnp.eye(2)),
        "rng_fixed": lambda x: x * jax.random.normal(jax.random.PRNGKey(0), (4,)),
        "complex": lambda x: jnp.real(jnp.exp(1j * x)) + jnp.abs(x[0] + 1j * x[1]),
        "astype32": lambda x: x.astype(jnp.float32).astype(jnp.float64) * 2,
        "int_pow": lambda x: x**3 + x**-2 + jnp.power(x, 2.5),
        "remainder": lambda x: jnp.remainder(x * 7, 1.3),
        "floor_divide": lambda x: jnp.floor_divide(x * 7, 1.3) * x,
        "isclose": lambda x: jnp.where(jnp.isclose(x, 0.7), 0.0, x),
        "argmax_take": lambda x: x[jnp.argmax(x)] * x,
        "dynamic_slice": lambda x: jax.lax.dynamic_slice(x, (jnp.argmax(x) % 2,), (2,)),
        "at_set": lambda x: x.at[1].set(x[0] ** 2),
        "at_add": lambda x: x.at[jnp.array([0, 0, 2])].add(x[1:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax", action="store_true", help="the JAX cases")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    cases = _jax_cases() if args.jax else _numpy_cases()
    bad = []
    for name, f in cases.items():
        try:
            fn = dgraph.make_function(f, "jacobian", point=[x0])
            if not fn.generated.verified:
                bad.append((name, "NOT VERIFIED"))
            elif args.jax:
                import jax

                J = np.asarray(fn(x0))
                ref = np.asarray(jax.jacfwd(f)(x0))
                if not np.allclose(J.reshape(ref.shape), ref, rtol=1e-9, atol=1e-11):
                    bad.append((name, "DIFFERS from jax.jacfwd"))
        except Exception as e:  # the sweep reports every failure, whatever its kind
            bad.append((name, type(e).__name__ + ": " + str(e).splitlines()[0][:150]))
    for b in bad:
        print(*b)
    print(len(cases), "cases", len(bad), "not ok")


if __name__ == "__main__":
    main()
