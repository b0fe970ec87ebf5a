"""Session 46: one-line NumPy/SciPy idioms through ``make_function``, each Jacobian against
central differences (step 1e-6; a float32 cast is not comparable so): ``python
benchmarks/idioms_numpy.py [NAME ...]``."""

import math
import sys
import warnings

import jax
import numpy as np
import scipy.linalg as sla
import scipy.special as sp

import dgraph

warnings.simplefilter("ignore")
xp_ = np.linspace(0, 1, 6)
fp_ = np.cos(4 * xp_)
C = {
    "interp": lambda x: np.sum(np.interp(x, xp_, fp_) * x),
    "polyval": lambda x: np.sum(np.polyval([1.0, -2.0, 0.5, 3.0], x)),
    "polyval_traced_coef": lambda x: np.polyval(x[:3], x[3]),
    "vander": lambda x: np.sum(np.vander(x, 3) ** 2),
    "trapezoid": lambda x: (
        np.trapezoid(x**2, dx=0.1) if hasattr(np, "trapezoid") else np.trapz(x**2, dx=0.1)
    ),
    "trapz_x": lambda x: (
        np.trapezoid(np.sin(x), x) if hasattr(np, "trapezoid") else np.trapz(np.sin(x), x)
    ),
    "fft": lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2),
    "fft_full": lambda x: np.real(np.fft.ifft(np.fft.fft(x) * np.exp(-np.arange(len(x))))),
    "kron": lambda x: np.kron(x[:2], x[2:]),
    "cross": lambda x: np.cross(x[:3], x[3:6] if len(x) >= 6 else x[:3][::-1]),
    "outer_trace": lambda x: np.trace(np.outer(x, x) @ np.outer(x, x)),
    "tensordot": lambda x: np.tensordot(
        x.reshape(2, -1), x.reshape(2, -1), axes=([0], [0])
    ).ravel(),
    "maxacc": lambda x: np.maximum.accumulate(x),
    "minimum_reduce": lambda x: np.minimum.reduce(x),
    "std_ddof": lambda x: np.std(x, ddof=1),
    "corrcoef": lambda x: np.corrcoef(x[:3], x[3:6])[0, 1],
    "cov": lambda x: np.sum(np.cov(x.reshape(2, -1))),
    "sinc": lambda x: np.sinc(x),
    "hypot": lambda x: np.hypot(x[:3], x[3:6]),
    "nan_to_num": lambda x: np.nan_to_num(np.log(x - 0.3)),
    "logsumexp": lambda x: sp.logsumexp(x, b=np.arange(1, len(x) + 1)),
    "softmax": lambda x: sp.softmax(x * 2),
    "log_softmax": lambda x: sp.log_softmax(x),
    "expit": lambda x: sp.expit(x) * sp.logit(np.clip(x, 0.1, 0.9)),
    "xlogy": lambda x: sp.xlogy(x, x + 1) + sp.xlog1py(x, x),
    "gammaln": lambda x: sp.gammaln(x + 1) + sp.digamma(x + 1),
    "erfcx": lambda x: sp.erfcx(x),
    "i0e": lambda x: sp.i0e(x) + sp.i1e(x),
    "solve": lambda x: np.linalg.solve(np.eye(3) * 4 + np.outer(x[:3], x[3:6]), x[:3]),
    "lstsq": lambda x: np.linalg.lstsq(
        np.vstack([x[:3], x[3:6], np.ones(3)]).T, np.arange(3.0), rcond=None
    )[0],
    "pinv": lambda x: np.linalg.pinv(x.reshape(2, 3)).ravel(),
    "eigvalsh": lambda x: np.linalg.eigvalsh(np.outer(x[:3], x[:3]) + np.diag(x[3:6])),
    "eigh_vec": lambda x: (
        np.linalg.eigh(np.outer(x[:3], x[:3]) + np.diag(x[3:6]) * 3)[1][:, 0] ** 2
    ),
    "det_inv": lambda x: (
        np.linalg.det(x[:4].reshape(2, 2) + 2 * np.eye(2))
        * np.linalg.inv(x[:4].reshape(2, 2) + 2 * np.eye(2)).ravel()
    ),
    "slogdet": lambda x: np.linalg.slogdet(np.eye(3) + np.outer(x[:3], x[3:6]))[1],
    "cholesky": lambda x: np.linalg.cholesky(np.eye(3) * 2 + np.outer(x[:3], x[:3])).ravel(),
    "expm": lambda x: sla.expm(x[:4].reshape(2, 2)).ravel(),
    "solve_triangular": lambda x: sla.solve_triangular(
        np.triu(x[:9].reshape(3, 3)) + 3 * np.eye(3) if len(x) >= 9 else np.eye(3), np.ones(3)
    ),
    "cho_solve": lambda x: sla.cho_solve(
        sla.cho_factor(np.eye(3) * 3 + np.outer(x[:3], x[:3])), x[3:6]
    ),
    "median": lambda x: np.median(x) * x,
    "sort_top": lambda x: np.sort(x)[-2:],
    "argsort_gather": lambda x: x[np.argsort(x)] * np.arange(len(x)),
    "where_single": lambda x: (
        np.sum(x[np.where(x > 0.5)[0]]) if False else np.sum(np.where(x > 0.5, x, 0))
    ),
    "boolean_mask_sum": lambda x: np.sum(x[x > 0.5] ** 2),
    "meshgrid": lambda x: np.sum(np.meshgrid(x[:3], x[3:6])[0] * np.meshgrid(x[:3], x[3:6])[1]),
    "diff2": lambda x: np.diff(x, n=2) ** 2,
    "cumprod": lambda x: np.cumprod(x),
    "gradient": lambda x: np.gradient(x**2, 0.1),
    "roll": lambda x: x * np.roll(x, 2),
    "math_scalar": lambda x: math.exp(x[0]) * math.sin(x[1]) + math.hypot(x[2], x[3]),
    "angle": lambda x: np.angle(x[:3] + 1j * x[3:6]),
    "complex_abs": lambda x: np.abs(np.exp(1j * x) * x),
    "arctan2": lambda x: np.arctan2(x[:3], x[3:6] - 0.5),
    "heaviside": lambda x: np.heaviside(x - 0.5, 0.5) * x,
    "round_floor": lambda x: np.floor(x * 3) / 3 + x**2,
    "mod": lambda x: np.mod(x * 7, 1.0) * x,
    "einsum_trace": lambda x: np.einsum("ii->", np.outer(x, x)),
    "einsum_batch": lambda x: np.einsum("bi,bj->bij", x.reshape(2, -1), x.reshape(2, -1)).ravel(),
    "matrix_power": lambda x: np.linalg.matrix_power(x[:4].reshape(2, 2), 3).ravel(),
    "norm_axis": lambda x: np.linalg.norm(x.reshape(2, -1), axis=1),
    "clip_where": lambda x: np.clip(x, 0.3, 0.7) ** 2,
    "percentile": lambda x: np.percentile(x, 30),
    "lambertw": lambda x: np.real(sp.lambertw(x)),
    "partition": lambda x: np.partition(x, 2)[:2],
    "unique_sum": lambda x: np.sum(np.unique(x)),
    "searchsorted": lambda x: np.searchsorted(xp_, x) * x,
    "histogram": lambda x: np.histogram(x, bins=3, range=(0, 1))[0] * 1.0 + x[:3].sum(),
    "tuple_out": lambda x: (np.sin(x), np.sum(x**2)),
    "dict_ret": lambda x: {"a": np.sin(x)},
    "float32": lambda x: (x.astype(np.float32) ** 2).astype(np.float64),
    "cummax_via_where": lambda x: np.maximum(x, np.roll(x, 1)),
    "ptp": lambda x: np.ptp(x),
    "triu_indices": lambda x: np.outer(x, x)[np.triu_indices(len(x))],
    "tril_sum": lambda x: np.sum(np.tril(np.outer(x, x), -1)),
    "block": lambda x: np.block(
        [[np.eye(2) * x[0], x[1:5].reshape(2, 2)], [x[1:5].reshape(2, 2), np.eye(2)]]
    ).ravel(),
    "insert": lambda x: np.insert(x, 1, 0.0) ** 2,
    "append": lambda x: np.append(x, x[0] * 2) ** 2,
    "flip_concat": lambda x: np.concatenate([x, x[::-1]]) * np.hstack([x, x]),
    "atleast2d": lambda x: np.atleast_2d(x).T @ np.atleast_2d(x),
    "ix_": lambda x: x.reshape(3, -1)[np.ix_([0, 2], [1])].ravel(),
    "put_along": lambda x: np.take_along_axis(
        x.reshape(2, -1), np.argsort(x.reshape(2, -1), axis=1), axis=1
    ).ravel(),
}
jax.config.update("jax_enable_x64", True)
TOLERANCE = 1e-6


