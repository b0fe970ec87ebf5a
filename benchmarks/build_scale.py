"""How the sparse Hessian's build grows with the program: VANDANMSLS's shape (issue 55).

    PYTHONPATH=. python benchmarks/build_scale.py [M ...] [--json FILE]

The objective is a sum of ``m`` terms ``a[k mod 22]² · b(t_k)``, ``b`` a piecewise cubic
of constants written with nested ``jnp.where`` (each a nested ``jit`` call) and ``t_k``
computed from constants in JAX: the gradient's jaxpr grows linearly in ``m`` (about 30
equations per term, most on constants), as VANDANMSLS's B-spline unrolled 220 times. For
each ``m`` (default 25, 50, 100, 200, 400), each in a fresh subprocess: the gradient's
equations, the CPU seconds of ``dgraph.hessian(f, a0, sparse=True)`` (``time.process_time``:
the machine is shared), and the largest difference from ``jax.hessian``; then the growth
exponent, the slope of log CPU s against log m between consecutive sizes and over all.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

N_COEFFICIENTS = 22


def objective(m: int):
    """The sum of ``m`` B-spline-like terms (module docstring)."""
    import jax.numpy as jnp

    def basis(t):
        u = t - 0.5
        return jnp.where(
            (u <= -0.4) | (u >= 0.4),
            0.0,
            jnp.where(u <= -0.1, (0.4 + u) ** 3 / 6.0, jnp.where(u <= 0.1, 0.2 - u**2, u**3)),
        )

    def f(a):
        knots = jnp.linspace(0.0, 1.0, m)
        total = 0.0
        for k in range(m):
            t = knots[k] * 0.9 + 0.05 * (k % 3) + 0.0123457  # off the pieces' ends
            total = total + a[k % N_COEFFICIENTS] ** 2 * basis(t) + a[k % N_COEFFICIENTS] * t
        return total

    return f


def measure(m: int) -> dict:
    """One size: the gradient's equations, the build's CPU seconds, the error."""
    import time

    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    import dgraph

    f = objective(m)
    a0 = np.linspace(0.5, 1.5, N_COEFFICIENTS)
    eqns = len(jax.make_jaxpr(jax.grad(f))(a0).jaxpr.eqns)
    start = time.process_time()
    H = dgraph.hessian(f, a0, sparse=True)
    cpu = time.process_time() - start
    ref = np.asarray(jax.hessian(f)(a0))
    got = H(a0).toarray()
    return {"m": m, "eqns": eqns, "build_cpu_s": cpu, "error": float(np.abs(got - ref).max())}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[25, 50, 100, 200, 400])
    parser.add_argument("--json", help="write the rows as JSON")
    opts = parser.parse_args(argv)
    rows = []
    for m in opts.sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(m)], capture_output=True, text=True
        )
        if out.returncode:
            print(f"m={m}: failed: {out.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(
            f"m={m}: {r['eqns']} equations, build {r['build_cpu_s']:.2f} CPU-s,"
            f" error {r['error']:.1e}",
            flush=True,
        )
    for a, b in itertools.pairwise(rows):
        slope = math.log(b["build_cpu_s"] / a["build_cpu_s"]) / math.log(b["m"] / a["m"])
        print(f"m {a['m']} -> {b['m']}: exponent {slope:.2f}")
    if len(rows) > 2:
        import numpy as np

        x = np.log([r["m"] for r in rows])
        y = np.log([r["build_cpu_s"] for r in rows])
        print(f"least-squares exponent over all sizes: {np.polyfit(x, y, 1)[0]:.2f}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(measure(int(sys.argv[2]))))
    else:
        main(sys.argv[1:])
