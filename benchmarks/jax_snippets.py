"""What a new user's JAX code meets: 55 snippets of common JAX numerics (linear algebra,
cumulative and windowed reductions, special functions, sorting, control flow, vmap, jit,
checkpointing) through ``dgraph.make_function(f, point=[x])`` (x: 12 entries in
[0.2, 1.2), seed 2), each Jacobian compared with ``jax.jacfwd``. Prints the right ones and,
for each other, the one line it was refused with (or its error).

    python benchmarks/jax_snippets.py
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(2)


def M(x):
    return x[:9].reshape(3, 3) + 3 * jnp.eye(3)


cases = {
    "solve": lambda x: jnp.linalg.solve(M(x), x[:3]),
    "inv": lambda x: jnp.linalg.inv(M(x)).ravel(),
    "det": lambda x: jnp.linalg.det(M(x)),
    "slogdet": lambda x: jnp.linalg.slogdet(M(x))[1],
    "cholesky": lambda x: jnp.linalg.cholesky(M(x) @ M(x).T).ravel(),
    "eigh": lambda x: jnp.linalg.eigh(M(x) + M(x).T)[0],
    "qr": lambda x: jnp.linalg.qr(M(x))[1].ravel(),
    "svdvals": lambda x: jnp.linalg.svd(M(x), compute_uv=False),
    "norm2": lambda x: jnp.linalg.norm(M(x), ord=2),
    "cumprod": lambda x: jnp.cumprod(x),
    "cummax": lambda x: jax.lax.cummax(x),
    "cumlogsumexp": lambda x: jax.lax.cumlogsumexp(x),
    "interp": lambda x: jnp.interp(jnp.linspace(0, 1, 4), jnp.linspace(0, 1, 12), x),
    "searchsorted_interp_x": lambda x: jnp.interp(
        x[:3] ** 2, jnp.linspace(0, 4, 5), jnp.arange(5.0)
    ),
    "take_along": lambda x: jnp.take_along_axis(x, jnp.argsort(x), axis=0),
    "one_hot": lambda x: jax.nn.one_hot(2, 12) * x,
    "kron": lambda x: jnp.kron(x[:3], x[3:6]),
    "tensordot": lambda x: jnp.tensordot(M(x), M(x), axes=1).ravel(),
    "fft": lambda x: jnp.abs(jnp.fft.fft(x)),
    "rfft": lambda x: jnp.fft.rfft(x).real,
    "expm": lambda x: jax.scipy.linalg.expm(M(x) / 10).ravel(),
    "erf": lambda x: jax.scipy.special.erf(x),
    "gammaln": lambda x: jax.scipy.special.gammaln(x**2 + 1),
    "logaddexp": lambda x: jnp.logaddexp(x, 2 * x),
    "nan_to_num": lambda x: jnp.nan_to_num(x / x[0]),
    "median": lambda x: jnp.median(x),
    "percentile": lambda x: jnp.percentile(x, 30.0),
    "top_k": lambda x: jax.lax.top_k(x, 3)[0],
    "argsort_gather": lambda x: x[jnp.argsort(x)][:3],
    "dynamic_idx": lambda x: x * x[jnp.argmax(x)],
    "vmap_dot": lambda x: jax.vmap(jnp.dot)(x[:6].reshape(3, 2), x[6:].reshape(3, 2)),
    "softplus": lambda x: jax.nn.softplus(x),
    "logsumexp_axis": lambda x: jax.scipy.special.logsumexp(x.reshape(3, 4), axis=1),
    "triangular_solve": lambda x: jax.scipy.linalg.solve_triangular(
        jnp.tril(M(x)), x[:3], lower=True
    ),
    "cho_solve": lambda x: jax.scipy.linalg.cho_solve(
        jax.scipy.linalg.cho_factor(M(x) @ M(x).T), x[:3]
    ),
    "lstsq": lambda x: jnp.linalg.lstsq(M(x), x[:3])[0],
    "pinv": lambda x: jnp.linalg.pinv(M(x)).ravel(),
    "custom_root": lambda x: jax.lax.custom_root(
        lambda y: y**3 - x[:3],
        jnp.ones(3),
        lambda f, y0: jax.lax.while_loop(
            lambda y: jnp.abs(f(y)).max() > 1e-12, lambda y: y - f(y) / (3 * y**2), y0
        ),
        lambda g, y: y / 3.0,
    ),
    "remat": lambda x: jax.checkpoint(lambda z: jnp.sin(z) * z)(x),
    "jit_inner": lambda x: jax.jit(lambda z: jnp.tanh(z) ** 2)(x),
    "map": lambda x: jax.lax.map(lambda r: jnp.sum(r**2), x.reshape(3, 4)),
    "associative_scan": lambda x: jax.lax.associative_scan(jnp.add, x),
    "reduce_window": lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (3,), (1,), "VALID"),
    "maxpool": lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (2,), (2,), "VALID"),
    "switch": lambda x: jax.lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], x),
    "select_n": lambda x: jax.lax.select_n(x > 0, x, x**2),
    "clamp": lambda x: jax.lax.clamp(-0.5, x, 0.5),
    "round_ste": lambda x: x + jax.lax.stop_gradient(jnp.round(x) - x),
    "integer_pow_neg": lambda x: x**-3,
    "atan2": lambda x: jnp.arctan2(x, x[::-1]),
    "complex_abs": lambda x: jnp.abs(x + 1j * x[::-1]),
    "bessel": lambda x: jax.scipy.special.i0e(x),
    "xlogy": lambda x: jax.scipy.special.xlogy(x, x**2 + 1),
    "einsum3": lambda x: jnp.einsum("ij,jk,ki->", M(x), M(x), M(x)),
    "where_nan": lambda x: jnp.where(x > 0, jnp.sqrt(jnp.abs(x)), 0.0),
}


def main() -> None:
    right, wrong = [], []
    for name, f in cases.items():
        x = rng.uniform(0.2, 1.2, 12)
        try:
            J = np.asarray(jax.jacfwd(f)(x)).reshape(-1, 12)
            made = dgraph.make_function(f, point=[x])
            found = np.asarray(made(x)).reshape(J.shape)
            err = np.abs(found - J).max() / max(1, np.abs(J).max())
            (right if err < 1e-9 else wrong).append((name, f"error {err:.1e}"))
        except Exception as e:
            wrong.append((name, type(e).__name__ + ": " + str(e)[:160]))
    print(f"right: {len(right)} of {len(cases)}:", " ".join(n for n, _ in right))
    for name, why in wrong:
        print(f"  {name}: {why}")


if __name__ == "__main__":
    main()
