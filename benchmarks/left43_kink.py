"""The pinball loss of a JAX function with 40 residuals exactly zero at the user's point
(benchmarks/RESULTS.md, "Session 43: left43", defect 4): each ``make_function`` mode and
language, verified or not, or the error's first line.

    python benchmarks/left43_kink.py 100x3,1000x3,5000x3,100x20,200x37
"""

from __future__ import annotations

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

from dgraph import make_function  # noqa: E402

TAU = 0.75


def f(b, X, y):
    r = y - X @ b
    return jnp.sum(jnp.maximum(TAU * r, (TAU - 1.0) * r))


def main() -> None:
    for seed, size in enumerate(sys.argv[1].split(",")):
        n, k = (int(s) for s in size.split("x"))
        rng = np.random.default_rng(seed)
        X, b = rng.normal(size=(n, k)), rng.normal(size=k)
        y = X @ b + rng.normal(size=n)
        y[:40] = X[:40] @ b
        for mode in ("jacobian", "jvp", "vjp"):
            for lang in ("python", "c", "jax"):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        F = make_function(f, mode, lang, params=["X", "y"], point=[b, X, y])
                    check = F.generated.check
                    shown = f"verified={F.generated.verified}"
                    if not F.generated.verified and check is not None:
                        shown += f": {check.detail[:160]}"
                except Exception as exc:  # the probe reports every failure
                    shown = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                print(f"{size} {mode} {lang}: {shown}", flush=True)


if __name__ == "__main__":
    main()
