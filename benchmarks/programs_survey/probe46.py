"""survey46's probes: each NumPy idiom's made Jacobian (python) against jax.jacfwd of the
JAX twin (``python probe46.py [NAME ...]``; run from this folder)."""

import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special as ss

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")
import dgraph  # noqa: E402


def flatj(fj, args):
    sizes = [np.size(a) for a in args]
    shapes = [np.shape(a) for a in args]

    def g(z):
        parts, o = [], 0
        for s, sh in zip(sizes, shapes, strict=False):
            parts.append(z[o : o + s].reshape(sh))
            o += s
        out = fj(*parts)
        outs = out if isinstance(out, tuple) else (out,)
        return jnp.concatenate([jnp.ravel(jnp.asarray(q)) for q in outs])

    z = np.concatenate([np.ravel(a) for a in args])
    return np.asarray(jax.jacfwd(g)(z)), z


def run(name, fn, fj, *args):
    t0 = time.process_time()
    try:
        G = dgraph.make_function(fn, "jacobian", point=list(args))
        try:
            r = G(*args)
        except (TypeError, ValueError):
            r = G(np.concatenate([np.ravel(a) for a in args]))
        Jref, _z = flatj(fj, args)
        if isinstance(r, tuple):
            leaves = jax.tree_util.tree_leaves(r)
            Jref.shape[0]
            # blocks per output, per input
            nin = len(args)
            rows = [
                np.hstack(
                    [
                        np.asarray(leaves[i * nin + j]).reshape(-1, np.size(args[j]))
                        for j in range(nin)
                    ]
                )
                for i in range(len(leaves) // nin)
            ]
            J = np.vstack(rows)
        else:
            J = np.asarray(r.toarray() if hasattr(r, "toarray") else r).reshape(Jref.shape)
        err = np.abs(J - Jref).max() / max(np.abs(Jref).max(), 1e-300)
        print(
            f"{name:18s} {'WRONG' if err > 1e-8 else 'ok'} err {err:.1e}"
            f" verified={G.generated.verified} {time.process_time() - t0:.1f}s",
            flush=True,
        )
    except Exception as e:
        print(
            f"{name:18s} {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            f" {time.process_time() - t0:.1f}s",
            flush=True,
        )


x = np.array([0.3, -1.2, 0.7, 2.0])
c = np.array([1.0, -0.5, 0.25])
which = sys.argv[1:] if __name__ == "__main__" else ["__none__"]
P = {
    "polyval_poly": (
        lambda c, x: np.polynomial.polynomial.polyval(x, c),
        lambda c, x: jnp.polyval(c[::-1], x),
        c,
        x,
    ),
    "topk2": (
        lambda x: x[np.argsort(-x)[:2]] ** 2,
        lambda x: x[jnp.argsort(-x)[:2]] ** 2,
        x,
    ),
    "topk3": (
        lambda x: np.sum(x[np.argsort(x)[::-1][:3]] * np.array([3.0, 2.0, 1.0])),
        lambda x: jnp.sum(x[jnp.argsort(x)[::-1][:3]] * jnp.array([3.0, 2.0, 1.0])),
        x,
    ),
    "topk_rows": (
        lambda A, v: A[np.argsort(v)[-2:]] * v[np.argsort(v)[-2:], None],
        lambda A, v: A[jnp.argsort(v)[-2:]] * v[jnp.argsort(v)[-2:], None],
        np.arange(8.0).reshape(4, 2),
        x,
    ),
    "roll_same_axis": (
        lambda A: np.roll(A, (1, 1), axis=(1, 1)) * A,
        lambda A: jnp.roll(A, (1, 1), axis=(1, 1)) * A,
        np.arange(6.0).reshape(2, 3),
    ),
    "roll_bcast": (
        lambda A: np.roll(A, 1, axis=(0, 1)) - A,
        lambda A: jnp.roll(A, 1, axis=(0, 1)) - A,
        np.arange(6.0).reshape(2, 3) ** 2,
    ),
    "cumprod_rev": (
        lambda x: np.cumprod(x[::-1])[::-1],
        lambda x: jnp.cumprod(x[::-1])[::-1],
        x,
    ),
    "qr": (
        lambda A: np.linalg.qr(A)[1],
        lambda A: jnp.linalg.qr(A)[1],
        np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4], [1, 0, 1]]),
    ),
    "convolve_same": (
        lambda a, b: np.convolve(a, b, mode="same"),
        lambda a, b: jnp.convolve(a, b, mode="same"),
        x,
        c,
    ),
    "topk": (
        lambda x: np.take_along_axis(x, np.argsort(x)[-2:], axis=0),
        lambda x: jnp.take_along_axis(x, jnp.argsort(x)[-2:], axis=0),
        x,
    ),
    "eigh_vec": (
        lambda A: np.abs(np.linalg.eigh(A + A.T)[1][:, -1]),
        lambda A: jnp.abs(jnp.linalg.eigh(A + A.T)[1][:, -1]),
        np.array([[2.0, 1, 0], [0.5, 3, 1], [0, 0.2, 5]]),
    ),
    "interp_xp": (
        lambda xp, fp: np.interp(np.array([0.1, 0.5, 0.9]), xp, fp),
        lambda xp, fp: jnp.interp(jnp.array([0.1, 0.5, 0.9]), xp, fp),
        np.array([0.0, 0.3, 0.6, 1.0]),
        np.array([1.0, 2.0, 0.5, 3.0]),
    ),
    "quantile": (lambda x: np.quantile(x, 0.75), lambda x: jnp.quantile(x, 0.75), x),
    "percentile_tie": (
        lambda x: np.percentile(x, 50.0),
        lambda x: jnp.percentile(x, 50.0),
        np.array([1.0, 2.0, 2.0, 5.0, 0.5]),
    ),
    "scipy_softmax": (
        lambda x: ss.log_softmax(x) + ss.softmax(x),
        lambda x: jax.nn.log_softmax(x) + jax.nn.softmax(x),
        x,
    ),
    "pinv": (
        lambda A: np.linalg.pinv(A),
        lambda A: jnp.linalg.pinv(A),
        np.array([[2.0, 1, 0], [1, 3, 1]]),
    ),
    "kron": (lambda a, b: np.kron(a, b), lambda a, b: jnp.kron(a, b), x[:2], c),
    "matrix_power": (
        lambda A: np.linalg.matrix_power(A, 3),
        lambda A: jnp.linalg.matrix_power(A, 3),
        np.array([[0.5, 1.0], [-0.3, 0.8]]),
    ),
    "logaddexp_reduce": (
        lambda x: np.logaddexp.reduce(x),
        lambda x: jax.scipy.special.logsumexp(x),
        x,
    ),
    "prod_zero": (
        lambda x: np.prod(x),
        lambda x: jnp.prod(x),
        np.array([0.0, 2.0, 3.0, 0.5]),
    ),
    "prod_twozero": (
        lambda x: np.prod(x),
        lambda x: jnp.prod(x),
        np.array([0.0, 2.0, 0.0, 0.5]),
    ),
    "sinc0": (lambda x: np.sinc(x), lambda x: jnp.sinc(x), np.array([0.0, 0.5, 1.0])),
    "tensordot": (
        lambda A, B: np.tensordot(A, B, axes=([1], [0])),
        lambda A, B: jnp.tensordot(A, B, axes=([1], [0])),
        np.ones((2, 3)) * 0.5,
        np.arange(6.0).reshape(3, 2),
    ),
    "outer_float32": (
        lambda a, b: np.outer(a.astype(np.float32), b).astype(np.float64).sum(axis=0),
        lambda a, b: jnp.outer(a, b).sum(axis=0),
        x,
        c,
    ),
    "xlog1py": (
        lambda x: ss.xlog1py(x, -x / 3),
        lambda x: jax.scipy.special.xlog1py(x, -x / 3),
        np.array([0.0, 0.5, 1.0]),
    ),
    "heaviside": (
        lambda x: np.heaviside(x, 0.5) * x**2,
        lambda x: jnp.heaviside(x, 0.5) * x**2,
        np.array([0.0, 0.5, -1.0]),
    ),
    "cumsum2d": (
        lambda A: np.cumsum(A, axis=0)[-1] * np.cumsum(A, axis=1)[:, -1].sum(),
        lambda A: jnp.cumsum(A, axis=0)[-1] * jnp.cumsum(A, axis=1)[:, -1].sum(),
        np.arange(6.0).reshape(2, 3),
    ),
    "diff_prepend": (
        lambda x: np.diff(x, prepend=0.0, append=x[-1]),
        lambda x: jnp.diff(x, prepend=0.0, append=x[-1]),
        x,
    ),
    "vander": (
        lambda x, c: np.vander(x, 3) @ c,
        lambda x, c: jnp.vander(x, 3) @ c,
        x,
        c,
    ),
    "linalg_lstsq": (
        lambda A, b: np.linalg.lstsq(A, b, rcond=None)[0],
        lambda A, b: jnp.linalg.lstsq(A, b)[0],
        np.array([[1.0, 0.2], [0.3, 1.0], [1.0, 1.0]]),
        np.array([1.0, 2.0, 0.5]),
    ),
    "ediff1d": (
        lambda x: np.ediff1d(x, to_begin=x[0]),
        lambda x: jnp.ediff1d(x, to_begin=x[0]),
        x,
    ),
    "average_w": (
        lambda x, w: np.average(x, weights=w),
        lambda x, w: jnp.average(x, weights=w),
        x,
        np.array([1.0, 2.0, 0.5, 1.5]),
    ),
    "nanmean": (
        lambda x: np.nanmean(np.where(x > 1.5, np.nan, x)),
        lambda x: jnp.nanmean(jnp.where(x > 1.5, jnp.nan, x)),
        x,
    ),
    "triu_idx": (
        lambda x: np.outer(x, x)[np.triu_indices(4, 1)],
        lambda x: jnp.outer(x, x)[jnp.triu_indices(4, 1)],
        x,
    ),
    "roll2d": (
        lambda A: np.roll(A, (1, -1), axis=(0, 1)) * A,
        lambda A: jnp.roll(A, (1, -1), axis=(0, 1)) * A,
        np.arange(6.0).reshape(2, 3),
    ),
    "clip_at_bound": (
        lambda x: np.clip(x, -1.2, 0.7) ** 2,
        lambda x: jnp.clip(x, -1.2, 0.7) ** 2,
        x,
    ),
    "expm1_log1p": (
        lambda x: np.expm1(x) * np.log1p(x**2),
        lambda x: jnp.expm1(x) * jnp.log1p(x**2),
        x,
    ),
    "complex_abs": (
        lambda x: np.abs(np.fft.fft(x)) ** 2,
        lambda x: jnp.abs(jnp.fft.fft(x)) ** 2,
        x,
    ),
    "fft_angle": (
        lambda x: np.angle(np.fft.rfft(x))[1:],
        lambda x: jnp.angle(jnp.fft.rfft(x))[1:],
        x,
    ),
    "einsum_ellipsis": (
        lambda A, v: np.einsum("...ij,...j->...i", A, v),
        lambda A, v: jnp.einsum("...ij,...j->...i", A, v),
        np.arange(8.0).reshape(2, 2, 2),
        np.ones((2, 2)),
    ),
}
for k, v in P.items():
    if not which or k in which:
        run(k, *v)
