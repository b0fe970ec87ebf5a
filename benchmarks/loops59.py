"""Hessians of long unrolled NumPy loops, as users write them (session 59, loops59).

    python benchmarks/loops59.py PROGRAM SIZE [MODE] [LANG]

builds ``make_function(f, MODE, LANG, point=...)`` once in this process (after a
small function's build, which pays the imports and first compiles) and prints one
line of JSON: the build's CPU seconds (``time.process_time``, all threads), whether it
was verified, and the largest error against ``jax.hessian`` (``jax.jacfwd`` for
``jacobian``) of the same program in ``jax.numpy``, relative to the largest entry.
Programs (SIZE the number of steps):

- ``lotka``: Lotka–Volterra by explicit Euler, two states as a list of scalars, four
  rate constants the inputs with the initial state; the objective a sum of squares of
  the states against data.
- ``ewma``: an exponentially weighted moving average by in-place writes
  ``y[t] = a*y[t-1] + (1-a)*x[t]`` over SIZE steps, ``a`` an input; the objective
  ``sum((y - x)**2)``.
- ``sdtw``: soft dynamic time warping of two series of SIZE points by the double loop
  over a (SIZE+1)² table with a soft minimum (``-g log Σ exp(-r/g)``).
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import numpy as np


def lotka(p, n=200):
    """p = (alpha, beta, delta, gamma, x0, y0); Euler steps of dt = 0.01."""
    a, b, d, g, x, y = p[0], p[1], p[2], p[3], p[4], p[5]
    xs, ys = [x], [y]
    dt = 0.01
    for _ in range(n):
        x, y = x + dt * (a * x - b * x * y), y + dt * (d * x * y - g * y)
        xs.append(x)
        ys.append(y)
    t = np.arange(n + 1) * dt
    return np.sum((np.stack(xs) - 1.0 - 0.1 * t) ** 2) + np.sum((np.stack(ys) - 0.5) ** 2)


def ewma(v, n=500):
    """v = (a, x_0 ... x_{n-1})."""
    a, x = v[0], v[1:]
    y = np.zeros(n)
    y[0] = x[0]
    for t in range(1, n):
        y[t] = a * y[t - 1] + (1 - a) * x[t]
    return np.sum((y - x) ** 2)


def sdtw(v, n=15, gamma=0.1):
    """v = (x_0 … x_{n-1}, z_0 … z_{n-1}): soft-DTW of the series x and z."""
    x, z = v[:n], v[n:]
    R = np.full((n + 1, n + 1), 1e10)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            r = np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            soft = -gamma * np.log(np.sum(np.exp(-r / gamma)))
            R[i, j] = (x[i - 1] - z[j - 1]) ** 2 + soft
    return R[n, n]


def point(name: str, n: int) -> np.ndarray:
    """The program's point for SIZE ``n``."""
    rng = np.random.default_rng(59)
    if name == "lotka":
        return np.array([1.1, 0.4, 0.1, 0.4, 1.2, 0.6])
    if name == "ewma":
        return np.concatenate([[0.8], rng.normal(size=n)])
    return np.concatenate([np.sin(np.linspace(0, 3, n)), np.cos(np.linspace(0, 2.5, n))])


def reference(name: str, n: int, mode: str) -> np.ndarray:
    """JAX's Hessian (or gradient) of the same program in ``jax.numpy``."""
    import jax
    import jax.numpy as jnp

    def lotka_jax(p):
        a, b, d, g = p[0], p[1], p[2], p[3]

        def step(s, _):
            x, y = s
            s = (x + 0.01 * (a * x - b * x * y), y + 0.01 * (d * x * y - g * y))
            return s, jnp.stack(s)

        _, states = jax.lax.scan(step, (p[4], p[5]), None, length=n)
        states = jnp.concatenate([p[4:6][None], states])
        t = jnp.arange(n + 1) * 0.01
        return jnp.sum((states[:, 0] - 1.0 - 0.1 * t) ** 2) + jnp.sum((states[:, 1] - 0.5) ** 2)

    def ewma_jax(v):
        a, x = v[0], v[1:]

        def step(y, xt):
            y = a * y + (1 - a) * xt
            return y, y

        _, ys = jax.lax.scan(step, x[0], x[1:])
        return jnp.sum((jnp.concatenate([x[:1], ys]) - x) ** 2)

    def sdtw_jax(v, gamma=0.1):
        x, z = v[:n], v[n:]

        def soft(r):
            return -gamma * jnp.log(jnp.sum(jnp.exp(-r / gamma)))

        def row(previous, xi):  # previous: R[i-1, 0..n]; the row R[i, 0..n]
            def cell(left, j):
                r = jnp.stack([previous[j - 1], previous[j], left])
                value = (xi - z[j - 1]) ** 2 + soft(r)
                return value, value

            _, cells = jax.lax.scan(cell, jnp.asarray(1e10), jnp.arange(1, n + 1))
            current = jnp.concatenate([jnp.array([1e10]), cells])
            return current, None

        first = jnp.concatenate([jnp.array([0.0]), jnp.full(n, 1e10)])
        last, _ = jax.lax.scan(row, first, x)
        return last[n]

    f = {"lotka": lotka_jax, "ewma": ewma_jax, "sdtw": sdtw_jax}[name]
    with jax.enable_x64(True):
        transform = jax.hessian if mode == "hessian" else jax.grad
        return np.asarray(jax.jit(transform(f))(jnp.asarray(point(name, n))))


def main(argv: list[str]) -> None:
    import dgraph

    name, n = argv[0], int(argv[1])
    mode = argv[2] if len(argv) > 2 else "hessian"
    lang = argv[3] if len(argv) > 3 else "python"
    program = {"lotka": lotka, "ewma": ewma, "sdtw": sdtw}[name]
    x = point(name, n)

    def f(v):
        return program(v, n)

    f.__name__ = name
    warnings.simplefilter("ignore")
    dgraph.make_function(lambda v: np.sum(np.sin(v) * v[::-1]), mode, lang, point=[x[:3]])
    start = time.process_time()  # after a small function's build: imports, first compiles
    made = dgraph.make_function(f, mode, lang, point=[x])
    seconds = time.process_time() - start
    print(f"built in {seconds:.2f} CPU-s", file=sys.stderr, flush=True)
    expected = reference(name, n, mode)
    got = np.asarray(made(x))
    error = float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))
    verified = getattr(made.generated, "verified", None)
    print(json.dumps({"program": name, "size": n, "mode": mode, "lang": lang,
                      "cpu_s": round(seconds, 2), "verified": verified,
                      "error": float(f"{error:.2e}")}))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
