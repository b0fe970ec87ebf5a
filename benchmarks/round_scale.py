"""The element level's ``round``, CPU seconds against n: ``make_function(lambda x:
jnp.round(x) * x, "jacobian", point=[x])`` (trace, expand, accumulate, generate, check)
at n points uniform in [−3, 3], ``time.process_time`` around the call, after a warm-up
at n = 4; ``floor`` times ``jnp.floor(x + 0.5) * x`` instead, the element level's form
of ``round`` before session 66 (wrong at even halves), the cost to match. Prints one
line per n and the exponent of the last two sizes (cost ∝ n^e).

    python benchmarks/round_scale.py {round|floor} N [N ...]
"""

from __future__ import annotations

import math
import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

FUNCTIONS = {
    "round": lambda x: jnp.round(x) * x,
    "floor": lambda x: jnp.floor(x + 0.5) * x,
}


def seconds(f, n: int) -> float:
    """CPU seconds of one ``make_function`` of ``f``'s Jacobian at ``n`` points."""
    x = np.random.default_rng(n).uniform(-3.0, 3.0, n)
    t0 = time.process_time()
    made = dgraph.make_function(f, "jacobian", point=[x])
    spent = time.process_time() - t0
    assert made.generated.verified is True, made.generated.verified
    np.testing.assert_array_equal(
        np.diag(made(x)), np.round(x) if f is FUNCTIONS["round"] else np.floor(x + 0.5)
    )
    return spent


def main(argv: list[str]) -> None:
    f = FUNCTIONS[argv[0]]
    sizes = [int(a) for a in argv[1:]]
    with jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds(f, 4)
        times = [seconds(f, n) for n in sizes]
    for n, t in zip(sizes, times, strict=True):
        print(f"{argv[0]} n={n} cpu_s={t:.2f}")
    if len(sizes) > 1:
        e = math.log(times[-1] / times[-2]) / math.log(sizes[-1] / sizes[-2])
        print(f"{argv[0]} exponent {sizes[-2]}->{sizes[-1]}: {e:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
