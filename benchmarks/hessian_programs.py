"""Sparse Hessians of small real programs at a given size: build seconds, peak memory,
error against ``jax.hessian`` and nonzeros against the true count.

    python benchmarks/hessian_programs.py [N] [NAME ...] [--lang python jax]

Each program takes one vector of N entries and is the kind of objective users write:
a weighted log-sum-exp, a one-layer network's energy, a prefix-sum energy, a
convolution's, a Huber loss, a periodic difference, a scan with a scalar carry, a chained
Rosenbrock-like sum, a grid with differences on both axes, row norms, grouped softmax, and
pairwise products and maxima. ``make_function(f, "hessian", lang, point=[x], sparse=True)``
is timed (wall and the process's peak resident memory since the start of the build; each
program in its own subprocess); the result is compared with ``jax.jit(jax.hessian(f))``
at the build point (max |H - H_ref| / max |H_ref|).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def programs(n: int, jnp, jax) -> dict:
    """The objectives, each of one vector of ``n`` entries."""
    rng = np.random.default_rng(1)
    weights = rng.standard_normal((20, n)) / np.sqrt(n)
    m = int(np.sqrt(n))

    def scan(x):
        def step(c, xi):
            return 0.9 * c + jnp.sin(xi) * c * 0.01 + xi**2, c

        c, ys = jax.lax.scan(step, 1.0, x)
        return c + jnp.sum(ys) * 1e-3

    def grid(x):
        u = x[: m * m].reshape(m, m)
        return jnp.sum(jnp.diff(u, axis=0) ** 4) + jnp.sum(
            jnp.diff(u, axis=1) ** 2 * jnp.exp(u[:, 1:] * 0.1)
        )

    return {
        "logsumexp": lambda x: jax.nn.logsumexp(x * jnp.linspace(0.5, 1.5, n)),
        "mlp": lambda x: jnp.sum(jnp.tanh(jnp.asarray(weights) @ x) ** 2),
        "cumsum": lambda x: jnp.sum(jnp.cumsum(x) ** 2) * 1e-3,
        "conv": lambda x: jnp.sum(jnp.convolve(x, jnp.array([1.0, -2.0, 1.0]), mode="valid") ** 2),
        "huber": lambda x: jnp.sum(jnp.where(jnp.abs(x) < 1, 0.5 * x**2, jnp.abs(x) - 0.5)),
        "roll": lambda x: jnp.sum((jnp.roll(x, 1) - x) ** 2 * jnp.cos(x)),
        "scan": scan,
        "chain": lambda x: jnp.sum((x[1:] - x[:-1] ** 2) ** 2) + jnp.sum(jnp.log1p(x**2)),
        "grid": grid,
        "norms": lambda x: jnp.sum(jnp.sqrt(jnp.sum(x.reshape(-1, 4) ** 2, axis=1) + 1.0)),
        "softmax": lambda x: -jnp.sum(jax.nn.log_softmax(x.reshape(-1, 5), axis=1)[:, 0]),
        "pairs": lambda x: jnp.sum(
            jnp.prod(x.reshape(-1, 2), axis=1) ** 2 + jnp.max(x.reshape(-1, 2), axis=1) ** 2
        ),
    }


def run_one(n: int, name: str, lang: str) -> dict:
    """One build and its check, in this process."""
    import jax
    import jax.numpy as jnp

    import dgraph

    jax.config.update("jax_enable_x64", True)
    f = programs(n, jnp, jax)[name]
    x = np.random.default_rng(1).uniform(-0.8, 0.8, n)
    ref = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    H = dgraph.make_function(f, "hessian", lang, point=[x], sparse=True)
    build = time.perf_counter() - t0
    got = H(x)
    nnz = int(got.nnz) if hasattr(got, "nnz") and lang == "python" else int(got.data.size)
    dense = got.toarray() if hasattr(got, "toarray") else np.asarray(got.todense())
    scale = max(float(np.abs(ref).max()), 1e-300)
    return {
        "program": name,
        "n": n,
        "lang": lang,
        "build_s": build,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "peak_rise_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
        "rel_error": float(np.abs(dense - ref).max()) / scale,
        "nnz": nnz,
        "true_nnz": int(np.count_nonzero(ref)),
        "method": H.generated.method,
        "verified": bool(H.generated.verified),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=2000)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--lang", nargs="+", default=["python", "jax"])
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # n name lang: a worker
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(run_one(int(opts.one[0]), opts.one[1], opts.one[2])))
        return
    names = opts.names or list(programs(4, None, None).keys())
    print("| program | n | lang | build s | peak MB (rise) | rel. error | nnz (true) | method |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        for lang in opts.lang:
            command = [sys.executable, __file__, "--one", str(opts.n), name, lang]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=opts.timeout, check=False
                )
            except subprocess.TimeoutExpired:
                print(f"| {name} | {opts.n} | {lang} | over {opts.timeout:.0f} s | | | | |")
                continue
            lines = done.stdout.strip().splitlines()
            if done.returncode or not lines:
                why = (done.stderr.strip().splitlines() or ["failed"])[-1][:80]
                print(f"| {name} | {opts.n} | {lang} | {why} | | | | |")
                continue
            r = json.loads(lines[-1])
            print(
                f"| {name} | {r['n']} | {lang} | {r['build_s']:.2f} | {r['peak_mb']:.0f}"
                f" ({r['peak_rise_mb']:.0f}) | {r['rel_error']:.1e} | {r['nnz']} ({r['true_nnz']})"
                f" | {r['method']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
