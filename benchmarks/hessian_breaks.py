"""Hessians where JAX's gradient program breaks (session 64, kinks64).

``python hessian_breaks.py [POINTS]``: ``make_function(f, "hessian", point=[x])`` of
``jax.numpy`` functions against ``jax.hessian``, each row its status and whether its
value is JAX's:

* ``smooth``: functions whose Hessian exists everywhere, each at ``POINTS`` (default 20)
  random points in [-1.5, 1.5)⁵ (seed 0) and at points that put their piecewise
  operations at a break (a tie of a max, a 0 under |x|, relu's 0), where the Hessian
  still exists. Every "not verified" here is a false alarm.
* ``kinked``: functions whose gradient jumps or kinks at the point given (no Hessian
  there): "verified" here is the defect.

One line per case class: counts of verified / not verified / refused, and of values
that differ from JAX's. CPU seconds (``time.process_time``) at the end.
"""

from __future__ import annotations

import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
import dgraph  # noqa: E402

warnings.simplefilter("ignore")

SMOOTH = {
    "rosenbrock": lambda x: jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2),
    "logsumexp": lambda x: jax.nn.logsumexp(x),
    "softplus": lambda x: jnp.sum(jax.nn.softplus(x)),
    "log-cosh": lambda x: jnp.sum(jnp.log(jnp.cosh(x))),
    "|x|^3": lambda x: jnp.sum(jnp.abs(x) ** 3),
    "relu^3": lambda x: jnp.sum(jnp.maximum(x, 0.0) ** 3),
    "cos|x|": lambda x: jnp.sum(jnp.cos(jnp.abs(x)) * jnp.arange(1.0, 6.0)),
    "exp(-|x|^2)": lambda x: jnp.exp(-jnp.sum(jnp.abs(x) ** 2)),
    "max-tie^4": lambda x: jnp.sum(jnp.maximum(x, x[::-1]) ** 4),
    "sin*x^2": lambda x: jnp.sum(jnp.sin(x) * x**2),
}
AT_BREAKS = {  # the points where a piecewise operation is at its break, Hessian exists
    "logsumexp": [np.zeros(5), np.array([1.0, 1.0, 0.2, -0.3, 1.0])],
    "softplus": [np.zeros(5)],
    "|x|^3": [np.zeros(5), np.array([0.0, 1.0, -2.0, 0.0, 0.5])],
    "relu^3": [np.zeros(5), np.array([0.0, 1.0, -2.0, 0.0, 0.5])],
    "cos|x|": [np.zeros(5), np.array([0.0, 1.0, -2.0, 0.0, 0.5])],
    "exp(-|x|^2)": [np.zeros(5), np.array([0.0, 1.0, -0.5, 0.0, 0.5])],
}
KINKED = {  # no Hessian at these points: the gradient jumps or kinks there
    "sum|x|": (lambda x: jnp.sum(jnp.abs(x)), np.array([0.0, 1.0, -2.0, 0.5, 0.3])),
    "relu": (lambda x: jnp.sum(jnp.maximum(x, 0.0)), np.array([0.0, 1.0, -2.0, 0.5, 0.3])),
    "where": (lambda x: jnp.sum(jnp.where(x > 0, x, -x)), np.array([0.0, 1.0, 2.0, 0.5, 0.3])),
    "clip": (lambda x: jnp.sum(jnp.clip(x, -1.0, 1.0)), np.array([1.0, 0.2, -1.0, 0.5, 0.3])),
    "x|x|": (lambda x: jnp.sum(x * jnp.abs(x)), np.array([0.0, 1.0, -2.0, 0.5, 0.3])),
    "relu^2": (lambda x: jnp.sum(jnp.maximum(x, 0.0) ** 2), np.array([0.0, 1.0, -2.0, 0.5, 0.3])),
    "huber": (
        lambda x: jnp.sum(jnp.where(jnp.abs(x) <= 1.0, x**2 / 2, jnp.abs(x) - 0.5)),
        np.array([1.0, 0.2, -0.4, 0.5, 0.3]),
    ),
    "(|a|+|b|)^2 axis": (
        lambda x: (jnp.abs(x[0]) + jnp.abs(x[1])) ** 2 + jnp.sum(x[2:] ** 2),
        np.array([1.0, 0.0, 0.2, 0.5, 0.3]),
    ),
    "(|a|+|b|)^2 zero": (
        lambda x: (jnp.abs(x[0]) + jnp.abs(x[1])) ** 2 + jnp.sum(x[2:] ** 2),
        np.array([0.0, 0.0, 0.2, 0.5, 0.3]),
    ),
    "lasso": (
        lambda x: 0.5 * jnp.sum((jnp.arange(1.0, 6.0) * x - 1.0) ** 2) + 0.1 * jnp.sum(jnp.abs(x)),
        np.array([0.0, 0.2, 0.0, 0.3, 0.25]),
    ),
}


def outcome(f, x) -> tuple[str, bool]:
    """The status of dgraph's Hessian of ``f`` at ``x`` and whether its value is JAX's."""
    try:
        made = dgraph.make_function(f, "hessian", point=[x])
    except dgraph.DGraphError:
        return "refused", True
    expected = np.asarray(jax.hessian(f)(jnp.asarray(x)))
    same = bool(np.allclose(made(x), expected, rtol=1e-9, atol=1e-12))
    return made.generated.check.status, same


def tally(rows: list[tuple[str, bool]]) -> str:
    counts = {s: sum(1 for r, _ in rows if r == s) for s in ("verified", "not verified", "refused")}
    differ = sum(1 for _, same in rows if not same)
    return ", ".join(f"{n} {s}" for s, n in counts.items()) + f"; {differ} not JAX's value"


def main() -> None:
    points = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    start = time.process_time()
    rng = np.random.default_rng(0)
    drawn = [rng.uniform(-1.5, 1.5, 5) for _ in range(points)]
    random_rows = []
    for name, f in SMOOTH.items():
        rows = [outcome(f, x) for x in drawn]
        print(f"smooth {name:14s} random  {tally(rows)}", flush=True)
        random_rows += rows
    print(f"smooth, random points: {tally(random_rows)}", flush=True)
    break_rows = []
    for name, xs in AT_BREAKS.items():
        rows = [outcome(SMOOTH[name], x) for x in xs]
        print(f"smooth {name:14s} breaks  {tally(rows)}", flush=True)
        break_rows += rows
    print(f"smooth, at breaks: {tally(break_rows)}", flush=True)
    for name, (f, x) in KINKED.items():
        status, same = outcome(f, x)
        print(f"kinked {name:18s} {status}{'' if same else ' (not JAX value)'}", flush=True)
    print(f"CPU-s {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
