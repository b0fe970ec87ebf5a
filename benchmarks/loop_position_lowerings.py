"""The programs JAX lowers while dgraph reads loops that write and read at their counter
or run a ``while_loop``, by where (a ``.set`` loop's positions, a read's or write's
positions at a counter, a while loop's trip count, the rest), and the read's CPU
seconds: one case per process, so that no cache of an earlier case counts (gather32:
those positions by NumPy, a trip count by the equations the loop reads).

    XLA_FLAGS="--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false" \\
        PYTHONPATH=TREE python benchmarks/loop_position_lowerings.py CASE

CASE: set (``gradient_graph`` of a ``fori_loop`` setting rows at its counter: the loop a
map), counter (``from_jax(..., level="array")`` of a ``fori_loop`` reading rows of its
carry at the counter and adding and setting rows there), while (``gradient_graph`` of a
``while_loop`` to a tolerance followed by more arithmetic). Prints ``case lowerings set
steps while other cpu_s``.
"""

from __future__ import annotations

import collections
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

from dgraph.frontends.jax_hessian import gradient_graph  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402

WHERE: collections.Counter = collections.Counter()


def _listen(event: str, seconds: float, **kwargs) -> None:
    if not event.endswith("jaxpr_to_mlir_module_duration"):
        return
    names = [f.name for f in traceback.extract_stack() if "/dgraph/" in f.filename]
    if "_distinct_positions" in names:
        WHERE["set"] += 1
    elif any(n in ("_positions", "_writes") for n in names):
        WHERE["steps"] += 1
    elif any(n in ("reverse_loops", "static_trip_loops") for n in names):
        WHERE["while"] += 1
    else:
        WHERE["other"] += 1


def rows_and_sum(x):
    m = x.reshape(-1, 2)

    def body(i, c):
        o, s = c
        return o.at[i].set(m[i] * m[i, ::-1]), s + jnp.exp(m[i, 0])

    o, s = lax.fori_loop(0, m.shape[0], body, (jnp.zeros_like(m), 0.0))
    return jnp.sum(o**3) * s


def counter_rw(x):
    m = x.reshape(-1, 2)

    def body(i, o):
        o = o.at[i + 1].add(jnp.sin(o[i + jnp.arange(2)]).sum(0) * m[i])
        return o.at[i].set(o[i] ** 2 * m[i, ::-1])

    return lax.fori_loop(0, m.shape[0] - 1, body, m).reshape(-1)


def newton(x):
    def cond(s):
        y, k = s
        return (jnp.max(jnp.abs(y * y - x)) > 1e-14) & (k < 50)

    def body(s):
        y, k = s
        return 0.5 * (y + x / y), k + 1

    y = lax.while_loop(cond, body, (jnp.ones_like(x), 0))[0]
    return jnp.sum(jnp.log1p(y) * jnp.sin(x) + jnp.tanh(y * x) ** 2)


def main(case: str) -> None:
    x = np.linspace(0.2, 1.3, 12)
    jax.monitoring.register_event_duration_secs_listener(_listen)
    start = time.process_time()
    if case == "counter":
        from_jax(counter_rw, x, level="array")
    else:
        gradient_graph({"set": rows_and_sum, "while": newton}[case], x)
    cpu = time.process_time() - start
    total = sum(WHERE.values())
    parts = " ".join(str(WHERE[k]) for k in ("set", "steps", "while", "other"))
    print(f"{case} {total} {parts} {cpu:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
