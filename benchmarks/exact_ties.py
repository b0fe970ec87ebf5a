"""First derivatives at an exact break (session 65): the status of ``make_function`` of
JAX functions at a point where an operation is at its break, at the element level
(``make_function(f, point=[x])``) and the array level (``from_jax(f, x, level="array")``),
and the cost of the scan for a break on large functions.

    python benchmarks/exact_ties.py cases      # the table: status, values, JAX's values
    python benchmarks/exact_ties.py scale N    # CPU-s of make_function of a 10^N-entry
                                                # function at a random point and at a tie
    python benchmarks/exact_ties.py element N  # CPU-s of an N-entry element-level one

Run it with ``PYTHONPATH`` at the code to measure (this checkout or a base's).
"""

from __future__ import annotations

import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph import from_jax

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")


def _cond(x):
    return jnp.sum(jax.lax.cond(x[0] > 0, lambda x: 2.0 * x, lambda x: -x, x))


W = np.array([1.0, 2.0, 3.0])
CASES = {  # name: (function, a point at a break, has a derivative there)
    "relu at 0": (lambda x: jnp.sum(jax.nn.relu(x) * W), np.array([0.0, 1.0, -1.0]), False),
    "where(x>0, x, 0) at 0": (
        lambda x: jnp.sum(jnp.where(x > 0, x, 0.0)),
        np.array([0.0, 0.5]),
        False,
    ),
    "where(x>0, x, -x) at 0": (
        lambda x: jnp.sum(jnp.where(x > 0, x, -x)),
        np.array([0.0, 0.5]),
        False,
    ),
    "maximum(x, y) at x == y": (lambda x: jnp.maximum(x[0], x[1]), np.array([0.7, 0.7]), False),
    "max of a tie": (lambda x: jnp.max(x), np.array([1.0, 1.0, 0.5]), False),
    "cond at its threshold": (_cond, np.array([0.0, 0.3]), False),
    "lasso w·abs(x) at 0": (lambda x: jnp.sum(jnp.abs(x) * W[:2]), np.array([0.0, 0.3]), False),
    "where(x>0, x², 0) at 0": (
        lambda x: jnp.sum(jnp.where(x > 0, x**2, 0.0)),
        np.array([0.0, 0.5]),
        True,
    ),
    "relu³ at 0": (lambda x: jnp.sum(jax.nn.relu(x) ** 3), np.array([0.0, 0.5]), True),
    "maximum(x, x)": (lambda x: jnp.maximum(x[0], x[0]) + x[1], np.array([0.7, 0.7]), True),
}


def cases() -> None:
    print("| case | level | derivative exists | status | dgraph J | JAX's J |")
    print("|---|---|---|---|---|---|")
    for name, (f, x, smooth) in CASES.items():
        want = np.ravel(jax.jacfwd(f)(jnp.asarray(x)))
        for level in ("element", "array"):
            try:
                if level == "element":
                    made = dgraph.make_function(f, point=[x])
                else:
                    made = dgraph.make_function(from_jax(f, x, level="array"))
                status = made.generated.check.status
                got = np.ravel(made(x))
            except Exception as exc:  # a row of the table
                status, got = type(exc).__name__, None
            shown = "—" if got is None else np.array2string(got, precision=3)
            print(
                f"| {name} | {level} | {'yes' if smooth else 'no'} | {status} | {shown} |"
                f" {np.array2string(want, precision=3)} |"
            )


def _big(x):
    return jnp.where(x > 0.5, x**2, jnp.maximum(x, 0.2)) * jnp.sin(x)


def scale(n: int) -> None:
    """``make_function(f, "jacobian", sparse=True)`` of the lead's near-tie function at a
    random point (no break: the scan alone) and with one entry at 0.5 (a tie of the
    ``gt``: the confirmation runs), CPU-s of each after one warm-up."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.0, 1.0, n)
    tie = x.copy()
    tie[n // 2] = 0.5
    dgraph.make_function(from_jax(_big, x[:10], level="array"), "jacobian", sparse=True)
    for label, point in (("random", x), ("tie", tie)):
        start = time.process_time()
        made = dgraph.make_function(from_jax(_big, point, level="array"), "jacobian", sparse=True)
        spent = time.process_time() - start
        print(f"n={n} {label}: {spent:.3f} CPU-s, {made.generated.check.status}")


def element(n: int) -> None:
    """The element level: ``Σ relu(x)·sin(x)`` at a random point (no break, the scan of
    the vertex expressions alone) and with one entry at 0."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 1.0, n)
    tie = x.copy()
    tie[n // 2] = 0.0

    def f(x):
        return jnp.sum(jnp.maximum(x, 0.0) * jnp.sin(x))

    dgraph.make_function(f, point=[x[:3]])
    for label, point in (("random", x), ("tie", tie)):
        start = time.process_time()
        made = dgraph.make_function(f, point=[point])
        spent = time.process_time() - start
        print(f"n={n} element {label}: {spent:.3f} CPU-s, {made.generated.check.status}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "cases"
    if what == "cases":
        cases()
    elif what == "scale":
        scale(10 ** int(sys.argv[2]))
    else:
        element(int(sys.argv[2]))
