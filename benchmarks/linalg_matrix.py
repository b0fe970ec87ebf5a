"""Dense linear algebra through every generated mode: for each snippet (16 entries x in
[0.2, 1.2), seed 3; ``M(x)`` a 3×3 matrix, ``M4(x)`` a 4×4 one, each with a dominant
diagonal), ``make_function(f, mode, lang, point=[x])`` for the Jacobian, ``jvp`` and
``vjp`` in NumPy and JAX, and ``dgraph.hessian`` of ``sum(f(x)²)``, each compared with
JAX (``jacfwd``, ``hessian``). Prints one row per snippet: ``ok``, ``WRONG`` (the error)
or the first words of the line it was refused with.

    python benchmarks/linalg_matrix.py [NAME ...]
"""

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)


def M(x):
    return x[:9].reshape(3, 3) + 3 * jnp.eye(3)


def M4(x):
    return x[:16].reshape(4, 4) + 4 * jnp.eye(4)


def T(x):
    return x[:12].reshape(4, 3) + jnp.eye(4, 3) * 3


SPD = lambda x: M(x) @ M(x).T  # noqa: E731

cases = {
    "det3": lambda x: jnp.linalg.det(M(x)),
    "det4": lambda x: jnp.linalg.det(M4(x)),
    "slogdet": lambda x: jnp.linalg.slogdet(M4(x))[1],
    "slogdet_sign": lambda x: jnp.linalg.slogdet(M(x))[0] * x[:2],
    "qr": lambda x: jnp.concatenate([q.ravel() for q in jnp.linalg.qr(T(x))]),
    "svdvals": lambda x: jnp.linalg.svd(T(x), compute_uv=False),
    "svd_uv": lambda x: jnp.concatenate([u.ravel() for u in jnp.linalg.svd(M(x))]),
    "norm2": lambda x: jnp.linalg.norm(M(x), ord=2),
    "lstsq": lambda x: jnp.linalg.lstsq(T(x), x[:4])[0],
    "pinv": lambda x: jnp.linalg.pinv(M(x)).ravel(),
    "eigh": lambda x: jnp.linalg.eigh(SPD(x))[0],
    "cholesky": lambda x: jnp.linalg.cholesky(SPD(x)).ravel(),
    "cho_solve": lambda x: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(SPD(x)), x[:3]),
    "inv": lambda x: jnp.linalg.inv(M(x)).ravel(),
    "lu_factor": lambda x: jax.scipy.linalg.lu_factor(M(x))[0].ravel(),
    "expm": lambda x: jax.scipy.linalg.expm(M(x) / 4).ravel(),
}
COLUMNS = [(m, lang) for lang in ("python", "jax") for m in ("jacobian", "jvp", "vjp")]


def cell(f, mode, lang, x, J) -> str:
    v = np.random.default_rng(4).standard_normal(J.shape[1])
    w = np.random.default_rng(5).standard_normal(J.shape[0])
    try:
        if mode == "hessian":
            g = lambda z: jnp.sum(f(z) ** 2)  # noqa: E731
            want = np.asarray(jax.hessian(g)(x))
            found = np.asarray(dgraph.hessian(g, x, lang=lang)(x))
        else:
            made = dgraph.make_function(f, mode, lang, point=[x])
            if mode == "jacobian":
                want, found = J, np.asarray(made(x)).reshape(J.shape)
            elif mode == "jvp":
                want, found = J @ v, np.asarray(made(x, v)).reshape(-1)
            else:
                want, found = w @ J, np.asarray(made(x, w)).reshape(-1)
        err = np.abs(found - want).max() / max(1.0, np.abs(want).max())
        return "ok" if err < 1e-8 else f"WRONG {err:.0e}"
    except Exception as e:
        return "refused: " + " ".join(str(e).split())[:70]


def main(names) -> None:
    x = np.random.default_rng(3).uniform(0.2, 1.2, 16)
    print("| snippet | " + " | ".join(f"{m} {lang}" for m, lang in COLUMNS) + " | hessian |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for name in names or cases:
        f = cases[name]
        J = np.asarray(jax.jacfwd(f)(x)).reshape(-1, x.size)
        cells = [cell(f, m, lang, x, J) for m, lang in COLUMNS]
        cells.append(cell(f, "hessian", "python", x, J))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
