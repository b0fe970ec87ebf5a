"""Session 46 (gather46): dense modes at index data, a take ``u[T]`` and a scatter-add at
``T`` multiplied as a gather and a segment sum, not the union's one-hot.

``python benchmarks/gather46_index_data_dense.py M`` (M x M grid mesh, ``T`` an int64
array: index data read at each call): for a P1 energy (``hvp``, ``vjp``, ``jvp``,
``hessian``) and its assembled residual (``jacobian``, ``jvp``, ``vjp``), the build's
CPU-s (median of 3), one call's CPU-s (median of 5 after one), the price (``mults``), and
the worst error against JAX (``jax.jvp``/``jax.vjp``/``jax.hessian``/``jax.jacfwd``) at
the point's triangles and at the same triangles reordered, their corners rotated (other
index data; a function made with them closed over refuses them: "-"); from 80 x 80 on the
dense modes' reference is the stiffness assembled here (``np.add.at``).
``... M langs``: ``hvp`` and the residual's ``jacobian`` in python, c and jax.
"""

import statistics
import sys
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import test_left44b as t  # the test's energy, one source
from index_data_rank2 import jenergy, mesh

jax.config.update("jax_enable_x64", True)
DENSE = ("hessian", "jacobian")


def residual_of(n):
    """The P1 residual K u + u³ per corner, assembled by np.add.at at the triangles."""

    def residual(u, T, A, G):
        ue = u[T]
        re = np.einsum("eij,ej->ei", A[:, None, None] * np.einsum("eki,ekj->eij", G, G), ue)
        r = np.zeros_like(u)
        np.add.at(r, T, re + ue**3)
        return r

    return residual


def jresidual_of(n):
    def jresidual(u, T, A, G):
        ue = u[T]
        re = jnp.einsum("eij,ej->ei", A[:, None, None] * jnp.einsum("eki,ekj->eij", G, G), ue)
        return jnp.zeros(n).at[T].add(re + ue**3)

    return jresidual


def stiffness(u, T, A, G):
    """The energy's Hessian (the residual's Jacobian) assembled: the dense reference from
    80 x 80 on, where ``jax.hessian``'s batched intermediates hold gigabytes."""
    H = np.zeros((u.size, u.size))
    np.add.at(H, (T[:, :, None], T[:, None, :]), A[:, None, None] * (G.transpose(0, 2, 1) @ G))
    np.add.at(H, (T, T), 3 * u[T] ** 2)
    return H


def cpu(f, repeat):
    times = []
    for _ in range(repeat):
        c = time.process_time()
        out = jax.block_until_ready(f())  # a JAX call dispatches, then computes
        times.append(time.process_time() - c)
    return out, statistics.median(times)


def run(m, langs=("python",)):
    T, A, G = mesh(m)
    T = T.astype(np.int64)
    n = m * m
    rng = np.random.default_rng(0)
    u, v = rng.normal(size=n), rng.normal(size=n)
    order = np.random.default_rng(1).permutation(len(T))
    other = (T[order][:, [1, 2, 0]], A[order], G[order][:, :, [1, 2, 0]])
    cases = [(T, A, G), other]
    res, jres = residual_of(n), jresidual_of(n)
    w = rng.normal(size=n)
    # (label, function, mode, call(f, case), reference(case))
    work = [
        ("energy", t.energy, "hvp", lambda f, c: f(u, *c, v),
         lambda c: jax.jvp(lambda x: jax.grad(jenergy)(x, *c), (u,), (v,))[1]),
        ("energy", t.energy, "vjp", lambda f, c: f(u, 1.5, *c),
         lambda c: 1.5 * jax.grad(jenergy)(u, *c)),
        ("energy", t.energy, "jvp", lambda f, c: f(u, v, *c),
         lambda c: jax.jvp(lambda x: jenergy(x, *c), (u,), (v,))[1]),
        ("energy", t.energy, "hessian", lambda f, c: f(u, *c),
         lambda c: jax.hessian(jenergy)(u, *c)),
        ("residual", res, "jacobian", lambda f, c: f(u, *c),
         lambda c: jax.jacfwd(jres)(u, *c)),
        ("residual", res, "jvp", lambda f, c: f(u, v, *c),
         lambda c: jax.jvp(lambda x: jres(x, *c), (u,), (v,))[1]),
        ("residual", res, "vjp", lambda f, c: f(u, w, *c),
         lambda c: jax.vjp(lambda x: jres(x, *c), u)[1](w)[0]),
    ]  # fmt: skip
    if m >= 60:  # the dense references assembled (jax.hessian's vmapped columns: GBs)
        work = [(*x[:4], (lambda c: stiffness(u, *c)) if x[2] in DENSE else x[4]) for x in work]
    if langs != ("python",):
        work = [x for x in work if (x[0], x[2]) in {("energy", "hvp"), ("residual", "jacobian")}]
    for label, f, mode, call, ref in work:
        for lang in langs:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                made, build = cpu(
                    lambda f=f, mode=mode, lang=lang: dgraph.make_function(
                        f, mode, lang, point=[u, T, A, G], params=["A", "G"]
                    ),
                    3,
                )
            closed = any("closed over" in str(c.message) for c in caught)
            call(made, cases[0])
            got, each = cpu(lambda made=made, call=call: call(made, cases[0]), 5)
            errors = []
            for k, case in enumerate(cases):
                if k and closed:
                    errors.append("-")
                    continue
                mine = got if k == 0 else call(made, case)
                mine = mine.toarray() if hasattr(mine, "toarray") else np.asarray(mine)
                want = np.asarray(ref(case))
                errors.append(f"{np.abs(mine.reshape(want.shape) - want).max():.1e}")
            g = made.gradient.generated if made.gradient is not None else made.generated
            mults = getattr(g, "mults", None)
            if mults is None and getattr(g, "expression_set", None) is not None:
                mults = g.expression_set.mults
            print(
                f"| {m}x{m} | {label} | {mode} {lang}{' (closed over)' if closed else ''} |"
                f" {made.generated.verified} | {build:.3f} | {each:.5f} | {mults:,} |"
                f" {errors[0]} / {errors[1]} |",
                flush=True,
            )


if __name__ == "__main__":
    run(int(sys.argv[1]), ("python", "c", "jax") if "langs" in sys.argv[2:] else ("python",))
