"""NaN data at the array level (session 50): the Jacobian of a NumPy loss over readings
with missing entries, ``np.nanmean((A @ x - y) ** 2)`` with every 7th ``y`` NaN, A of
n × 5, at n = 300, 10⁴, 10⁵: make_function's CPU seconds and verification, and one
call's seconds against ``jax.jit(jax.grad)`` (NaN: its reverse rule multiplies the
where's 0 by the NaN partial) and ``jax.jit(jax.jacfwd)`` (finite, the reference).

    PYTHONPATH=. python benchmarks/nan_data.py [n ...] [--lang=python|c|jax]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import dgraph


def _per_call(f, x, repeat: int = 7) -> float:
    """The median of ``repeat`` timings of ``f(x)``, each of as many calls as fill 0.2 s."""
    f(x)
    start, count = time.process_time(), 0
    while time.process_time() - start < 0.2:
        f(x)
        count += 1
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(count):
            f(x)
        runs.append((time.process_time() - t) / count)
    return float(np.median(runs))


def _row(n: int, lang: str) -> str:
    """One size's line of the table."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    A = rng.normal(size=(n, 5))
    y = rng.normal(size=n)
    y[::7] = np.nan
    x = np.ones(5)
    A_, y_ = jnp.asarray(A), jnp.asarray(y)

    def f(x):
        return np.nanmean((A @ x - y) ** 2)

    def fj(x):
        return jnp.nanmean((A_ @ x - y_) ** 2)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu, wall = time.process_time(), time.perf_counter()
        g = dgraph.make_function(f, "jacobian", lang=lang, point=[x])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    got = np.asarray(g(x))
    grad, jacfwd = jax.jit(jax.grad(fj)), jax.jit(jax.jacfwd(fj))
    want = np.asarray(jacfwd(x))
    mine = _per_call(g, x)
    theirs = _per_call(lambda v: grad(v).block_until_ready(), x)
    forward = _per_call(lambda v: jacfwd(v).block_until_ready(), x)
    nan = bool(np.isnan(grad(x)).any())
    return (
        f"{n:>7} {lang:>6} {cpu:>10.2f} {wall:>7.2f} {g.generated.verified!s:>8}"
        f" {mine * 1e6:>9.1f} {theirs * 1e6:>8.1f} {forward * 1e6:>9.1f}"
        f" {np.max(np.abs(got - want)):>13.1e} {nan!s:>8}"
    )


def main(sizes: list[int], lang: str) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    print(f"{'n':>7} {'lang':>6} {'make CPU-s':>10} {'wall-s':>7} {'verified':>8} {'call µs':>9}"
          f" {'grad µs':>8} {'jacfwd µs':>9} {'max|J-jacfwd|':>13} {'grad NaN':>8}")  # fmt: skip
    for n in sizes:
        print(_row(n, lang), flush=True)


if __name__ == "__main__":
    langs = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--lang=")]
    numbers = [int(float(a)) for a in sys.argv[1:] if not a.startswith("--")]
    main(numbers or [300, 10_000, 100_000], langs[0] if langs else "python")
