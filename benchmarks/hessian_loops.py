"""Sparse Hessians of loops indexed by their counter: build CPU seconds, nonzeros, the
largest error against ``jax.hessian`` and the growth exponent of the build.

    python benchmarks/hessian_loops.py [SIZES ...] [--only NAME] [--no-programs]
    python benchmarks/hessian_loops.py --patterns [SIZES ...] [--only NAME]

JAX's gradient of a ``fori_loop`` over ``x[i]`` stacks the counter and writes at it in
its reverse sweep; dgraph reads that counter before the program runs
(``jaxpr_loops._counted_outputs``) and takes the reverse sweep's writes as per-step
selections (``jaxpr_steps``): tables of the positions each step writes, and patterns
swept over the rows each step changes (``dgraph.core.step_rows``), so reading the
gradient's graph and its patterns grows as T·(entries per step) + n. ``--patterns``
times that part alone (the graph of the gradient and its loops' patterns: CPU seconds,
nonzeros of the patterns, peak memory), for sizes where the whole build (its generated
code's tangent sweep carries dense n × columns arrays per step) would not finish.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np


def functions() -> dict:
    import jax
    import jax.numpy as jnp

    def chained_rosenbrock(x):
        body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
        return jax.lax.fori_loop(0, x.shape[0] - 1, body, 0.0)

    def window(x):
        body = lambda i, a: a + jnp.sum(jnp.sin(jax.lax.dynamic_slice(x, (i,), (3,)))) * a  # noqa: E731
        return jax.lax.fori_loop(0, x.shape[0] - 2, body, 1e-3)

    return {"chained Rosenbrock, fori_loop": chained_rosenbrock, "window of 3, fori_loop": window}


def programs(rk4_steps: int = 15) -> dict:
    """Loop programs as users write them, each at a fixed size: (function, point); the
    RK4 loop takes ``rk4_steps`` steps."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(1)
    data = jnp.asarray(rng.normal(size=(8, 3)))
    obs = jnp.asarray(rng.normal(size=10))
    emissions = jnp.asarray(rng.uniform(0.1, 1.0, size=(3, 2)))
    observed = jnp.asarray(rng.integers(0, 2, size=8))

    def rnn(w):
        W, b = w[:9].reshape(3, 3), w[9:12]
        h, _ = lax.scan(lambda h, x: (jnp.tanh(W @ h + x + b), None), jnp.zeros(3), data)
        return jnp.sum(h**2)

    def kalman(theta):
        a, q, r = theta[0], jnp.exp(theta[1]), jnp.exp(theta[2])

        def step(c, y):
            m, P, ll = c
            mp, Pp = a * m, a * a * P + q
            S = Pp + r
            K = Pp / S
            return (
                mp + K * (y - mp),
                (1 - K) * Pp,
                ll + 0.5 * (jnp.log(S) + (y - mp) ** 2 / S),
            ), None

        return lax.scan(step, (0.0, 1.0, 0.0), obs)[0][2]

    def hmm(logits):
        log_a = jax.nn.log_softmax(logits.reshape(3, 3), axis=1)

        def step(alpha, y):
            forward = jax.scipy.special.logsumexp(alpha[:, None] + log_a, axis=0)
            return forward + jnp.log(emissions[:, y]), None

        alpha, _ = lax.scan(step, jnp.log(jnp.ones(3) / 3), observed)
        return -jax.scipy.special.logsumexp(alpha)

    def rk4(p):
        f = lambda s: jnp.array([s[1], -p[0] * s[0] - p[1] * s[1] ** 3])  # noqa: E731

        def body(i, s):
            k1 = f(s)
            k2 = f(s + 0.05 * k1)
            k3 = f(s + 0.05 * k2)
            k4 = f(s + 0.1 * k3)
            return s + 0.1 / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        return jnp.sum(lax.fori_loop(0, rk4_steps, body, jnp.array([1.0, 0.0])) ** 2)

    def noisy(x):
        keys = jax.random.split(jax.random.key(0), 6)
        body = lambda a, k: (a + jnp.sin(x) * a * jax.random.normal(k, x.shape), None)  # noqa: E731
        return jnp.sum(lax.scan(body, jnp.ones(x.shape), keys)[0] ** 2)

    return {
        "RNN, scan of tanh(W h + x + b)": (rnn, rng.normal(size=12) * 0.3),
        "Kalman filter likelihood, scan": (kalman, np.array([0.8, -1.0, -0.5])),
        "HMM forward algorithm, logsumexp in a scan": (hmm, rng.normal(size=9) * 0.3),
        "RK4 of a Duffing oscillator, fori_loop": (rk4, np.array([1.0, 0.3])),
        "noise from a key per step, scan": (noisy, rng.normal(size=5)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[30, 100, 300])
    parser.add_argument("--only", default="", help="functions whose name contains this")
    parser.add_argument("--no-programs", action="store_true", help="skip the second table")
    parser.add_argument("--patterns", action="store_true", help="graph and patterns only")
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    chosen = {k: f for k, f in functions().items() if args.only.lower() in k.lower()}
    if args.patterns:
        patterns(chosen, args.sizes)
        return

    print("| function | n | build CPU s | nnz | jax.hessian nnz | max error / max abs |")
    print("|---|---|---|---|---|---|")
    builds: dict[str, list[tuple[int, float]]] = {}
    for name, f in chosen.items():
        for n in args.sizes:
            x = np.linspace(-0.8, 0.9, n)
            start = time.process_time()
            h = dgraph.hessian(f, x, sparse=True)
            built = time.process_time() - start
            got = h(x + 0.01).toarray()
            want = np.asarray(jax.jit(jax.hessian(f))(x + 0.01))
            error = np.abs(got - want).max() / np.abs(want).max()
            nnz = np.count_nonzero(got)
            print(
                f"| {name} | {n} | {built:.2f} | {nnz} | {np.count_nonzero(want)} | {error:.1e} |"
            )
            builds.setdefault(name, []).append((n, built))
    growth(builds, "build")
    if args.no_programs:
        return
    print()
    print("| program | unknowns | build CPU s | nnz | jax.hessian nnz | max error / max abs |")
    print("|---|---|---|---|---|---|")
    for name, (f, x) in programs().items():
        start = time.process_time()
        h = dgraph.hessian(f, x, sparse=True)
        built = time.process_time() - start
        got, want = h(x).toarray(), np.asarray(jax.hessian(f)(x))
        error = np.abs(got - want).max() / np.abs(want).max()
        nnz, true = np.count_nonzero(got), np.count_nonzero(want)
        print(f"| {name} | {x.size} | {built:.2f} | {nnz} | {true} | {error:.1e} |")


def growth(rows_by_name: dict[str, list[tuple[int, float]]], what: str) -> None:
    """The growth exponent between the first and the last size of each function."""
    for name, rows in rows_by_name.items():
        (n0, t0), (n1, t1) = rows[0], rows[-1]
        if n1 != n0 and t0 > 0:
            print(f"{name}: {what} grows as n^{math.log(t1 / t0) / math.log(n1 / n0):.2f}")


def patterns(chosen: dict, sizes: list[int]) -> None:
    """The graph of the gradient and its loops' patterns alone: CPU seconds, the
    patterns' nonzeros, the per-step tables' shapes, peak memory (the process's)."""
    import resource

    from dgraph.core.regions import regions_of
    from dgraph.frontends.jax_hessian import gradient_graph

    print("| function | n | graph and patterns CPU s | pattern nnz | tables | peak RSS GB |")
    print("|---|---|---|---|---|---|")
    times: dict[str, list[tuple[int, float]]] = {}
    for name, f in chosen.items():
        for n in sizes:
            x = np.linspace(-0.8, 0.9, n)
            start = time.process_time()
            graph = gradient_graph(f, x)
            loops = [r for _, r in regions_of(graph)]
            nnz = sum(m.nnz for r in loops for m in r._patterns().values())
            took = time.process_time() - start
            shapes = sorted({t.shape for r in loops for t in r.step_tables.values()})
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
            print(f"| {name} | {n} | {took:.2f} | {nnz} | {shapes} | {peak:.2f} |", flush=True)
            times.setdefault(name, []).append((n, took))
    growth(times, "graph and patterns")


if __name__ == "__main__":
    main()
