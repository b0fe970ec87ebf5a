"""CPU-s of two long JAX bodies (benchmarks/RESULTS.md, "Session 43: left43"): a reactor's
``make_function(f, "jacobian", "jax")`` of the NumPy version (``cstr``, ``n`` unrolled
steps) and the Cox partial likelihood's ``dgraph.hessian(..., lang="jax")`` (``cox``,
``n`` rows), each in a fresh process (the dgraph on ``PYTHONPATH``), the median of
``runs``.

    python benchmarks/left43_pieces.py cstr 20,40,80 3
    python benchmarks/left43_pieces.py cox 500,1000,2000 3
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CHILD = r"""
import sys, time, json
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import dgraph
name, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
if name == "cstr":
    def f(x0, q):
        ca, T = x0[0], x0[1]
        out = []
        for k in range(n):
            r = 7.2e10 * np.exp(-8750.0 / T) * ca
            dca = q[k] / 100.0 * (1.0 - ca) - r
            dT = q[k] / 100.0 * (350.0 - T) + 209.2 * r + 2.09 * (300.0 - T)
            ca = ca + 0.01 * dca
            T = T + 0.01 * dT
            out.append(T)
        return np.stack(out)
    point = [np.array([0.5, 350.0]), 100.0 + 5.0 * rng.normal(size=n)]
    t = time.process_time()
    F = dgraph.make_function(f, "jacobian", "jax", point=point)
else:
    def f(b, X, ev):
        eta = X @ b
        lrisk = jax.lax.cumlogsumexp(eta, reverse=True)
        return -jnp.sum(ev * (eta - lrisk))
    point = [0.1 * rng.normal(size=5), rng.normal(size=(n, 5)),
             (rng.uniform(size=n) < 0.7).astype(float)]
    t = time.process_time()
    F = dgraph.hessian(f, *point, params=["X", "ev"], lang="jax")
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "verified": bool(F.generated.verified),
                  "lines": F.generated.text.count("\n")}))
"""


def main() -> None:
    name, sizes, runs = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
    found = []
    for n in sizes:
        cpus = []
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, name, str(n)],
                capture_output=True,
                text=True,
                env=os.environ,
                cwd=tempfile.gettempdir(),  # not the tree's folder: PYTHONPATH's dgraph
                check=True,
            )
            got = json.loads(out.stdout.strip().splitlines()[-1])
            cpus.append(got["cpu"])
        median = float(np.median(cpus))
        found.append((n, median))
        shown = ", ".join(f"{c:.2f}" for c in cpus)
        print(
            f"{name} n={n}: median {median:.2f} CPU-s ({shown}); verified={got['verified']},"
            f" {got['lines']} lines",
            flush=True,
        )
    for (n0, c0), (n1, c1) in itertools.pairwise(found):
        print(f"{name} growth {n0}->{n1}: exponent {np.log(c1 / c0) / np.log(n1 / n0):.2f}")


if __name__ == "__main__":
    main()
