"""Session 58 (rk58): ``make_function``'s build CPU-s of two time integrators written as
plain Python loops over NumPy (unrolled when traced) — Lorenz RK4 (dt 0.01, state and
the three parameters) and Michaelis–Menten enzyme kinetics RK4 (dt 0.05, four states,
three rate constants) — the Jacobian of the final state w.r.t. the initial state and the
parameters, each build in a fresh process, the median of ``runs``, the error against
``jax.jacfwd`` (relative to the largest entry) and the growth exponents between lengths:

    python benchmarks/unrolled58.py lorenz python 10,30,100,300 3
    python benchmarks/unrolled58.py enzyme jax 10,30,100 3
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, sys, time
import numpy as np
import jax
import jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
import dgraph
sys.path.insert(0, sys.argv[4])
from unrolled58 import PROGRAMS
name, lang, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
f, point = PROGRAMS[name]
start = time.process_time()
G = dgraph.make_function(lambda y0, p: f(y0, p, steps=steps), "jacobian", lang, point=point)
cpu = time.process_time() - start
got = np.concatenate([np.asarray(b).reshape(len(point[0]), -1) for b in G(*point)], 1)
ref = np.concatenate(
    [np.asarray(b) for b in jax.jacfwd(lambda *a: f(*a, steps=steps, xp=jnp), (0, 1))(*point)], 1
)
err = float(np.abs(got - ref).max() / np.abs(ref).max())
found = {"cpu": cpu, "err": err, "verified": bool(G.generated.verified)}
print(json.dumps(found | {"dgraph": dgraph.__file__}))
"""


def lorenz(y, theta, xp=np):
    """The Lorenz system's right-hand side."""
    sigma, rho, beta = theta
    x, yy, z = y
    return xp.array([sigma * (yy - x), x * (rho - z) - yy, x * yy - beta * z])


def enzyme(c, k, xp=np):
    """Michaelis–Menten mass action: E + S <-> ES -> E + P."""
    E, S, ES, _ = c
    r1 = k[0] * E * S - k[1] * ES
    r2 = k[2] * ES
    return xp.array([-r1 + r2, -r1, r1 - r2, r2])


def rk4(rhs, dt):
    """``steps`` classical RK4 steps of ``rhs`` as a plain Python loop."""

    def f(y0, p, steps=30, xp=np):
        y = y0
        for _ in range(steps):
            k1 = rhs(y, p, xp)
            k2 = rhs(y + dt / 2 * k1, p, xp)
            k3 = rhs(y + dt / 2 * k2, p, xp)
            k4 = rhs(y + dt * k3, p, xp)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y

    return f


PROGRAMS = {
    "lorenz": (rk4(lorenz, 0.01), [np.array([1.0, 1.0, 1.0]), np.array([10.0, 28.0, 8 / 3])]),
    "enzyme": (
        rk4(enzyme, 0.05),
        [np.array([1.0, 5.0, 0.0, 0.0]), np.array([2.0, 1.0, 1.5])],
    ),
}


def main() -> None:
    """Time the builds and print a row per length, then the exponents."""
    name, lang = sys.argv[1], sys.argv[2]
    lengths, runs = [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4])
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for steps in lengths:
        got = []
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-W", "ignore", "-c", CHILD, name, lang, str(steps), here],
                capture_output=True,
                text=True,
                check=True,
                cwd=here,  # ``-c`` puts the working directory before PYTHONPATH
            )
            got.append(json.loads(out.stdout.strip().splitlines()[-1]))
        cpu = float(np.median([g["cpu"] for g in got]))
        found.append(cpu)
        runs_s = " ".join(f"{g['cpu']:.2f}" for g in got)
        print(
            f"{name} {lang} {steps} median {cpu:.2f} ({runs_s}) err {got[0]['err']:.1e} "
            f"verified {got[0]['verified']}",
            flush=True,
        )
    slopes = [
        math.log(found[k + 1] / found[k]) / math.log(lengths[k + 1] / lengths[k])
        for k in range(len(lengths) - 1)
    ]
    print("exponents", " ".join(f"{s:.2f}" for s in slopes))


if __name__ == "__main__":
    main()