def flat(f, z):
    r = f(z)
    r = r[0] if isinstance(r, tuple) else r
    return np.ravel(np.asarray(r, dtype=float))


def reference(f, x, h=1e-6):
    """Central differences, one column per input entry."""
    return np.stack(
        [(flat(f, x + h * e) - flat(f, x - h * e)) / (2 * h) for e in np.eye(x.size)], 1
    )


def main(names: list[str], cases=C, reference=reference, tolerance=TOLERANCE) -> None:
    """One line per idiom: its Jacobian's error against ``reference`` (WRONG above
    ``tolerance`` of its largest entry), or what it raised."""
    x = np.array([0.31, 0.72, 0.45, 0.93, 0.18, 0.66, 0.27, 0.81, 0.55])
    for n in names:
        f = cases[n]
        try:
            J = dgraph.make_function(f, "jacobian", point=[x])
            got = J(x)
            got = got if not isinstance(got, tuple) else got[0]
            got = np.asarray(got.toarray() if hasattr(got, "toarray") else got, dtype=float)
            ref = reference(f, x)
            if got.size != ref.size:
                print(f"{n:20s} shape {got.shape} vs {ref.shape}")
                continue
            err = np.abs(got.reshape(ref.shape) - ref).max() / max(1, np.abs(ref).max())
            tag = "ok" if err < tolerance else "WRONG"
            print(f"{n:20s} {tag} err {err:.1e} verified={J.generated.verified}")
        except Exception as e:  # one line per idiom, whatever it raised
            line = str(e).splitlines()[0][:220] if str(e) else ""
            print(f"{n:20s} {type(e).__module__}.{type(e).__name__}: {line}")


if __name__ == "__main__":
    main(sys.argv[1:] or list(C))
