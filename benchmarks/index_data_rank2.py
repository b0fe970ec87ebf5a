"""Session 44 (left44b): index data of rank 2 (a mesh's triangles as a parameter).

``python benchmarks/index_data_rank2.py``: each case's worst error against JAX
(``jax.jacfwd``/``jax.hessian``) at the point's triangles and at other ones (the made
function called again), and its build's CPU-s (first in the process, median of 3).
``python benchmarks/index_data_rank2.py M``: a P1 energy's sparse Hessian on an M x M grid
mesh, its build and call CPU-s and its error against the assembled stiffness, at the
point's triangles and at the same triangles in another order (other index data);
``... M int``: the triangles given as an integer array (closed over: the point's pattern).
"""

import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import test_left44b as t  # the test's functions, one source

jax.config.update("jax_enable_x64", True)
PARAMS = ["T", "A", "G"]


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def timed(build):
    times, out = [], None
    for _ in range(3):
        c = time.process_time()
        out = build()
        times.append(time.process_time() - c)
    return out, f"{times[0]:.2f} ({statistics.median(times):.2f})"


def jcorners(E, e, T):
    k = T.astype(int)
    rows = jnp.sum(E[k] ** 2 * t.W[None, :, None], axis=2)
    return jnp.ravel(rows * jnp.sin(e[k]) + jnp.take(E, k, axis=0)[:, :, 0] ** 3)


def jenergy(u, T, A, G):
    ue = u[T.astype(int)]
    g = jnp.einsum("eij,ej->ei", G, ue)
    return 0.5 * jnp.sum(A * jnp.sum(g**2, axis=1)) + 0.25 * jnp.sum(ue**4)


def jresidual(u, T, A, G):
    k = T.astype(int)
    ue = u[k]
    re = jnp.einsum("eij,ej->ei", A[:, None, None] * jnp.einsum("eki,ekj->eij", G, G), ue)
    return jnp.zeros(6).at[k].add(re + ue**3)


def jobjective(u, T, A, G):
    return 0.5 * jnp.sum(jresidual(u, T, A, G) ** 2)


def line(label, what, verified, errs, cpu):
    print(f"| {label} | {what} | {verified} | {errs[0]:.1e} / {errs[1]:.1e} | {cpu} |")


def survey():
    rng = np.random.default_rng(5)
    E, e = rng.normal(size=(6, 2)), rng.normal(size=6)
    u = np.random.default_rng(1).normal(size=6)
    cases = [(T, *t.geometry(T)) for T in (t.T0, t.T1)]
    langs = (("python", False), ("python", True), ("c", False))
    for src, label in ((t.corners, "np E[T], e[T], np.take"), (jcorners, "jax E[T]")):
        for lang, sp in langs if src is t.corners else langs[:1]:
            G, cpu = timed(
                lambda src=src, lang=lang, sp=sp: dgraph.make_function(
                    src, "jacobian", lang, params=["T"], point=[E, e, t.T0], sparse=sp
                )
            )
            errs = []
            for T in (t.T0, t.T1):
                want = jax.jacfwd(jcorners, argnums=(0, 1))(E, e, T)
                got = G(E, e, T)
                errs.append(
                    max(np.abs(dense(g).reshape(w.shape) - w).max() for g, w in zip(got, want))  # noqa: B905
                )
            line(
                label, f"jacobian {lang}{' sparse' if sp else ''}", G.generated.verified, errs, cpu
            )
    for src, ref, label in (
        (t.energy, jenergy, "np P1 energy u[T]"),
        (jenergy, jenergy, "jax P1 energy u[T]"),
        (t.objective, jobjective, "np bincount, |r|^2/2"),
        (jobjective, jobjective, "jax .at[T].add, |r|^2/2"),
    ):
        H, cpu = timed(lambda src=src: dgraph.hessian(src, u, *cases[0], params=PARAMS))
        errs = [np.abs(dense(H(u, *c)) - jax.hessian(ref)(u, *c)).max() for c in cases]
        line(label, "hessian python", H.generated.verified, errs, cpu)
    for src, label in ((t.residual, "np np.add.at(r, T, v)"), (jresidual, "jax r.at[T].add(v)")):
        for lang, sp in langs if src is t.residual else langs[:1]:
            J, cpu = timed(
                lambda src=src, lang=lang, sp=sp: dgraph.make_function(
                    src, "jacobian", lang, params=PARAMS, point=[u, *cases[0]], sparse=sp
                )
            )
            errs = [
                np.abs(dense(J(u, *c)).reshape(6, 6) - jax.jacfwd(jresidual)(u, *c)).max()
                for c in cases
            ]
            line(
                label, f"jacobian {lang}{' sparse' if sp else ''}", J.generated.verified, errs, cpu
            )


def mesh(m):
    xs, ys = np.meshgrid(np.linspace(0, 1, m), np.linspace(0, 1, m))
    P = np.stack([xs.ravel(), ys.ravel()], 1)
    tri = []
    for i in range(m - 1):
        for j in range(m - 1):
            a, b, c, d = i * m + j, i * m + j + 1, (i + 1) * m + j, (i + 1) * m + j + 1
            tri += [[a, b, d], [a, d, c]]
    T = np.array(tri, float)
    X = P[T.astype(int)]
    B = np.stack([X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]], 2)
    G = np.linalg.inv(B).transpose(0, 2, 1) @ np.array([[-1.0, 1, 0], [-1, 0, 1]])
    return T, 0.5 * np.abs(np.linalg.det(B)), G


def scale(m, integers=False):
    """``integers``: ``T`` given as an integer array (index data without ``params=``,
    session 45): the sparse Hessian made with the point's ``T`` closed over, another
    call's triangles refused (the reordered ones are then not compared)."""
    T, A, G = mesh(m)
    n = m * m
    u = np.random.default_rng(0).normal(size=n)
    c = time.process_time()
    if integers:
        T = T.astype(int)
        H = dgraph.hessian(t.energy, u, T, A, G, params=["A", "G"], sparse=True)
    else:
        H = dgraph.hessian(t.energy, u, T, A, G, params=PARAMS, sparse=True)
    build = time.process_time() - c
    c = time.process_time()
    Hu = H(u, T, A, G)
    call = time.process_time() - c
    k = T.astype(int)
    R = np.zeros((n, n))
    np.add.at(R, (k[:, :, None], k[:, None, :]), A[:, None, None] * np.einsum("eki,ekj->eij", G, G))
    np.add.at(R, (k, k), 3 * u[k] ** 2)
    err = np.abs(Hu.toarray() - R).max()
    if not integers:
        other = H(u, T[::-1].copy(), A[::-1].copy(), G[::-1].copy())  # the triangles reordered
        err = max(err, np.abs(other.toarray() - R).max())
    print(f"| {m}x{m} | {n} | {len(T)} | {build:.2f} | {call:.4f} | {err:.1e} | {Hu.nnz} |")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        scale(int(sys.argv[1]), integers="int" in sys.argv[2:])
    else:
        survey()
