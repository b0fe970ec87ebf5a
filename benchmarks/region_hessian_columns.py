"""Dense Hessians of a time loop by columns of the gradient graph's tangent program
(``dgraph/codegen/tensor/jacobian_columns.py``) against the loops' own Jacobian sweeps
(the choice forced off), and ``jax.jit(jax.hessian)``, in one run: build and per-call
CPU seconds (``time.process_time``, median of 3 calls; JAX's of 5), the counts the
choice compared, the largest error against JAX's.

    python benchmarks/region_hessian_columns.py [NAME:N:T[:after] ...]   (NAME: forces, kicks)

``:after`` builds the columns' Hessian alone (the loops' sweeps grow as n⁴ here).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from region_body_maps import FUNCTIONS


def _timed(make, x, calls: int = 3) -> tuple[float, float, np.ndarray, object]:
    t = time.process_time()
    h = make()
    built = time.process_time() - t
    took = []
    for _ in range(calls):
        t = time.process_time()
        value = np.asarray(h(x))
        took.append(time.process_time() - t)
    return built, float(np.median(took)), value, h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["forces:20:5", "forces:30:10"])
    parser.add_argument("--lang", default="python", choices=["python", "jax"])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph
    from dgraph.codegen.tensor import function as tensor_function

    print(
        "| function | n | steps | lang | loops' sweeps: build s / call s |"
        " columns: build s / call s | jax.jit(jax.hessian) call ms |"
        " call ratio (sweeps / columns) | loops' fma | columns' mults | max error |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    real = tensor_function.columns_choice
    for case in args.cases:
        name, n, steps, *after = case.split(":")
        n, steps = int(n), int(steps)
        f, x = FUNCTIONS[name](n, steps), np.linspace(0.1, 1.0, n)

        def make(f=f, x=x):
            return dgraph.make_function(f, "hessian", args.lang, point=(x,))

        ref = jax.jit(jax.hessian(f))
        _, jc, jh, _ = _timed(lambda ref=ref: ref, x, calls=5)
        cb, cc, ch, made = _timed(make, x)
        choice = tensor_function.columns_choice(made.gradient.generated.expression_set.graph)
        error = np.abs(ch - jh).max()
        before, ratio = "–", "–"
        if not after:
            tensor_function.columns_choice = lambda graph: None
            try:
                wb, wc, wh, _ = _timed(make, x)
            finally:
                tensor_function.columns_choice = real
            error = max(error, np.abs(wh - jh).max())
            before, ratio = f"{wb:.1f} / {wc:.3f}", f"{wc / cc:.0f}"
        print(
            f"| {name} | {n} | {steps} | {args.lang} | {before} | {cb:.1f} / {cc:.3f} |"
            f" {1e3 * jc:.2f} | {ratio} | {choice.region_fma:,} | {choice.mults:,} |"
            f" {error / np.abs(jh).max():.1e} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
