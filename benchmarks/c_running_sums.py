"""The C values of a sparse Jacobian through a ``cumsum`` sliced or reversed, at one size:
its nonzeros, the constant entries the C function takes (its index file's arrays, the CSR
pattern aside), those of them that are floats (an array of ones), the seconds to generate
and check it (``time.process_time``) and the median of 21 calls (``time.perf_counter``,
milliseconds), and the largest error against the Jacobian by hand.

    python benchmarks/c_running_sums.py {cumsum|sliced|stepped|flipped|numpy_flipped} N

``cumsum``: ``sin(cumsum(x))``; ``sliced``: ``sin(cumsum(x)[5:])``; ``stepped``:
``sin(cumsum(x)[::2])``; ``flipped``: ``sin(flip(cumsum(flip(x))))`` (JAX);
``numpy_flipped``: the same written with NumPy; x of n entries.
"""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph import from_jax
from dgraph.frontends.functions import from_function

CASES = {
    "cumsum": lambda x: jnp.sin(jnp.cumsum(x)),
    "sliced": lambda x: jnp.sin(jnp.cumsum(x)[5:]),
    "stepped": lambda x: jnp.sin(jnp.cumsum(x)[::2]),
    "flipped": lambda x: jnp.sin(jnp.flip(jnp.cumsum(jnp.flip(x)))),
}


def _numpy_flipped(x):
    return np.sin(np.flip(np.cumsum(np.flip(x))))


def _by_hand(name: str, x: np.ndarray) -> np.ndarray:
    """J: cos(y_i) on the running sum's entries of row i."""
    n = x.size
    if name in ("flipped", "numpy_flipped"):
        return np.cos(np.cumsum(x[::-1])[::-1])[:, None] * np.triu(np.ones((n, n)))
    J = np.cos(np.cumsum(x))[:, None] * np.tril(np.ones((n, n)))
    return {"cumsum": J, "sliced": J[5:], "stepped": J[::2]}[name]


def main(name: str, n: int) -> None:
    jax.config.update("jax_enable_x64", True)
    x = np.random.default_rng(0).uniform(-1.0, 1.0, n)
    start = time.process_time()
    if name == "numpy_flipped":
        g = from_function(_numpy_flipped, sizes=[(n,)], level="array", point=[x])
    else:
        g = from_jax(CASES[name], x, level="array")
    J = dgraph.make_function(g, "jacobian", lang="c", sparse=True)
    built = time.process_time() - start
    values = J.generated.values
    sizes = [a.size for a in values.constants.values()]
    floats = sum(a.size for a in values.constants.values() if a.dtype.kind == "f")
    times = []
    for _ in range(21):
        t = time.perf_counter()
        got = J(x)
        times.append(time.perf_counter() - t)
    error = float(np.max(np.abs(got.toarray() - _by_hand(name, x))))
    print(
        f"{name} n={n}: nnz {values.nnz}, constant entries {sum(sizes)} {sizes}, floats"
        f" {floats}, build {built:.2f} s, call {1e3 * float(np.median(times)):.3f} ms,"
        f" error {error:.1e}"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
