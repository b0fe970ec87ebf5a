"""Dense Hessians of a time loop whose step sums over particles in a ``fori_loop``
(a sum loop inside a region's body): build and per-call CPU seconds with the sum loop
mapped in the body (``jaxpr_reductions``) against the same with the body left as written
(both loops regions), and ``jax.jit(jax.hessian)``'s call, in one run.

    python benchmarks/region_body_maps.py [NAME:N:T ...]    (NAME: forces, kicks)
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def forces(n: int, steps: int):
    import jax
    import jax.numpy as jnp

    def f(x):
        def step(c, t):
            force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
            return c + 0.05 * jax.lax.fori_loop(0, n, force, jnp.zeros(n)), None

        return jnp.sum(jax.lax.scan(step, x, jnp.arange(steps))[0] ** 2)

    return f


def kicks(n: int, steps: int):
    """Each step adds ``Σ_j sin(x_j·c_j)·x``: the step's Jacobian through the mapped sum is
    of rank one, each (n, n) array of the batched body a broadcast."""
    import jax
    import jax.numpy as jnp

    def f(x):
        def step(c, t):
            kick = lambda j, a: a + jnp.sin(x[j] * c[j]) * x  # noqa: E731
            return c + 0.01 * jax.lax.fori_loop(0, n, kick, jnp.zeros(n)), None

        return jnp.sum(jax.lax.scan(step, x, jnp.arange(steps))[0] ** 2)

    return f


FUNCTIONS = {"forces": forces, "kicks": kicks}


def _timed(make, x, calls: int = 3) -> tuple[float, float, np.ndarray]:
    t = time.process_time()
    h = make()
    built = time.process_time() - t
    took = []
    for _ in range(calls):
        t = time.process_time()
        value = h(x)
        took.append(time.process_time() - t)
    return built, float(np.median(took)), np.asarray(getattr(value, "toarray", lambda: value)())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["forces:30:10", "kicks:100:20"])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph
    from dgraph.frontends import jaxpr_reductions

    print(
        "| function | n | steps | mapped body: build s / call s |"
        " body as written: build s / call s | jax.jit(jax.hessian) call ms |"
        " call ratio (written / mapped) | max error |"
    )
    print("|---|---|---|---|---|---|---|---|")
    real = jaxpr_reductions._inner_maps
    for case in args.cases:
        name, n, steps = case.split(":")
        n, steps = int(n), int(steps)
        f, x = FUNCTIONS[name](n, steps), np.linspace(0.1, 1.0, n)
        make = lambda f=f, x=x: dgraph.make_function(f, "hessian", point=(x,))  # noqa: E731
        mb, mc, mh = _timed(make, x)
        jaxpr_reductions._inner_maps = lambda jax, eqn: None
        try:
            wb, wc, wh = _timed(make, x)
        finally:
            jaxpr_reductions._inner_maps = real
        ref = jax.jit(jax.hessian(f))
        _, jc, jh = _timed(lambda ref=ref: ref, x, calls=5)
        error = max(np.abs(mh - jh).max(), np.abs(wh - jh).max()) / np.abs(jh).max()
        print(
            f"| {name} | {n} | {steps} | {mb:.1f} / {mc:.3f} | {wb:.1f} / {wc:.3f} |"
            f" {1e3 * jc:.2f} | {wc / mc:.1f} | {error:.1e} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
