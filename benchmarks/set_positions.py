"""CPU seconds of ``jaxpr_reductions._distinct_positions`` (whether a ``fori_loop``'s
``o.at[i].set(u)`` writes one position twice) for ``fill`` at a few sizes, in one process
after a warm-up call: on gather32 NumPy's evaluation of the index's equations and the
jitted ``jax.vmap`` fallback (``STEPS_BY_NUMPY`` 0); on a tree before it (main 4fa39852)
its whole-body eager ``jax.vmap`` (the attribute is then unused: both rows the same path).

    PYTHONPATH=TREE python benchmarks/set_positions.py

Prints ``n path distinct cpu_s``.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

from dgraph.frontends import jaxpr_reductions as R  # noqa: E402


def fill(x):
    body = lambda i, o: o.at[i].set(jnp.sin(x[i]) * x[i + 1])  # noqa: E731
    return jnp.sum(lax.fori_loop(0, x.shape[0] - 1, body, jnp.zeros(x.shape[0] - 1)) ** 2)


def main() -> None:
    for n in (8, 12, 1000, 13):  # 8: the warm-up
        x = np.linspace(-0.8, 0.9, n)
        (e,) = [e for e in jax.make_jaxpr(fill)(x).jaxpr.eqns if e.primitive.name == "scan"]
        plan = R.reduction(e)
        for path, most in (("numpy", 10_000), ("jit", 0)):
            R.STEPS_BY_NUMPY = most
            start = time.process_time()
            distinct = R._distinct_positions(jax, e, plan)
            if n != 8:
                print(n, path, distinct, f"{time.process_time() - start:.3f}")


if __name__ == "__main__":
    main()
