"""Jacobian build CPU-s of the survey's logcumsumexp_cumprod at n (make_function, python):
``python benchmarks/cumulative_build.py N``."""

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)
import dgraph  # noqa: E402

n = int(sys.argv[1])


def f(x):
    return lax.cumlogsumexp(x) + jnp.cumprod(jax.nn.sigmoid(-x))


x = np.random.default_rng(1000 * n).normal(size=n)
t = time.process_time()
made = dgraph.make_function(f, "jacobian", "python", point=[x])
print(f"n={n} build_cpu={time.process_time() - t:.2f}")
