"""Session 45 (left45): integer-array arguments as index data, and the Hessian of JAX's
det of a stack of matrices.

``python benchmarks/left45_integer_args.py``: each case's worst error against JAX
(``jax.jacfwd(f, argnums=0)`` / ``jax.hessian``) at the point's triangles ``T0`` (an
integer array, no ``astype``, no ``params=``) and at other ones ``T1`` (the made function
called again), whether the graph is the one of the ``T.astype(int)`` form with
``params=["T"]``, and the build's CPU-s (first in the process, median of 3); then the
stacked-det Hessians against ``jax.hessian`` at the point and at another stack.
``python benchmarks/left45_integer_args.py K``: the Hessian of ``sum(det(A)²)`` for a
stack of K 4 x 4 matrices, CPU-s of 3 builds in the process (first, median).
"""

import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)

T0 = np.array([[0, 1, 2], [2, 3, 4], [1, 4, 5], [0, 2, 5]])
T1 = np.array([[5, 1, 0], [2, 3, 3], [1, 0, -1], [4, 4, 4]])


def timed(build):
    times, out = [], None
    for _ in range(3):
        c = time.process_time()
        out = build()
        times.append(time.process_time() - c)
    return out, f"{times[0]:.2f} ({statistics.median(times):.2f})"


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def np_energy(E, T):
    return np.sum(np.sin(E[T]) ** 2) + np.sum(E[T[:, 0]] * E[T[:, 1]])


def jax_energy(E, T):
    return jnp.sum(jnp.sin(E[T]) ** 2) + jnp.sum(E[T[:, 0]] * E[T[:, 1]])


def np_cast(E, T):
    k = T.astype(int)
    return np.sum(np.sin(E[k]) ** 2) + np.sum(E[k[:, 0]] * E[k[:, 1]])


def jax_cast(E, T):
    k = T.astype(int)
    return jnp.sum(jnp.sin(E[k]) ** 2) + jnp.sum(E[k[:, 0]] * E[k[:, 1]])


def ops(graph):
    return [(v, repr(graph.op(v))) for v in graph.order()]


def integer_arguments():
    E = np.random.default_rng(5).normal(size=(6, 2))
    print("| reader | made | verified | same graph as astype | error T0 / T1 | CPU-s |")
    print("|---|---|---|---|---|---|")
    for label, f, cast in (("numpy", np_energy, np_cast), ("jax", jax_energy, jax_cast)):
        cast_graph = dgraph.make_function(cast, params=["T"], point=[E, T0.astype(float)])
        for mode, lang, sp in (
            ("jacobian", "python", False),
            ("jacobian", "python", True),
            ("jacobian", "c", False),
            ("hessian", "python", False),
            ("hessian", "c", False),
        ):
            made, cpu = timed(
                lambda f=f, mode=mode, lang=lang, sp=sp: dgraph.make_function(
                    f, mode, lang, point=[E, T0], sparse=sp
                )
            )
            ref = jax.jacfwd if mode == "jacobian" else jax.hessian
            errs = []
            for T in (T0, T1):
                want = np.asarray(ref(jax_energy, argnums=0)(E, T))
                errs.append(np.abs(dense(made(E, T)).reshape(want.shape) - want).max())
            g = made.gradient.generated.graph if mode == "hessian" else made.generated.graph
            same = ops(g) == ops(cast_graph.generated.graph) if mode == "jacobian" else "-"
            what = f"{mode} {lang}{' sparse' if sp else ''}"
            print(
                f"| {label} | {what} | {made.generated.verified} | {same} |"
                f" {errs[0]:.1e} / {errs[1]:.1e} | {cpu} |"
            )


def stacked_dets():
    rng = np.random.default_rng(0)
    cases = (
        ("sum det(A)^2", lambda A: jnp.sum(jnp.linalg.det(A) ** 2), (3, 4, 4), False),
        ("sum logabsdet", lambda A: jnp.sum(jnp.linalg.slogdet(A)[1]), (3, 5, 5), False),
        (
            "sum sign * logabsdet^2",
            lambda A: jnp.sum(jnp.linalg.slogdet(A)[0] * jnp.linalg.slogdet(A)[1] ** 2),
            (2, 3, 4, 4),
            False,
        ),
        ("det(A) * A[:, 0, 0], weights", lambda A: jnp.linalg.det(A) * A[:, 0, 0], (3, 4, 4), True),
    )
    print("| function | stack | made | verified | relative error A / A' | CPU-s |")
    print("|---|---|---|---|---|---|")
    for label, f, shape, weighted in cases:
        A, other = rng.standard_normal(shape), rng.standard_normal(shape)
        w = rng.standard_normal(shape[:-2]) if weighted else None
        total = (lambda B, f=f, w=w: jnp.sum(w * f(B))) if weighted else f
        for lang in ("python", "c"):
            H, cpu = timed(
                lambda f=f, A=A, lang=lang, w=w: dgraph.hessian(f, A, lang=lang, weights=w)
            )
            errs = []
            for X in (A, other):
                want = np.asarray(jax.hessian(total)(X))
                got = H(X, w) if weighted else H(X)
                errs.append(np.abs(got - want).max() / np.abs(want).max())
            print(
                f"| {label} | {shape} | hessian {lang} | {H.generated.verified} |"
                f" {errs[0]:.1e} / {errs[1]:.1e} | {cpu} |"
            )


def scale(k):
    A = np.random.default_rng(k).standard_normal((k, 4, 4))
    H, cpu = timed(lambda: dgraph.hessian(lambda A: jnp.sum(jnp.linalg.det(A) ** 2), A))
    want = np.asarray(jax.hessian(lambda A: jnp.sum(jnp.linalg.det(A) ** 2))(A))
    err = np.abs(H(A) - want).max() / np.abs(want).max()
    print(f"| {k} | {H.generated.verified} | {err:.1e} | {cpu} |")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        scale(int(sys.argv[1]))
    else:
        integer_arguments()
        stacked_dets()
