"""Session 46: one-line JAX idioms through ``make_function``, each Jacobian against
``jax.jacfwd`` (WRONG above 1e-9 of the largest entry): ``python benchmarks/idioms_jax.py
[NAME ...]``."""

import sys
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from idioms_numpy import main  # the same loop (run from benchmarks/)
from jax import lax

warnings.simplefilter("ignore")
jax.config.update("jax_enable_x64", True)


@jax.custom_jvp
def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-12))


@safe_log.defjvp
def _sl(p, t):
    (x,), (v,) = p, t
    return safe_log(x), v / jnp.maximum(x, 1e-12)


seg = jnp.array([0, 1, 0, 2, 1, 2, 0, 1, 2])
C = {
    "nn_relu_gelu": lambda x: jnp.sum(jax.nn.gelu(x) + jax.nn.relu(x - 0.5) * jax.nn.silu(x)),
    "nn_softplus_sig": lambda x: jax.nn.softplus(x) * jax.nn.sigmoid(x),
    "log_softmax_where": lambda x: (
        jax.nn.log_softmax(x, where=x > 0.3, initial=-jnp.inf) if False else jax.nn.log_softmax(x)
    ),
    "logsumexp_b": lambda x: jsp.logsumexp(x, b=jnp.arange(1.0, 10.0)),
    "one_hot": lambda x: jnp.sum(jax.nn.one_hot(jnp.arange(9) % 3, 3) * x[:, None] ** 2, axis=0),
    "segment_sum": lambda x: jax.ops.segment_sum(x**2, seg, num_segments=3),
    "dynamic_slice": lambda x: lax.dynamic_slice(x, (2,), (4,)) ** 2,
    "dyn_update": lambda x: lax.dynamic_update_slice(x, x[:3] ** 2, (4,)),
    "at_set": lambda x: x.at[2].set(x[0] * x[1]) ** 2,
    "at_mul": lambda x: x.at[::2].multiply(x[1::2].sum()),
    "top_k": lambda x: lax.top_k(x, 3)[0],
    "sort": lambda x: jnp.sort(x) * jnp.arange(9.0),
    "cumsum_rev": lambda x: jnp.cumsum(x[::-1])[::-1] * x,
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x),
    "assoc_scan": lambda x: lax.associative_scan(jnp.add, x**2),
    "fori": lambda x: lax.fori_loop(0, 5, lambda i, c: c * 0.9 + jnp.sin(c), x),
    "while": lambda x: lax.while_loop(
        lambda c: c[1] < 4, lambda c: (c[0] * 1.1 + jnp.cos(c[0]), c[1] + 1), (x, 0)
    )[0],
    "scan": lambda x: lax.scan(lambda c, a: (c * a + 1.0, c**2), 1.0, x)[1],
    "cond": lambda x: lax.cond(x[0] > 0.2, lambda z: jnp.sin(z), lambda z: jnp.cos(z), x),
    "switch": lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], x),
    "vmap": lambda x: jax.vmap(lambda a, b: jnp.dot(a, b) ** 2)(x.reshape(3, 3), x.reshape(3, 3).T),
    "custom_jvp": lambda x: jnp.sum(safe_log(x) * x),
    "checkpoint": lambda x: jax.checkpoint(lambda z: jnp.sin(jnp.sin(z)))(x),
    "linalg_solve": lambda x: jnp.linalg.solve(jnp.eye(3) * 3 + x.reshape(3, 3), x[:3]),
    "eigh": lambda x: jnp.linalg.eigh(x.reshape(3, 3) + x.reshape(3, 3).T)[0],
    "svd": lambda x: jnp.linalg.svd(x.reshape(3, 3), compute_uv=False),
    "qr": lambda x: jnp.linalg.qr(x.reshape(3, 3) + 2 * jnp.eye(3))[1].ravel(),
    "inv": lambda x: jnp.linalg.inv(x.reshape(3, 3) + 2 * jnp.eye(3)).ravel(),
    "norm": lambda x: jnp.linalg.norm(x.reshape(3, 3), axis=0),
    "expm": lambda x: jax.scipy.linalg.expm(x.reshape(3, 3) * 0.3).ravel(),
    "cho_solve": lambda x: jax.scipy.linalg.cho_solve(
        jax.scipy.linalg.cho_factor(jnp.eye(3) * 3 + jnp.outer(x[:3], x[:3])), x[3:6]
    ),
    "erf_gamma": lambda x: jsp.erf(x) * jsp.gammaln(x + 1) + jsp.digamma(x + 1),
    "xlogy": lambda x: jsp.xlogy(x, x) + jsp.entr(x),
    "betainc": lambda x: jsp.betainc(2.0, 3.0, x),
    "ndtri": lambda x: jsp.ndtri(x * 0.9 + 0.05),
    "conv": lambda x: jnp.convolve(x, jnp.array([1.0, -2.0, 1.0]), mode="same"),
    "conv_general": lambda x: lax.conv_general_dilated(
        x.reshape(1, 1, 9), jnp.ones((1, 1, 3)), (1,), "SAME"
    ).ravel(),
    "reduce_window": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3,), (1,), "VALID"),
    "pad_reflect": lambda x: jnp.pad(x, 2, mode="reflect") ** 2,
    "clip_round": lambda x: jnp.clip(jnp.round(x * 4) / 4 + x**2, 0.1, 0.9),
    "where_nan": lambda x: jnp.where(x > 0.5, jnp.sqrt(x - 0.5), 0.0),
    "argmax_take": lambda x: x[jnp.argmax(x)] * x,
    "take_along": lambda x: jnp.take_along_axis(
        x.reshape(3, 3), jnp.argsort(x.reshape(3, 3), axis=1), axis=1
    ).ravel(),
    "einsum": lambda x: jnp.einsum("ij,jk,ki->", x.reshape(3, 3), x.reshape(3, 3), x.reshape(3, 3)),
    "complex": lambda x: jnp.abs(jnp.fft.rfft(x)) ** 2,
    "float32": lambda x: x.astype(jnp.float32).astype(jnp.float64) ** 2,
    "stop_gradient": lambda x: x * lax.stop_gradient(x) + x**2,
    "dict_in_tree": lambda x: jax.tree_util.tree_reduce(
        lambda a, b: a + b, {"a": x**2, "b": jnp.sin(x)}
    ),
    "rng_fixed": lambda x: x * jax.random.normal(jax.random.PRNGKey(0), (9,)),
    "isnan_guard": lambda x: jnp.nan_to_num(jnp.log(x - 0.3), nan=0.0, neginf=0.0),
    "polyval": lambda x: jnp.polyval(x[:4], x[4]),
    "interp": lambda x: jnp.interp(x, jnp.linspace(0, 1, 6), jnp.cos(jnp.linspace(0, 4, 6))),
    "searchsorted": lambda x: jnp.searchsorted(jnp.linspace(0, 1, 6), x) * x,
    "lgamma_t": lambda x: jax.scipy.stats.t.logpdf(x, 3.0),
    "norm_cdf": lambda x: jax.scipy.stats.norm.cdf(x) * jax.scipy.stats.norm.logpdf(x, 0.2, 0.5),
    "median": lambda x: jnp.median(x) * x,
    "var": lambda x: jnp.var(x, ddof=1) * jnp.std(x),
    "cross": lambda x: jnp.cross(x[:3], x[3:6]),
    "kron": lambda x: jnp.kron(x[:2], x[2:5]),
    "tril_idx": lambda x: jnp.outer(x, x)[jnp.tril_indices(9)],
    "roll": lambda x: x * jnp.roll(x, 3),
    "diff": lambda x: jnp.diff(x, n=2) ** 2,
    "hypot_atan2": lambda x: jnp.hypot(x[:4], x[4:8]) + jnp.arctan2(x[:4], x[4:8]),
}
TOLERANCE = 1e-9


def reference(f, x):
    return np.asarray(jax.jacfwd(f)(x))


if __name__ == "__main__":
    main(sys.argv[1:] or list(C), C, reference, TOLERANCE)
