"""lu's tangent against a 50-digit reference (mpmath) at the same pivots: dgraph's
(dgraph.blocks.decompositions.tangent) and JAX's (jax.jvp of lax.linalg.lu), on 6×6
matrices of condition number c (issue 55). Usage: python benchmarks/lu_tangent_accuracy.py"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mpmath
import numpy as np

from dgraph.blocks import decompositions as dec
from dgraph.blocks.linalg import NumPyOps

jax.config.update("jax_enable_x64", True)
mpmath.mp.dps = 50


class Op:
    primitive, shape = "lu", (6, 6)


def reference(a: np.ndarray, d: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """dLU = L·tril(X, -1) + triu(X)·U, X = L⁻¹·P·dA·U⁻¹, in 50 digits, rows held."""
    n = a.shape[0]
    pa = mpmath.matrix([[mpmath.mpf(float(a[p, j])) for j in range(n)] for p in perm])
    pd = mpmath.matrix([[mpmath.mpf(float(d[p, j])) for j in range(n)] for p in perm])
    lo, up = mpmath.eye(n), mpmath.zeros(n, n)
    for i in range(n):  # Doolittle, no pivoting (P·A's rows are already in order)
        for j in range(i, n):
            up[i, j] = pa[i, j] - sum(lo[i, k] * up[k, j] for k in range(i))
        for j in range(i + 1, n):
            lo[j, i] = (pa[j, i] - sum(lo[j, k] * up[k, i] for k in range(i))) / up[i, i]
    x = lo**-1 * pd * up**-1
    tl = mpmath.matrix(n, n)
    tu = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            (tl if i > j else tu)[i, j] = x[i, j]
    out = lo * tl + tu * up
    return np.array([[float(out[i, j]) for j in range(n)] for i in range(n)])


def matrix(c: float, rng: np.random.Generator) -> np.ndarray:
    u, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    v, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    return u @ np.diag(np.logspace(0, -np.log10(c), 6)) @ v.T


def main() -> None:
    rng = np.random.default_rng(0)
    print("cond   dgraph_rel_err  jax_rel_err  (max over 5 matrices)")
    for c in (1e4, 1e8, 1e10, 1e12):
        worst = [0.0, 0.0]
        for _ in range(5):
            a, d = matrix(c, rng), rng.normal(size=(6, 6))
            _, _, perm = jax.lax.linalg.lu(jnp.array(a))
            _, t = jax.jvp(lambda m: jax.lax.linalg.lu(m)[0], (jnp.array(a),), (jnp.array(d),))
            mine = dec.tangent(Op, [a], d, dec.forward(Op, [a], NumPyOps), NumPyOps)
            ref = reference(a, d, np.asarray(perm))
            scale = np.abs(ref).max()
            for i, got in enumerate((mine, np.asarray(t))):
                worst[i] = max(worst[i], np.abs(got - ref).max() / scale)
        print(f"{c:.0e}  {worst[0]:.2e}        {worst[1]:.2e}")


if __name__ == "__main__":
    main()
