"""Jacobian build CPU-s of the survey's logcumsumexp_cumprod at n (make_function, python):
``python benchmarks/cumulative_build.py N [LEVEL]``; LEVEL ``element`` or ``array`` reads
the function at that level first (``from_python(f, point=[x], level=LEVEL)``), without it
``make_function`` picks the level; the level read and its edges are printed."""

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)
import dgraph  # noqa: E402
from dgraph.frontends import from_python  # noqa: E402

n = int(sys.argv[1])
level = sys.argv[2] if len(sys.argv) > 2 else None


def f(x):
    return lax.cumlogsumexp(x) + jnp.cumprod(jax.nn.sigmoid(-x))


x = np.random.default_rng(1000 * n).normal(size=n)
t = time.process_time()
source = f if level is None else from_python(f, point=[x], level=level)
made = dgraph.make_function(source, "jacobian", "python", point=None if level else [x])
cpu = time.process_time() - t
graph = made.generated.expression_set.graph
read = "array" if graph.is_tensor else "element"
print(f"n={n} build_cpu={cpu:.2f} level={read} edges={graph.n_edges}")
